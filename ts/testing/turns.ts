// A scripted model's turns: what a test writes (text, thinking, calls, a stop, usage), checked and
// made ready for a wire's encoder, each misuse a ToolwireError naming the turn and the value.

import { ToolwireError, checkOptionKeys, describe, jsonText, ownOptions } from '../common.js'
import type { Wire } from '../types.js'

/** One tool call of a scripted turn. */
export interface ScriptedCall {
  /**
   * The call's id. Default: one in the wire's own style, numbered through the script (`call_1`,
   * `toolu_1`, Mistral's nine characters `call00001`); on Gemini none, as Gemini 2 sends none
   * (the decoder then makes one).
   */
  id?: string
  /** The tool's name. */
  name: string
  /**
   * The arguments: an object (sent as its JSON text) or the JSON text as the model writes it,
   * which may be invalid or cut off (on a wire that carries arguments as text: every stream but
   * Gemini's, and the whole responses of OpenAI Chat, Responses and Mistral). Default `{}`.
   */
  arguments?: object | string
}

/** A turn's thinking (reasoning) with the signature its provider sends with it. */
export interface ScriptedThinking {
  text: string
  /**
   * Anthropic's `signature` (default: a fixed one, as Anthropic signs every thinking block),
   * the Responses reasoning item's `encrypted_content`, Gemini's `thoughtSignature` (on the
   * first call's part when the turn has calls, as Gemini sends it, else on the thought part).
   * OpenAI Chat's `reasoning_content` has none.
   */
  signature?: string
}

/** What one model call answers. */
export interface ScriptedTurn {
  /** The answer's text. */
  text?: string
  /**
   * Thinking before the answer, in the wire's own form: an Anthropic `thinking` block, a
   * Responses `reasoning` item's summary, Gemini `thought` parts, OpenAI Chat's
   * `reasoning_content` (as DeepSeek, vLLM and xAI send it). Mistral has none toolwire reads.
   */
  thinking?: string | ScriptedThinking
  /** The calls, in order (parallel calls of one turn). */
  calls?: ScriptedCall[]
  /**
   * `'length'`: the turn was cut at the token limit, with the wire's own stop reason
   * (`length`, `max_tokens`, `MAX_TOKENS`, Responses `incomplete`); the last call is left open
   * where the wire streams calls in fragments. Default: the wire's stop for a turn with or
   * without calls.
   */
  stop?: 'stop' | 'length'
  /** The tokens reported. Default `{ inputTokens: 10, outputTokens: 5 }`. */
  usage?: { inputTokens?: number; outputTokens?: number }
}

/** A call as the encoders write it. */
export interface PlannedCall {
  /** The id sent; undefined for none (Gemini's default). */
  id: string | undefined
  name: string
  /** The arguments' JSON text as written. */
  text: string
  /** The arguments as one JSON object, when `text` is one (wires that carry objects need it). */
  value: object | undefined
}

/** A turn as the encoders write it: every default filled in. */
export interface PlannedTurn {
  /** Its place in the script (0 for the first turn). */
  number: number
  text: string
  thinking: { text: string; signature: string | undefined } | undefined
  calls: PlannedCall[]
  /** Cut at the token limit. */
  length: boolean
  inputTokens: number
  outputTokens: number
}

/** The keys of a scripted turn, a call and usage. */
const TURN_KEYS = ['text', 'thinking', 'calls', 'stop', 'usage']
const CALL_KEYS = ['id', 'name', 'arguments']
const THINKING_KEYS = ['text', 'signature']
const USAGE_KEYS = ['inputTokens', 'outputTokens']

/** Wires whose arguments are a JSON object in every form (Gemini's `functionCall.args`). */
const OBJECT_ARGUMENTS: ReadonlySet<Wire> = new Set(['gemini'])

/** The default id of the `count`-th call of a script (1 for the first) on `wire`. */
function defaultId(wire: Wire, count: number): string | undefined {
  switch (wire) {
    case 'anthropic':
      return `toolu_${count}`
    case 'mistral':
      // Mistral's ids are nine letters and digits.
      return `call${String(count).padStart(5, '0')}`
    case 'gemini':
      return undefined
    default:
      return `call_${count}`
  }
}

/** Throws a VALIDATION_ERROR at `where`. */
function refuse(where: string, message: string): never {
  throw new ToolwireError('VALIDATION_ERROR', `${where}: ${message}`)
}

/** A whole number of at least 0 at `where`, or the default. */
function tokens(where: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) refuse(where, `must be a whole number of at least 0, got ${describe(value)}`)
  return value
}

/** The call `raw` at `where` checked for `wire`, its id `id()` when it gives none. */
function planCall(where: string, wire: Wire, raw: unknown, id: () => string | undefined, whole: boolean): PlannedCall {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) refuse(where, `must be an object { id?, name, arguments? }, got ${describe(raw)}`)
  const call = ownOptions(raw as ScriptedCall)
  checkOptionKeys(where, call, CALL_KEYS)
  if (typeof call.name !== 'string' || call.name === '') refuse(`${where}.name`, `must be a non-empty string, got ${describe(call.name)}`)
  if (call.id !== undefined && (typeof call.id !== 'string' || call.id === '')) refuse(`${where}.id`, `must be a non-empty string, got ${describe(call.id)}`)
  const given: unknown = call.arguments ?? {}
  let text: string
  if (typeof given === 'string') text = given
  else if (typeof given === 'object' && given !== null && !Array.isArray(given)) text = jsonText(`${where}.arguments`, given)
  else refuse(`${where}.arguments`, `must be an object or JSON text, got ${describe(given)}`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    value = undefined
  }
  const object = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined
  if (object === undefined && (OBJECT_ARGUMENTS.has(wire) || (whole && wire === 'anthropic'))) {
    const form = wire === 'gemini' ? 'gemini sends arguments as a JSON object (functionCall.args)' : "anthropic's whole response holds arguments as a JSON object (tool_use.input)"
    refuse(`${where}.arguments`, `${form}, so it cannot carry the text ${JSON.stringify(text.slice(0, 100))}: give an object, or JSON text of one`)
  }
  return { id: call.id ?? id(), name: call.name, text, value: object }
}

/** The thinking `raw` of `where` checked for `wire`. */
function planThinking(where: string, wire: Wire, raw: unknown): PlannedTurn['thinking'] {
  if (raw === undefined) return undefined
  let text: unknown = raw
  let signature: unknown
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const thinking = ownOptions(raw as ScriptedThinking)
    checkOptionKeys(where, thinking, THINKING_KEYS)
    ;({ text, signature } = thinking)
  }
  if (typeof text !== 'string') refuse(where, `must be a string or { text, signature? }, got ${describe(raw)}`)
  if (signature !== undefined && typeof signature !== 'string') refuse(`${where}.signature`, `must be a string, got ${describe(signature)}`)
  if (wire === 'mistral') refuse(where, 'the mistral wire has no thinking toolwire reads (Magistral sends it as content chunks): leave it out')
  if (wire === 'openai-chat' && signature !== undefined) refuse(`${where}.signature`, "openai-chat's reasoning_content has no signature: leave it out")
  return { text, signature }
}

/**
 * `turns` checked for `wire` and made ready for its encoders, in `where`'s words; `whole` when
 * they are answered as whole responses (where Anthropic needs arguments as objects). Throws a
 * ToolwireError VALIDATION_ERROR naming the turn, the key and the value at fault.
 */
export function planTurns(where: string, wire: Wire, turns: unknown, whole: boolean): PlannedTurn[] {
  if (!Array.isArray(turns)) refuse(where, `turns must be an array of turns, got ${describe(turns)}`)
  // Default ids are numbered through the script (the n-th call's `call_<n>`), each skipping every
  // id taken: given to a call anywhere in the script, or given by default before.
  // (each turn and call read once, as a snapshot: the ids taken are the ids then planned)
  const snapshots = turns.map(snapshotTurn)
  const taken = givenIds(snapshots)
  let count = 0
  /** the default id of the `place`-th call of the script: its number's, or the next free one */
  const defaultFor = (place: number): string | undefined => {
    for (let n = place; ; n++) {
      const id = defaultId(wire, n)
      if (id === undefined || !taken.has(id)) {
        if (id !== undefined) taken.add(id)
        return id
      }
    }
  }
  return snapshots.map((raw: unknown, number) => {
    const at = `${where}: turns[${number}]`
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) refuse(at, `must be an object { text?, thinking?, calls?, stop?, usage? }, got ${describe(raw)}`)
    const turn = ownOptions(raw as ScriptedTurn)
    checkOptionKeys(at, turn, TURN_KEYS)
    if (turn.text !== undefined && typeof turn.text !== 'string') refuse(`${at}.text`, `must be a string, got ${describe(turn.text)}`)
    if (turn.stop !== undefined && turn.stop !== 'stop' && turn.stop !== 'length') refuse(`${at}.stop`, `must be 'stop' or 'length', got ${describe(turn.stop)}`)
    const calls: unknown = turn.calls ?? []
    if (!Array.isArray(calls)) refuse(`${at}.calls`, `must be an array of calls, got ${describe(calls)}`)
    let usage: { inputTokens?: unknown; outputTokens?: unknown } = {}
    if (turn.usage !== undefined) {
      if (turn.usage === null || typeof turn.usage !== 'object') refuse(`${at}.usage`, `must be an object { inputTokens?, outputTokens? }, got ${describe(turn.usage)}`)
      usage = ownOptions(turn.usage)
      checkOptionKeys(`${at}.usage`, usage, USAGE_KEYS)
    }
    return {
      number,
      text: turn.text ?? '',
      thinking: planThinking(`${at}.thinking`, wire, turn.thinking),
      calls: checkTurnIds(at, calls.map((call: unknown, index) => planCall(`${at}.calls[${index}]`, wire, call, defaultFor.bind(undefined, ++count), whole))),
      length: turn.stop === 'length',
      inputTokens: tokens(`${at}.usage.inputTokens`, usage.inputTokens, 10),
      outputTokens: tokens(`${at}.usage.outputTokens`, usage.outputTokens, 5),
    }
  })
}

/** Whether `value` is an object that is no array. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** Turn `raw` as a snapshot (see ownOptions), its calls too; anything else as it is, refused when planned. */
function snapshotTurn(raw: unknown): unknown {
  if (!isRecord(raw)) return raw
  const turn = ownOptions(raw)
  if (Array.isArray(turn.calls)) turn.calls = Array.from(turn.calls as unknown[], (call) => (isRecord(call) ? ownOptions(call) : call))
  return turn
}

/** The ids the calls of `turns` (snapshots) give themselves (each a non-empty string; anything else is refused when its call is checked). */
function givenIds(turns: unknown[]): Set<string> {
  const ids = new Set<string>()
  for (const turn of turns) {
    const calls = isRecord(turn) ? turn.calls : undefined
    if (!Array.isArray(calls)) continue
    for (const call of calls as unknown[]) {
      const id = isRecord(call) ? call.id : undefined
      if (typeof id === 'string' && id !== '') ids.add(id)
    }
  }
  return ids
}

/**
 * `calls`, the calls of turn `at`, when no two share an id: two calls of one turn given one id
 * are refused, naming both (a decoder takes them for one call, or a run refuses the second as a
 * repeated id: a test of that sends such a body itself, or through faultyStream's `duplicate`).
 */
function checkTurnIds(at: string, calls: PlannedCall[]): PlannedCall[] {
  const first = new Map<string, number>()
  calls.forEach((call, index) => {
    if (call.id === undefined) return
    const earlier = first.get(call.id)
    if (earlier !== undefined) refuse(`${at}.calls[${index}].id`, `${JSON.stringify(call.id)} is already the id of ${at.slice(at.indexOf('turns['))}.calls[${earlier}]: no two calls of a turn share an id`)
    first.set(call.id, index)
  })
  return calls
}

/**
 * The most pieces one text (a text, a thinking, a call's arguments) is streamed in: a longer text
 * streams in longer pieces, so its body stays near the text's size (a 5 MB text in 6-character
 * deltas would be a body 40 times that, and near a million events).
 */
export const MOST_PIECES = 1000

/** Whether the UTF-16 unit at `i` of `text` starts a surrogate pair (the pair is one code point). */
function pairAt(text: string, i: number): boolean {
  const unit = text.charCodeAt(i)
  if (unit < 0xd800 || unit > 0xdbff) return false
  const next = text.charCodeAt(i + 1)
  return next >= 0xdc00 && next <= 0xdfff
}

/**
 * `text` in the pieces a provider streams it in: runs of `size` characters (code points, so a
 * surrogate pair is never split; the last run may be shorter), at least one piece (`''` for an
 * empty text). A text of more than {@link MOST_PIECES} times `size` code points is cut in
 * MOST_PIECES runs (the last shorter), each as long as it takes.
 */
export function pieces(text: string, size: number): string[] {
  if (text === '') return ['']
  let points = 0
  for (let i = 0; i < text.length; i += pairAt(text, i) ? 2 : 1) points++
  const run = Math.max(size, Math.ceil(points / MOST_PIECES))
  const out: string[] = []
  let start = 0
  let count = 0
  for (let i = 0; i < text.length; ) {
    i += pairAt(text, i) ? 2 : 1
    if (++count === run) {
      out.push(text.slice(start, i))
      start = i
      count = 0
    }
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}
