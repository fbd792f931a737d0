// What bounds one model answer in a run: how long it may take (from the request to the body's
// end) and how many bytes its body may hold. A model that streams forever (keep-alive comments,
// endless text, a tool call's arguments without end) would otherwise hold the run and grow its
// memory until the caller's signal ends it.

import { ONCE, ToolwireError, describe } from './common.js'
import { MAX_TIMER_MS } from './clock.js'

/** The longest one model answer may take by default: 10 minutes, the OpenAI and Anthropic SDKs' request timeout. */
export const DEFAULT_ANSWER_TIMEOUT_MS = 600_000

/** The most bytes one model answer's body may hold by default: 64 MiB. */
export const DEFAULT_MAX_ANSWER_BYTES = 64 << 20


/** `run`'s limits on each model answer, checked. */
export interface AnswerLimits {
  timeoutMs: number
  maxBytes: number
}

/** The options `answerTimeoutMs` and `maxAnswerBytes` of `run`, checked (a TypeError naming the one at fault), defaults filled in. */
export function answerLimits(answerTimeoutMs: unknown, maxAnswerBytes: unknown): AnswerLimits {
  return {
    timeoutMs: wholeNumber('answerTimeoutMs', answerTimeoutMs, DEFAULT_ANSWER_TIMEOUT_MS, MAX_TIMER_MS, 'milliseconds'),
    maxBytes: wholeNumber('maxAnswerBytes', maxAnswerBytes, DEFAULT_MAX_ANSWER_BYTES, Number.MAX_SAFE_INTEGER, 'bytes'),
  }
}

/** `value` when a whole number from 1 to `max`, `fallback` when undefined; else a TypeError naming `run: options.<key>`. */
function wholeNumber(key: string, value: unknown, fallback: number, max: number, unit: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new TypeError(`run: options.${key} must be a whole number of ${unit} from 1 to ${max}, got ${describe(value)}`)
  }
  return value
}

/**
 * One model answer's deadline: `signal` aborts when the run's signal does or when `timeoutMs`
 * pass, so the model call and every read of its body stop at either. `clear()` ends the deadline
 * (call it once the answer was read).
 */
export interface AnswerDeadline {
  readonly signal: AbortSignal
  /** The error the run ends with when the deadline passed (and the run's signal did not abort), else undefined. */
  expired(): ToolwireError | undefined
  clear(): void
}

/** A deadline of `timeoutMs` for one answer, under the run's `signal` (see {@link AnswerDeadline}). */
export function answerDeadline(runSignal: AbortSignal | undefined, timeoutMs: number): AnswerDeadline {
  const controller = new AbortController()
  let passed: ToolwireError | undefined
  const onAbort = (): void => controller.abort(runSignal?.reason)
  if (runSignal?.aborted) controller.abort(runSignal.reason)
  else runSignal?.addEventListener('abort', onAbort, ONCE)
  const timer = setTimeout(() => {
    passed = new ToolwireError(
      'TIMEOUT',
      `run: the model's answer did not end within answerTimeoutMs (${timeoutMs} ms): raise it for a slower model, or see why its stream did not end`,
    )
    controller.abort(passed)
  }, timeoutMs)
  return {
    signal: controller.signal,
    expired: () => (runSignal?.aborted === true ? undefined : passed),
    clear: () => {
      clearTimeout(timer)
      runSignal?.removeEventListener('abort', onAbort)
    },
  }
}

/**
 * Counts an answer's bytes as its pieces arrive (text by its UTF-8 length; an SDK's chunk object
 * by its JSON text's), telling when they pass `maxBytes`.
 */
export class AnswerSize {
  private bytes = 0

  constructor(private readonly maxBytes: number) {}

  /** Adds `piece`'s bytes: the ToolwireError LIMIT_EXCEEDED naming `maxAnswerBytes` when they pass the limit, else undefined. */
  exceededBy(piece: string | Uint8Array | ArrayBuffer): ToolwireError | undefined {
    this.bytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength
    if (this.bytes <= this.maxBytes) return undefined
    return new ToolwireError(
      'LIMIT_EXCEEDED',
      `run: the model's answer passed maxAnswerBytes (${this.maxBytes} bytes; its reading was stopped): raise it for a larger answer, or see why the model's stream did not end`,
    )
  }
}
