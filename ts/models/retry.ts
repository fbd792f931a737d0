// When a provider preset tries a request again, and how long it waits first: exponential backoff
// with jitter, or what the provider's answer asks for in its retry-after headers.

import { ONCE, ToolwireError, checkOptionKeys, describe, ownOptions } from '../common.js'
import type { ModelRetryOptions } from '../types.js'
import { MAX_TIMER_MS } from '../clock.js'

/** A preset's retry settings, checked (see ModelRetryOptions). */
export interface RetryPolicy {
  maxRetries: number
  initialDelayMs: number
  maxDelayMs: number
}

/** The settings of a preset given no `retry` (those of the OpenAI and Anthropic SDKs). */
const DEFAULT_RETRY: RetryPolicy = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8000 }

/** The longest wait a `retry-after` or `retry-after-ms` header gets: past it, the wait is this. */
const MAX_RETRY_AFTER_MS = 60_000


/** What a retry reads of an answer's headers (a fetch `Headers`). */
export interface HeaderReader {
  get(name: string): string | null
}

/** The keys of the `retry` option. */
const RETRY_OPTIONS: readonly string[] = ['maxRetries', 'initialDelayMs', 'maxDelayMs']

/**
 * The `retry` option (`where` names it) as a policy, the defaults filled in. A value that is not
 * an object, an unknown key, or a number that is not a whole count or delay is refused naming it.
 */
export function retryPolicy(where: string, value: unknown): RetryPolicy {
  if (value === undefined) return DEFAULT_RETRY
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object { maxRetries, initialDelayMs, maxDelayMs }, got ${describe(value)}`)
  }
  const given = ownOptions(value as ModelRetryOptions)
  checkOptionKeys(where, given, RETRY_OPTIONS)
  return {
    maxRetries: wholeNumber(`${where}.maxRetries`, given.maxRetries, DEFAULT_RETRY.maxRetries, Number.MAX_SAFE_INTEGER),
    initialDelayMs: wholeNumber(`${where}.initialDelayMs`, given.initialDelayMs, DEFAULT_RETRY.initialDelayMs, MAX_TIMER_MS),
    maxDelayMs: wholeNumber(`${where}.maxDelayMs`, given.maxDelayMs, DEFAULT_RETRY.maxDelayMs, MAX_TIMER_MS),
  }
}

/** `value` when it is a whole number from 0 to `max`, `fallback` when undefined; else refused naming `where`. */
function wholeNumber(where: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new ToolwireError('VALIDATION_ERROR', `${where} must be a whole number from 0 to ${max}, got ${describe(value)}`)
  }
  return value
}

/**
 * Whether an answer of HTTP `status` is worth another attempt: a request timeout (408), a lock
 * conflict (409), a rate limit (429) or the server's own failure (5xx). Any other 4xx is the
 * request's fault: sent again, it fails again.
 */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/**
 * How long to wait before retry number `retries + 1`: `initialDelayMs` doubled per retry made,
 * at most `maxDelayMs`, less up to a quarter at random (so clients that failed together do not
 * come back together).
 */
export function backoffMs(policy: RetryPolicy, retries: number): number {
  const full = Math.min(policy.initialDelayMs * 2 ** retries, policy.maxDelayMs)
  return full * (1 - Math.random() * 0.25)
}

/**
 * How long a failed answer asks to be given before a retry, in ms: its `retry-after-ms` header
 * (milliseconds, OpenAI's and Anthropic's), else its `retry-after` (seconds, or an HTTP date),
 * at most {@link MAX_RETRY_AFTER_MS}; undefined when it asks nothing readable. A date passed is 0.
 */
export function requestedWaitMs(headers: HeaderReader, now: number = Date.now()): number | undefined {
  const millis = numberOf(headers.get('retry-after-ms'))
  const after = headers.get('retry-after')
  const seconds = numberOf(after)
  let wait: number | undefined
  if (millis !== undefined) wait = millis
  else if (seconds !== undefined) wait = seconds * 1000
  else if (after !== null && HTTP_DATE.test(after.trim()) && !Number.isNaN(Date.parse(after))) wait = Math.max(0, Date.parse(after) - now)
  return wait === undefined ? undefined : Math.min(wait, MAX_RETRY_AFTER_MS)
}

/**
 * An HTTP date as `retry-after` carries one (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37
 * GMT`): anything else is no date, whatever `Date.parse` would make of it (`"5, 10"` is a date in
 * 2001 to V8).
 */
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

/** A header's value as a number of 0 or more (`"1.5"`), else undefined (absent, a date, garbage). */
function numberOf(text: string | null): number | undefined {
  if (text === null || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return undefined
  return Number(text)
}

/**
 * How long to wait before retry number `retries + 1` after a failed answer with `headers` (after
 * a network error, `headers` is undefined): what the answer asks, else the backoff.
 */
export function retryWaitMs(policy: RetryPolicy, retries: number, headers?: HeaderReader): number {
  return (headers === undefined ? undefined : requestedWaitMs(headers)) ?? backoffMs(policy, retries)
}

/**
 * Resolves after `ms`, or rejects with the signal's reason as soon as `signal` aborts (at once
 * when it already has): a retry's wait never outlives an abort.
 */
export function waitUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, Math.min(ms, MAX_TIMER_MS))
    signal?.addEventListener('abort', onAbort, ONCE)
  })
}
