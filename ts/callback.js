'use strict'
// Awaiting the caller's own functions (a plan's confirm, a run's steering and follow-up
// callbacks, a model's answer): each is raced with the run's AbortSignal and, when given, a
// deadline, so a callback that never answers can neither hang the driver nor outlive an abort.

const { ToolwireError, describe } = require('./common.js')

/** How long a callback may take to answer by default: as long as an approval (120 s). */
const DEFAULT_CALLBACK_TIMEOUT_MS = 120_000

/** What `untilAnswered` resolves with when the signal aborted first. */
const ABORTED = Symbol('aborted')

/**
 * Calls `call()` (a user function) and resolves with what it answers, or with `ABORTED` as soon
 * as `signal` aborts, whichever comes first. With `timeoutMs`, a callback that has not answered
 * by then rejects with a ToolwireError `TIMEOUT` naming `where`. A throw (sync or async) of the
 * callback rejects with it. A late answer or rejection of an abandoned callback is swallowed.
 */
function untilAnswered(where, call, { signal, timeoutMs } = {}) {
  let promise
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
  return new Promise((resolve, reject) => {
    let timer
    const settle = (fn, value) => {
      if (timer !== undefined) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      fn(value)
    }
    const onAbort = () => {
      promise.catch(() => {})
      settle(resolve, ABORTED)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
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
function callbackTimeout(where, value) {
  if (value === undefined) return DEFAULT_CALLBACK_TIMEOUT_MS
  if (!Number.isInteger(value) || value < 1 || value > 0x7fffffff) {
    throw new TypeError(`${where}: options.callbackTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${describe(value)}`)
  }
  return value
}

module.exports = { ABORTED, DEFAULT_CALLBACK_TIMEOUT_MS, untilAnswered, callbackTimeout }
