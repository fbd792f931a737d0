// What a tool or a hook handed over, as the completion the engine reads: its kind (the
// generated `Completion` codes) and its payload, one JSON text. Whatever the value holds
// (getters or toJSON that throw, cycles, BigInt, a Proxy, a stack-overflowing depth), the
// conversion names why it failed and never throws past the call.

import { OVER_LIMIT_MARK, isWellFormed, keepingAll, messageOf, ownOrClass, serializeFailure, stringifyChecked } from './common.js'
import { Completion } from './protocol.generated.js'

/** A completion's kind: one of the engine's `Completion` codes. */
export type CompletionKind = (typeof Completion)[keyof typeof Completion]

/** A completion's kind and its payload (JSON text). */
export type CompletionOf = [kind: CompletionKind, payload: string]

/**
 * JSON.stringify replacer for a tool's value (its content, details and data): a value JSON would
 * carry as less than it is (a Map, Set, RegExp, Promise, Error, function, a class instance with
 * private fields only, ... without a toJSON) stops it, named at its path (common.js lostAs).
 */
export const KEEPING_ALL = keepingAll()

/**
 * JSON.stringify replacer for partial results: bytes show as the start of their text. It reads
 * `this[key]` (a replacer's holder), the value before `toJSON`, so a Buffer is never expanded
 * into an array of numbers.
 */
export function bytesAsText(this: unknown, key: string, value: unknown): unknown {
  const raw = (this as Record<string, unknown>)[key]
  if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, 65536)).toString('utf8')
  if (raw instanceof ArrayBuffer) return Buffer.from(raw, 0, Math.min(raw.byteLength, 65536)).toString('utf8')
  return value
}

/** The replacer of a partial result: bytes as text ({@link bytesAsText}), then {@link KEEPING_ALL}'s check. */
export const PARTIAL_REPLACER = keepingAll(bytesAsText)

/** The JSON text of what was thrown's message; never throws itself. */
export function messageJson(error: unknown): string {
  return JSON.stringify(messageOf(error))
}

/** Whether what was thrown is an Error marked `retryable = false` (a throwing getter: no). */
export function notRetryable(error: unknown): boolean {
  try {
    // (its own `retryable`, or its class's: never one a polluted Object.prototype holds)
    return error instanceof Error && ownOrClass(error, 'retryable') === false
  } catch {
    return false
  }
}

/** Whether what was thrown is toolwire's own refusal of a remote tool's result over a limit (see rap.js). */
export function overLimit(error: unknown): boolean {
  try {
    return error instanceof Error && (error as unknown as Record<symbol, unknown>)[OVER_LIMIT_MARK] === true
  } catch {
    return false
  }
}

/** The completion of a tool that threw (or rejected) `error`. */
export function thrown(error: unknown): CompletionOf {
  const kind = overLimit(error) ? Completion.OVER_LIMIT : notRetryable(error) ? Completion.THREW_NOT_RETRYABLE : Completion.THREW
  return [kind, messageJson(error)]
}

/**
 * JSON text of a hook's answer; `undefined` becomes null. A value JSON would carry as less than
 * it is (a Map in new params or details, a function, ...) throws, named at its path, as in a
 * tool's value ({@link KEEPING_ALL}).
 */
export function answerJson(value: unknown): string {
  const json = value === undefined ? undefined : stringifyChecked(value, KEEPING_ALL)
  return json === undefined ? 'null' : json
}

/**
 * A beforeToolCall answer's `block`, read once (a getter answering differently on a second read
 * cannot unblock the call); throws when reading it throws (a getter, a Proxy): the hook failed,
 * and its call with it. `undefined` for an answer that is not an object (`"x"?.block`).
 *
 * Whether the answer blocks is this value's truthiness, as JavaScript reads it and pi-agent-core
 * decides (`beforeResult?.block`), whose hooks run here unchanged: `true`, `1`, `'true'`,
 * `'false'`, an object, an array, a function, a symbol block; `false`, `0`, `-0`, `0n`, `''`,
 * `NaN`, `null` and `undefined` do not. Decided here, once, before the answer crosses
 * ({@link beforeAnswerJson}): JSON cannot carry every truthy value (a function, a symbol).
 */
export function blockOf(answer: unknown): unknown {
  return answer === null || answer === undefined ? undefined : (answer as { block?: unknown }).block
}

/**
 * A beforeToolCall answer as it crosses to the engine, which blocks on `block: true` alone
 * (`toolwire_core::output::before_decision`); `block` is the answer's, read by {@link blockOf}.
 * A blocking answer crosses as `{ block: true, reason }` (its `reason` when a string; nothing
 * else of it is read), any other as {@link answerJson} writes it, without a `block` of no JSON
 * form (`0n`).
 */
export function beforeAnswerJson(value: unknown, block: unknown): string {
  if (block) {
    const reason = (value as { reason?: unknown }).reason
    return answerJson(typeof reason === 'string' ? { block: true, reason } : { block: true })
  }
  if (typeof block === 'bigint') {
    const json = stringifyChecked(value, keepingAll(function (this: unknown, key: string, item: unknown) {
      return this === value && key === 'block' ? undefined : item
    }))
    return json === undefined ? 'null' : json
  }
  return answerJson(value)
}

/**
 * The completion of a tool value JavaScript could not walk or serialize: one nested so deep that
 * walking it overflowed the stack (thousands of levels, far past the engine's value depth limit)
 * is that limit's LIMIT_EXCEEDED like any other too-deep value; anything else (a cycle, a BigInt,
 * a throwing getter or toJSON) is the tool's error, naming why.
 */
export function unserializable(error: unknown, value: unknown): CompletionOf {
  const overflow = error instanceof RangeError && /call stack/i.test(String(error.message))
  return overflow ? [Completion.TOO_DEEP, 'null'] : [Completion.UNSERIALIZABLE, JSON.stringify(serializeFailure(error, value))]
}

/**
 * The text of a value that is exactly `{ content: [{ type: 'text', text }] }`: plain objects and
 * array, no other key, no `toJSON`, a string with no lone surrogate. That is the commonest value
 * a tool returns, and it crosses as its text alone (`Completion.RETURNED_TEXT`), neither
 * serialized here nor parsed by the engine. Anything else is `undefined` and takes the general
 * path, which names what is wrong with it; so does a value whose Proxy trap or getter throws.
 */
export function soleText(value: unknown): string | undefined {
  try {
    if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return undefined
    const record = value as { content?: unknown; toJSON?: unknown }
    const keys = Object.keys(record)
    if (keys.length !== 1 || keys[0] !== 'content' || record.toJSON !== undefined) return undefined
    const content = record.content
    if (!Array.isArray(content) || content.length !== 1 || Object.getPrototypeOf(content) !== Array.prototype) return undefined
    if ((content as { toJSON?: unknown }).toJSON !== undefined) return undefined
    const block = content[0] as { type?: unknown; text?: unknown; toJSON?: unknown } | null
    if (block === null || typeof block !== 'object' || Object.getPrototypeOf(block) !== Object.prototype || block.toJSON !== undefined) return undefined
    const blockKeys = Object.keys(block)
    if (blockKeys.length !== 2 || !blockKeys.includes('type') || !blockKeys.includes('text') || block.type !== 'text') return undefined
    const text = block.text
    return typeof text === 'string' && isWellFormed(text) ? text : undefined
  } catch {
    return undefined
  }
}
