// History for each wire: the assistant message that carried the calls, the tool-result messages,
// tool-call ids and history repair. The encoding runs in Rust; values cross as JSON text.

import {
  encodeResults as nativeEncodeResults,
  encodeToolCalls as nativeEncodeToolCalls,
  normalizeToolCallId as nativeNormalizeToolCallId,
  repairHistory as nativeRepairHistory,
} from '../native.js'
import { checkWire, native, describe, jsonText, own } from './common.js'
import { ENCODED_RESULT_KEYS } from './protocol.generated.js'
import type { HistoryCall, HistoryRepairReport, HistoryTurn, ToolResult, ToolResultMessage, Wire } from './types.js'

/** What may carry a `toJSON` (read as JSON.stringify reads it: any property, inherited or own). */
type MaybeToJSON = { toJSON?: unknown }

/** The tool-result messages `wire` expects for these results (ToolResults or ToolResultMessages). */
export function encodeResults(results: (ToolResult | ToolResultMessage)[], wire: Wire): object[] {
  checkWire('encodeResults', wire)
  if (!Array.isArray(results)) throw new TypeError(`encodeResults: results must be an array, got ${describe(results)}`)
  const parts = typeof (results as MaybeToJSON).toJSON === 'function' ? results : results.map(encodedPart)
  return JSON.parse(native(() => nativeEncodeResults(jsonText('encodeResults: results', parts), wire))) as object[]
}

/** The keys of a result the engine's encoding reads (RESULT_KEYS beside parse_results in the core). */
const ENCODED_KEYS: ReadonlySet<string> = new Set(ENCODED_RESULT_KEYS)

/**
 * What of `result` crosses for encoding: of a plain object, the keys the engine reads, as JSON
 * carries them (own enumerable keys, values untouched); the rest (arguments, details, timestamps)
 * never reaches a wire, so it is not serialized. Anything else (not an object, an array, a class
 * instance, an object with `toJSON`, a getter that throws) crosses whole, so the engine reads and
 * names it exactly as it always did.
 */
function encodedPart(result: unknown): unknown {
  if (result === null || typeof result !== 'object') return result
  const proto: unknown = Object.getPrototypeOf(result)
  if ((proto !== Object.prototype && proto !== null) || typeof (result as MaybeToJSON).toJSON === 'function') return result
  try {
    const part: Record<string, unknown> = {}
    for (const key of Object.keys(result)) {
      if (ENCODED_KEYS.has(key)) part[key] = (result as Record<string, unknown>)[key]
    }
    return part
  } catch {
    return result
  }
}

/** Checks what the engine needs of each call (its own keys, as the engine reads its JSON); the arguments go as they are (text or a value). */
function checkCalls(calls: readonly unknown[]): void {
  calls.forEach((call, i) => {
    if (call === null || typeof call !== 'object') {
      throw new TypeError(`encodeToolCalls: calls[${i}] must be an object { id, name, arguments }, got ${describe(call)}`)
    }
    const id = own(call, 'id')
    const name = own(call, 'name')
    if (typeof id !== 'string') throw new TypeError(`encodeToolCalls: calls[${i}].id must be a string, got ${describe(id)}`)
    if (typeof name !== 'string') throw new TypeError(`encodeToolCalls: calls[${i}].name must be a string, got ${describe(name)}`)
  })
}

/**
 * The assistant message (for Responses: the items) that carried the calls, for history. `turn` is
 * an array of calls, or an AssembledTurn, whose text and thinking blocks are kept too.
 */
export function encodeToolCalls(turn: HistoryCall[] | HistoryTurn, wire: Wire): object[] {
  checkWire('encodeToolCalls', wire)
  let shaped: HistoryTurn
  if (Array.isArray(turn)) {
    checkCalls(turn)
    shaped = { toolCalls: turn }
  } else if (turn !== null && typeof turn === 'object' && Array.isArray(own(turn, 'toolCalls'))) {
    checkCalls(own(turn, 'toolCalls') as unknown[])
    shaped = turn
  } else {
    throw new TypeError(`encodeToolCalls: expected an array of calls or a turn { text?, thinking?, toolCalls }, got ${describe(turn)}`)
  }
  return JSON.parse(native(() => nativeEncodeToolCalls(jsonText('encodeToolCalls: turn', shaped), wire))) as object[]
}

/** An id valid for `target` (a wire, `'strict'` or `'strict9'`); valid ids are kept unchanged. */
export function normalizeToolCallId(id: string, target: Wire | 'strict' | 'strict9'): string {
  if (typeof id !== 'string') throw new TypeError(`normalizeToolCallId: id must be a string, got ${describe(id)}`)
  if (typeof target !== 'string') throw new TypeError(`normalizeToolCallId: target must be a string, got ${describe(target)}`)
  return native(() => nativeNormalizeToolCallId(id, target)) as string
}

/**
 * Repairs a history in the wire's own message format: ids made valid and unique (consistently in
 * calls and results), a synthetic error result for each call without one, results without a call
 * removed. Pure: returns `{ messages, report: { renamed, synthesized, removed } }`.
 */
export function repairHistory(messages: object[], wire: Wire): { messages: object[]; report: HistoryRepairReport } {
  checkWire('repairHistory', wire)
  if (!Array.isArray(messages)) throw new TypeError(`repairHistory: messages must be an array, got ${describe(messages)}`)
  return JSON.parse(native(() => nativeRepairHistory(jsonText('repairHistory: messages', messages), wire))) as { messages: object[]; report: HistoryRepairReport }
}
