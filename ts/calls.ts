// The calls `dispatch` takes: `{ id, name, arguments }` (an AssembledToolCall is one), or a tool
// call as a provider's SDK hands it over, read as that provider means it. Nothing of a call is
// dropped silently: arguments under a key dispatch does not read are a TypeError naming the key.

import { describe, ownOptions } from './common.js'

/**
 * A call as dispatch reads it: `{ id, name, arguments }`, not yet checked (dispatch checks the id
 * and name), and whatever other keys the call carries.
 */
export interface CallRead {
  [key: string]: unknown
  id?: unknown
  name?: unknown
  arguments?: unknown
}

/**
 * The keys that may hold a flat call's arguments: toolwire's own, Anthropic's tool_use block
 * `{ type: 'tool_use', id, name, input }`, Gemini's FunctionCall and LangChain's ToolCall
 * `{ id, name, args }`.
 */
export const ARGUMENT_KEYS: readonly string[] = ['arguments', 'input', 'args']

/** The keys of the nested shapes: OpenAI Chat's `function`, a Gemini part's `functionCall`. */
export const NESTED_KEYS = ['function', 'functionCall'] as const

/** One of {@link NESTED_KEYS}. */
type NestedKey = (typeof NESTED_KEYS)[number]

/** What each nested object may hold, its arguments under the last key. */
export const NESTED_FIELDS: Record<NestedKey, readonly string[]> = { function: ['name', 'arguments'], functionCall: ['id', 'name', 'args'] }

/**
 * Keys a call carries besides its arguments, in toolwire's shapes (AssembledToolCall, plan marks)
 * and the providers' (type, index, status, call_id, ...): a call without arguments holding any
 * other key is refused, since that key may be the arguments under a name not read (`params`).
 */
export const CALL_KEYS: ReadonlySet<string> = new Set([
  'id', 'name', 'complete', 'error', 'index', 'kind', 'providerMetadata', 'stepId', 'attempt', 'loopId', 'confirmationId',
  'type', 'status', 'call_id', 'thoughtSignature', 'cache_control', 'caller',
])

/**
 * The call `call` (at `calls[i]`) as dispatch reads it: `call` itself when it has the shape
 * `{ id, name, arguments? }`; else a new `{ id, name, arguments }` read from a provider's shape:
 * - Anthropic `{ type: 'tool_use', id, name, input }`;
 * - Gemini `{ id, name, args }` and a part `{ functionCall: { id, name, args } }` (an id is
 *   needed: Gemini often sends none, which StreamDecoder('gemini') generates);
 * - LangChain `{ id, name, args }`;
 * - OpenAI Chat `{ id, type: 'function', function: { name, arguments } }`;
 * - an OpenAI Responses item `{ type: 'function_call', id: 'fc_...', call_id, name, arguments }`,
 *   whose id is its `call_id` (what its output must name).
 * Throws a TypeError naming the key when the arguments are given twice, or not where any of these
 * shapes puts them. `toolCalls[i]`, when given, gets the call as the hooks are given it: `raw`
 * itself in the first shape, else the plain object read from the provider's.
 */
export function readCall(raw: unknown, i: number, toolCalls?: unknown[]): CallRead {
  if (!isObject(raw)) {
    throw new TypeError(`dispatch: calls[${i}] must be an object { id, name, arguments }, got ${describe(raw)}`)
  }
  // Its own keys only, each read once (a key inherited from a polluted Object.prototype, such as
  // `arguments` or `complete`, is not the call's: see ownOptions). The call read is such a
  // snapshot too, so what dispatch reads of it later is the call's own.
  const call = ownOptions(raw)
  const nested = NESTED_KEYS.filter((key) => call[key] !== undefined)
  if (nested.length > 0) {
    // A nested call is read whole from its nested object: a second one, or a flat name or
    // arguments beside it, would leave one copy unread (attack review r10 #4).
    const beside = [...nested.slice(1), ...['name', ...ARGUMENT_KEYS].filter((key) => call[key] !== undefined)]
    if (beside.length > 0) {
      throw new TypeError(`dispatch: calls[${i}] holds \`${nested[0]}\` and also \`${beside[0]}\`: give the call once, either as { id, name, arguments } or in one provider's shape`)
    }
    if (!isObject(call[nested[0]])) {
      throw new TypeError(`dispatch: calls[${i}].${nested[0]} must be an object, got ${describe(call[nested[0]])}`)
    }
    refuseUnread(call, i, nested[0])
    return shown(nested[0] === 'function' ? openAiCall(call, i) : geminiPart(call, i), i, toolCalls)
  }
  const given = ARGUMENT_KEYS.filter((key) => call[key] !== undefined)
  if (given.length > 1) {
    throw new TypeError(`dispatch: calls[${i}] holds arguments under both ${given.map((key) => `\`${key}\``).join(' and ')}: pass them once, as \`arguments\``)
  }
  if (given.length === 0) refuseUnread(call, i)
  const key = given.length === 0 ? 'arguments' : given[0]
  const responsesItem = call.type === 'function_call' && typeof call.call_id === 'string'
  if (key === 'arguments' && !responsesItem) {
    if (toolCalls !== undefined) toolCalls[i] = raw
    return call
  }
  const { [key]: args, ...rest } = call
  return shown({ ...rest, id: responsesItem ? call.call_id : call.id, arguments: args }, i, toolCalls)
}

/**
 * `read` (a call read from a provider's shape, a plain object) as dispatch reads it: its
 * snapshot (see ownOptions); `toolCalls[i]` (the hooks' `toolCall`) gets the plain object, as it
 * always did.
 */
function shown(read: CallRead, i: number, toolCalls: unknown[] | undefined): CallRead {
  if (toolCalls !== undefined) toolCalls[i] = read
  return ownOptions(read)
}

/** An OpenAI Chat tool call `{ id, type: 'function', function: { name, arguments } }`. */
function openAiCall(call: Record<string, unknown>, i: number): CallRead {
  refuseNestedUnread(call, i, 'function')
  // (an object: readCall checked it; its own keys, each read once)
  const { name, arguments: args } = ownOptions(call.function as Record<string, unknown>)
  if (typeof name !== 'string') throw new TypeError(`dispatch: calls[${i}].function.name must be a string, got ${describe(name)}`)
  return { id: call.id, name, arguments: args }
}

/**
 * A Gemini part `{ functionCall: { id, name, args } }`; Gemini's id is optional, dispatch's is
 * not (one given beside the functionCall, `{ id, functionCall }`, is taken).
 */
function geminiPart(call: Record<string, unknown>, i: number): CallRead {
  refuseNestedUnread(call, i, 'functionCall')
  // (an object: readCall checked it; its own keys, each read once)
  const { id: ownId, name, args } = ownOptions(call.functionCall as Record<string, unknown>)
  const id = ownId ?? call.id
  if (typeof id !== 'string') {
    throw new TypeError(
      `dispatch: calls[${i}].functionCall.id must be a string, got ${describe(id)}: Gemini often sends no id; decode the response with new StreamDecoder('gemini'), which generates them, or pass { id, name, arguments: part.functionCall.args }`,
    )
  }
  return { id, name, arguments: args }
}

/**
 * A nested call object holding a key its shape does not have (`function: { name, args }`,
 * `functionCall: { name, arguments }`): refused, naming it and the key that is read.
 */
function refuseNestedUnread(call: Record<string, unknown>, i: number, key: NestedKey): void {
  const fields = NESTED_FIELDS[key]
  const unread = Object.keys(call[key] as object).find((field) => !fields.includes(field))
  if (unread === undefined) return
  const shown = unread.length > 40 ? `${unread.slice(0, 40)}…` : unread
  throw new TypeError(
    `dispatch: calls[${i}].${key} holds ${JSON.stringify(shown)}, which this shape does not have: its arguments are \`${key}.${fields[fields.length - 1]}\``,
  )
}

/**
 * A call holding a key dispatch does not read (besides `nested`, its nested call): refused,
 * naming the key. A flat call is checked only when it has no arguments.
 */
function refuseUnread(call: Record<string, unknown>, i: number, nested?: NestedKey): void {
  const unread = Object.keys(call).find((key) => !CALL_KEYS.has(key) && key !== nested)
  if (unread === undefined) return
  const shown = unread.length > 40 ? `${unread.slice(0, 40)}…` : unread
  throw new TypeError(
    `dispatch: calls[${i}] has no \`arguments\` but holds ${JSON.stringify(shown)}, which dispatch does not read: pass the call's arguments as \`arguments\` (JSON text or an object; \`input\` and \`args\` are read too), or leave the key out`,
  )
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object'
}
