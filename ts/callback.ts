// Awaiting the caller's own functions (a plan's confirm, a run's steering and follow-up
// callbacks, a model's answer): each is raced with the run's AbortSignal and, when given, a
// deadline, so a callback that never answers can neither hang the driver nor outlive an abort.

import { ONCE, ToolwireError, describe } from './common.js'
import { MAX_TIMER_MS } from './clock.js'

/** How long a callback may take to answer by default: as long as an approval (120 s). */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 120_000

/** What `untilAnswered` resolves with when the signal aborted first. */
export const ABORTED = Symbol('aborted')

/** How {@link untilAnswered} awaits: the run's signal, and a deadline in milliseconds. */
export interface AnswerOptions {
  signal?: AbortSignal
  timeoutMs?: number
}

/**
 * Calls `call()` (a user function) and resolves with what it answers, or with `ABORTED` as soon
 * as `signal` aborts, whichever comes first. With `timeoutMs`, a callback that has not answered
 * by then rejects with a ToolwireError `TIMEOUT` naming `where`. A throw (sync or async) of the
 * callback rejects with it. A late answer or rejection of an abandoned callback is swallowed.
 */
export function untilAnswered<T>(where: string, call: () => T | PromiseLike<T>, { signal, timeoutMs }: AnswerOptions = {}): Promise<T | typeof ABORTED> {
  let promise: Promise<T>
  try {
    promise = Promise.resolve(call())
  } catch (error) {
    return Promise.reject(error)
  }
  if (signal?.aborted) {
    promise.catch(() => {})
    return Promise.resolve(ABORTED)
  }
  if (signal === undefined && timeoutMs === undefined) return promise
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const settle = <V>(fn: (value: V) => void, value: V): void => {
      if (timer !== undefined) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      fn(value)
    }
    const onAbort = (): void => {
      promise.catch(() => {})
      settle(resolve, ABORTED)
    }
    signal?.addEventListener('abort', onAbort, ONCE)
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        promise.catch(() => {})
        settle(reject, new ToolwireError('TIMEOUT', `${where} did not answer within ${timeoutMs} ms`))
      }, timeoutMs)
    }
    promise.then(
      (value) => settle(resolve, value),
      (error) => settle(reject, error),
    )
  })
}

/** Checks a `callbackTimeoutMs` option: a whole number of milliseconds from 1, or the default. */
export function callbackTimeout(where: string, value: unknown): number {
  if (value === undefined) return DEFAULT_CALLBACK_TIMEOUT_MS
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS) {
    throw new TypeError(`${where}: options.callbackTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${describe(value)}`)
  }
  return value
}
