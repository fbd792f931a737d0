// The calls of a dispatch as the engine reads them: each call's id, name and how to read its
// arguments in one JSON text, and each call's arguments text on its own.

import { readCall } from './calls.js'
import { describe, nonFiniteNumber, own, serializeFailure, stringifyChecked } from './common.js'
import { ArgumentKind, JOINED_SEPARATOR } from './protocol.generated.js'
import { KEEPING_ALL } from './completion.js'
import type { DispatchCall, ModelToolCall } from './types.js'

/** A call as dispatch reads it (a provider's shape read as `{ id, name, arguments }`). */
export type ReadCall = ModelToolCall & { error?: { code?: string } }

/** The calls as the engine reads them. */
export interface EncodedCalls {
  /** `calls` as dispatch reads them: their own keys, each read once (see readCall). */
  calls: ReadCall[]
  /**
   * The calls as the hooks are given them (`toolCall`): the call itself when it has the shape
   * `{ id, name, arguments }`, else the call read from its provider's shape.
   */
  toolCalls: ModelToolCall[]
  /** One JSON text `[[id, name, kind, stamp?], ...]`. */
  meta: string
  /** The calls' arguments texts (each read as its `ArgumentKind` says), joined by JOINED_SEPARATOR. */
  texts: string
  /** Each one's length in UTF-16 units (`string.length`). */
  lengths: number[]
  /** Each call's arguments as JSON text (TEXT and OBJECT kinds; undefined for the others). */
  argumentTexts: (string | undefined)[]
}

/**
 * The calls as the engine reads them: `calls` as dispatch reads them (a provider's shape read as
 * `{ id, name, arguments }`, see calls.js), `meta` one JSON text `[[id, name, kind], ...]` and
 * `texts` the calls' arguments texts joined, each `lengths[i]` long (see `joined` in the core), read
 * as its `ArgumentKind` says (TEXT: the model's JSON
 * text, crossing unescaped; OBJECT: the JSON text of an object passed; UNSERIALIZABLE: why an
 * object could not be serialized; INCOMPLETE: a call a StreamDecoder marked incomplete, which is
 * refused with INCOMPLETE_ARGUMENTS and never run; NOT_FINITE: an object holding a number JSON
 * cannot carry, `[pointer, number]`, refused at that path).
 */
export function encodeCalls(given: readonly DispatchCall[]): EncodedCalls {
  if (!Array.isArray(given)) throw new TypeError(`dispatch: calls must be an array, got ${describe(given)}`)
  const read = new Array<ReadCall>(given.length)
  const toolCalls = new Array<ModelToolCall>(given.length)
  // (each ReadCall: the engine's checks below make it one)
  for (let i = 0; i < given.length; i++) read[i] = readCall(given[i], i, toolCalls) as ReadCall
  const rows = new Array<string>(read.length)
  const texts = new Array<string>(read.length)
  const lengths = new Array<number>(read.length)
  const argumentTexts = new Array<string | undefined>(read.length)
  for (let i = 0; i < read.length; i++) {
    const call = read[i] as ReadCall
    const { id, name, arguments: args } = read[i]!
    if (typeof id !== 'string') throw new TypeError(`dispatch: calls[${i}].id must be a string, got ${describe(id)}`)
    if (typeof name !== 'string') throw new TypeError(`dispatch: calls[${i}].name must be a string, got ${describe(name)}`)
    let kind: number = ArgumentKind.TEXT
    let text = args as string | undefined
    // (the call read is its own keys: readCall; its error object, a StreamDecoder's, is read by its own key too)
    if (call.complete === false && !(call.error && own(call.error, 'code') === 'INVALID_JSON')) {
      kind = ArgumentKind.INCOMPLETE
      text = ''
    } else if (typeof args !== 'string') {
      kind = ArgumentKind.OBJECT
      let bad: unknown
      try {
        // A Map, Set, function or class instance JSON would carry as less than it is refuses
        // the call, named at its path, as in a tool's value (KEEPING_ALL).
        text = args === undefined ? 'null' : stringifyChecked(args, KEEPING_ALL)
        // (a second walk, for a null in the text: a getter or valueOf may throw only now)
        if (text !== undefined) bad = nonFiniteNumber(args, text)
      } catch (error) {
        kind = ArgumentKind.UNSERIALIZABLE
        text = serializeFailure(error, args)
      }
      if (text === undefined) {
        kind = ArgumentKind.UNSERIALIZABLE
        text = `arguments of type ${typeof args} have no JSON form`
      }
      if (kind === ArgumentKind.OBJECT && bad !== undefined) {
        kind = ArgumentKind.NOT_FINITE
        text = JSON.stringify(bad)
      }
    }
    const stamp = stampOf(call, i)
    rows[i] = `[${JSON.stringify(id)},${JSON.stringify(name)},${kind}${stamp === undefined ? '' : `,${stamp}`}]`
    texts[i] = text as string
    lengths[i] = (text as string).length
    if (kind === ArgumentKind.TEXT || kind === ArgumentKind.OBJECT) argumentTexts[i] = text
  }
  // (each call's id and name checked above: strings)
  return { calls: read, toolCalls, meta: `[${rows.join(',')}]`, texts: texts.join(JOINED_SEPARATOR), lengths, argumentTexts }
}

/** The JSON text of a call's plan marks (`stepId`, `attempt`, `loopId`, `confirmationId`), if any. */
function stampOf(call: ReadCall, i: number): string | undefined {
  const { stepId, attempt, loopId, confirmationId } = call
  if (stepId === undefined && attempt === undefined && loopId === undefined && confirmationId === undefined) return undefined
  for (const [key, value] of [['stepId', stepId], ['loopId', loopId], ['confirmationId', confirmationId]] as const) {
    if (value !== undefined && typeof value !== 'string') {
      throw new TypeError(`dispatch: calls[${i}].${key} must be a string, got ${describe(value)}`)
    }
  }
  if (attempt !== undefined && !(Number.isInteger(attempt) && attempt >= 1 && attempt <= 0xffffffff)) {
    throw new TypeError(`dispatch: calls[${i}].attempt must be a whole number of at least 1, got ${describe(attempt)}`)
  }
  return JSON.stringify({ stepId, attempt, loopId, confirmationId })
}
