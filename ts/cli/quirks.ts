// The provider quirks `replay` names: the repairs the decoder reports having made (`turn.repairs`,
// each of a `RepairKind` generated from the engine, which alone knows each wire), what the
// framing of the body shows, and what the decoder's errors and refused calls mean, each with a
// readable name. Nothing here reads a provider's fields. Severity: `info` (harmless, handled),
// `warning` (handled, breaks naive clients or needs care when sending results back), `error` (a
// call or the turn is broken).

import { paddedBeforeBrace } from './frames.js'
import type { BodyFormat, FramedEvent } from './frames.js'
import { DecodeErrorKind, RepairKind } from '../protocol.generated.js'
import type { AssembledTurn, DecodeErrorKindName, DecoderRepair, RepairKindName, Wire } from '../types.js'

/** How bad a quirk is: harmless and handled, handled but needing care, or a broken call or turn. */
export type QuirkSeverity = 'info' | 'warning' | 'error'

/** A quirk `replay` names: a stable id, its severity, a readable title and what was seen. */
export interface Quirk {
  id: string
  severity: QuirkSeverity
  title: string
  detail: string
}

/** A decoder error as `replay` names it. */
export interface DescribedError {
  kind: string
  title: string
  message: string
}

/**
 * A title for each kind of decoder error (`DecodeErrorKind`, generated from the engine): the
 * decoder reports each error's kind as data next to its message, so nothing here reads prose.
 */
export const ERROR_TITLES: Readonly<Record<DecodeErrorKindName, string>> = {
  [DecodeErrorKind.NOT_THE_WIRE]: 'the body is not a response of this wire (an HTML page, plain text, another API)',
  [DecodeErrorKind.TOOL_CALLS_LOST]: 'the stop reason says tool calls, but none arrived',
  [DecodeErrorKind.SPLICED_STREAM]: 'two generations spliced into one stream',
  [DecodeErrorKind.STREAM_TRUNCATED]: 'stream ended before its terminal event',
  [DecodeErrorKind.PROVIDER_ERROR]: 'the provider reported an error mid-stream',
  [DecodeErrorKind.CONTENT_FILTER]: "stopped by the provider's content filter",
  [DecodeErrorKind.RESPONSE_FAILED]: 'the response failed',
  [DecodeErrorKind.PROMPT_BLOCKED]: 'the prompt was blocked',
  [DecodeErrorKind.ABNORMAL_FINISH]: 'the model stopped abnormally',
  [DecodeErrorKind.FRAGMENT_AFTER_FINISH]: 'a tool call fragment after its call or the turn finished',
  [DecodeErrorKind.SEVERAL_RESPONSES]: 'a second response in the same body',
  [DecodeErrorKind.SEVERAL_CHOICES]: 'more than one choice in the response; only the first was read',
  [DecodeErrorKind.ARGUMENTS_FOR_UNKNOWN_ITEM]: 'arguments for an output item (or block) never announced',
  [DecodeErrorKind.MISSING_BLOCK_INDEX]: 'a block event without `index` that could belong to several open blocks, or none',
  [DecodeErrorKind.BLOCK_INDEX_REUSED]: 'another block or call began at the index of one still open',
  [DecodeErrorKind.NAMELESS_FUNCTION_CALL]: 'a functionCall part without a name',
  [DecodeErrorKind.BAD_PARTIAL_ARGUMENTS]: 'streamed partial arguments that contradict each other',
  [DecodeErrorKind.OVERSIZED_EVENT]: 'an event too large, dropped',
  [DecodeErrorKind.UNREADABLE_EVENT]: 'an event that is not valid JSON or has the wrong shape',
  [DecodeErrorKind.INPUT_AFTER_FINISH]: 'input after the end of the response',
}

/** The kinds of decoder error `replay` lists among a response's quirks, each with its severity. */
const QUIRK_SEVERITY: Readonly<Partial<Record<DecodeErrorKindName, QuirkSeverity>>> = {
  [DecodeErrorKind.SPLICED_STREAM]: 'error',
  [DecodeErrorKind.PROVIDER_ERROR]: 'error',
  [DecodeErrorKind.STREAM_TRUNCATED]: 'error',
  [DecodeErrorKind.SEVERAL_RESPONSES]: 'warning',
  [DecodeErrorKind.FRAGMENT_AFTER_FINISH]: 'warning',
  [DecodeErrorKind.NAMELESS_FUNCTION_CALL]: 'error',
  [DecodeErrorKind.OVERSIZED_EVENT]: 'error',
  [DecodeErrorKind.CONTENT_FILTER]: 'error',
  [DecodeErrorKind.MISSING_BLOCK_INDEX]: 'error',
  [DecodeErrorKind.BLOCK_INDEX_REUSED]: 'error',
}

/** A decoder error as `replay` names it: `{ kind, title, message }`, named by its kind alone. */
export function describeError(kind: string | undefined, message: string): DescribedError {
  const title = isKind(kind) ? ERROR_TITLES[kind] : 'decoder error'
  return { kind: typeof kind === 'string' ? kind : 'decoder-error', title, message }
}

/** A turn's errors as `replay` names them, each by the kind the decoder gave it. */
export function turnErrors(turn: { errors: readonly string[]; errorKinds?: readonly string[] }): DescribedError[] {
  return turn.errors.map((message, i) => describeError(turn.errorKinds?.[i], message))
}

/** Whether `kind` is a kind of decoder error the engine declares (each has a title). */
function isKind(kind: unknown): kind is DecodeErrorKindName {
  return typeof kind === 'string' && Object.hasOwn(ERROR_TITLES, kind)
}

/** What `replay` is told of the repairs of one kind: how many calls, their names, the decoder's details. */
interface Seen {
  count: number
  names: string[]
  details: string[]
}

/** How `replay` presents a repair: its severity, a title, and what it means (given what was seen). */
interface RepairView {
  severity: QuirkSeverity | ((wire: Wire, turn: AssembledTurn, repairs: DecoderRepair[]) => QuirkSeverity)
  title: string
  detail: (seen: Seen) => string
}

/** `"a", "b": text`, or the text alone when no call is named. */
function named(seen: Seen, text: string): string {
  return seen.names.length > 0 ? `${seen.names.join(', ')}: ${text}` : text
}

/** The decoder's details, then `text`. */
function told(seen: Seen, text: string): string {
  return seen.details.length > 0 ? `${seen.details.join('; ')}: ${text}` : text
}

/**
 * How `replay` presents each repair the decoder reports (`RepairKind`, generated from the
 * engine): every kind has an entry.
 */
export const REPAIR_VIEWS: Readonly<Record<RepairKindName, RepairView>> = {
  [RepairKind.WHOLE_RESPONSE]: {
    severity: 'info',
    title: 'a whole (non-streamed) response',
    detail: () => 'the server answered one JSON response, not a stream (it ignored `stream: true`); decoded as its stream would be',
  },
  [RepairKind.FILTER_ONLY_CHUNK]: {
    severity: 'warning',
    title: 'chunk with no choices, only content-filter results',
    detail: () => 'Azure sends `choices: []` with `prompt_filter_results`, or a choice with content-filter data and no `delta`; code reading choices[0] crashes',
  },
  [RepairKind.TRAILING_EMPTY_FRAGMENT]: {
    severity: 'info',
    title: 'empty tool call fragment after the call ended',
    detail: () => 'a no-op, not a new call',
  },
  [RepairKind.MISSING_INDEX]: {
    severity: 'warning',
    title: 'tool call without `index`',
    detail: () => "Mistral, old Ollama and Gemini's OpenAI endpoint omit it (calls are keyed by position instead); Anthropic block events without one go to the one block they can belong to",
  },
  [RepairKind.EMPTY_STRING_FIELDS]: {
    severity: 'warning',
    title: 'empty-string `id` or `name` in a fragment',
    detail: () => 'treated as absent (Qwen/DashScope, GLM); naive clients overwrite the real value',
  },
  [RepairKind.INDEX_OFFSET]: {
    severity: 'warning',
    title: 'tool call index is not the call\'s position',
    detail: (seen) => told(seen, "array-by-index clients leave a hole (Anthropic's OpenAI-compatible endpoint starts at 1)"),
  },
  [RepairKind.INDEX_REUSED]: {
    severity: 'warning',
    title: 'parallel calls share one index',
    detail: (seen) => told(seen, 'a new call on the index of a finished one is a call of its own (Ollama 0.20); keying by index alone merges them'),
  },
  [RepairKind.UNSTABLE_ID]: {
    severity: 'warning',
    title: 'call id changes between fragments of one call',
    detail: (seen) => told(seen, 'kept as one call (Poolside, LM Studio)'),
  },
  [RepairKind.NAME_REPEATED]: {
    severity: 'warning',
    title: 'tool name repeated in every fragment',
    detail: (seen) => named(seen, 'not doubled (MiniMax via NVIDIA NIM)'),
  },
  [RepairKind.NAME_SPLIT]: {
    severity: 'warning',
    title: 'tool name split across fragments',
    detail: (seen) => seen.details.join('; '),
  },
  [RepairKind.NAME_AFTER_ARGUMENTS]: {
    severity: 'warning',
    title: 'tool name fragment after the arguments began',
    detail: (seen) => told(seen, 'the call was already announced with its name'),
  },
  [RepairKind.ARGUMENTS_RESENT]: {
    severity: 'warning',
    title: 'full arguments re-sent after the deltas',
    detail: () => 'not duplicated',
  },
  [RepairKind.CUMULATIVE_ARGUMENTS]: {
    severity: 'warning',
    title: 'each fragment resends the arguments so far',
    detail: () => 'cumulative resend (DeepSeek, Qianfan): replaced, not appended',
  },
  [RepairKind.ITEM_ID_ROTATION]: {
    severity: 'warning',
    title: 'item_id changes from event to event',
    detail: () => 'correlated by output_index instead (GitHub Copilot); code keyed by item_id loses deltas',
  },
  [RepairKind.NO_ARGUMENT_DELTAS]: {
    severity: 'info',
    title: 'no argument deltas',
    detail: (seen) => named(seen, 'arguments taken from the .done events (LM Studio)'),
  },
  [RepairKind.ARGUMENTS_CORRECTED]: {
    severity: 'warning',
    title: 'final arguments contradict the streamed deltas',
    detail: (seen) => named(seen, 'the .done text was kept; previews built from the deltas were wrong'),
  },
  [RepairKind.DUPLICATE_MESSAGE_START]: {
    severity: 'warning',
    title: 'message_start sent twice',
    detail: (seen) => told(seen, 'the duplicate was ignored'),
  },
  [RepairKind.TOOL_USE_IN_MESSAGE_START]: {
    severity: 'info',
    title: 'tool_use inside message_start',
    detail: () => 'a whole call with no block events (programmatic tool calling)',
  },
  [RepairKind.EMPTY_TOOL_INPUT]: {
    severity: 'info',
    title: 'tool input streamed as only `""`',
    detail: (seen) => named(seen, 'treated as {} (JSON.parse("") throws)'),
  },
  [RepairKind.WHOLE_INPUT_IN_BLOCK_START]: {
    severity: 'info',
    title: 'input whole in content_block_start',
    detail: (seen) => named(seen, 'no input_json_delta'),
  },
  [RepairKind.BLOCK_NOT_CLOSED]: {
    // Ended by the message's end, a call is whole; cut off, it is broken.
    severity: (_wire, turn, repairs) => (repairs.some((r) => r.callIndex === undefined || !turn.toolCalls[r.callIndex]?.complete) ? 'error' : 'warning'),
    title: 'tool_use block never closed',
    detail: (seen) => named(seen, "no content_block_stop: the message's end ended it, or cut it off (max_tokens, an error, the stream's end)"),
  },
  [RepairKind.PARTIAL_ARGS_STREAMING]: {
    severity: 'info',
    title: 'arguments streamed as partialArgs',
    detail: () => 'nameless continuation parts are not calls (Gemini 3 streamFunctionCallArguments)',
  },
  [RepairKind.MISSING_TERMINAL_FUNCTION_CALL]: {
    severity: 'warning',
    title: 'streamed call never closed by an empty functionCall',
    detail: (seen) => named(seen, 'ended by what followed it'),
  },
  [RepairKind.MISSING_ID]: {
    // Gemini pairs a result with its call by name as well; the other wires only by the id.
    severity: (wire) => (wire === 'gemini' ? 'info' : 'warning'),
    title: 'tool call without an id',
    detail: (seen) => `${seen.count} call(s); an id was generated (the result must reference it)`,
  },
  [RepairKind.DUPLICATE_CALL_ID]: {
    severity: 'warning',
    title: 'two calls with one id',
    detail: (seen) => told(seen, 'the later call got a generated id'),
  },
  [RepairKind.REPEATED_START]: {
    severity: 'warning',
    title: 'a call or block announced twice',
    detail: (seen) => named(seen, 'the repeated start was ignored: one call, not two (a second would run with arguments it never received)'),
  },
  [RepairKind.REPEATED_EVENT]: {
    severity: 'warning',
    title: 'an event sent twice',
    detail: (seen) => told(seen, 'its sequence_number was already seen: the repeat was ignored (text and arguments not doubled)'),
  },
  [RepairKind.FINISH_STOP_WITH_CALLS]: {
    severity: 'warning',
    title: 'finish_reason "stop" although tool calls were sent',
    detail: () => 'OpenAI with a named tool_choice and several servers; gate on complete calls, not finish_reason',
  },
}

/**
 * The order `replay` prints quirks in, whatever the order they were met: what the body is, then
 * the repairs and errors of each wire, then what the turn shows. Others follow, as found.
 */
const ORDER: readonly string[] = [
  'unreadable-event',
  'sse-data-before-event',
  'json-array-stream',
  RepairKind.WHOLE_RESPONSE,
  RepairKind.FILTER_ONLY_CHUNK,
  RepairKind.REPEATED_EVENT,
  RepairKind.TRAILING_EMPTY_FRAGMENT,
  DecodeErrorKind.FRAGMENT_AFTER_FINISH,
  RepairKind.MISSING_INDEX,
  DecodeErrorKind.MISSING_BLOCK_INDEX,
  RepairKind.EMPTY_STRING_FIELDS,
  RepairKind.INDEX_OFFSET,
  RepairKind.INDEX_REUSED,
  DecodeErrorKind.BLOCK_INDEX_REUSED,
  RepairKind.REPEATED_START,
  RepairKind.UNSTABLE_ID,
  RepairKind.NAME_REPEATED,
  RepairKind.NAME_SPLIT,
  RepairKind.NAME_AFTER_ARGUMENTS,
  RepairKind.ARGUMENTS_RESENT,
  RepairKind.CUMULATIVE_ARGUMENTS,
  RepairKind.ITEM_ID_ROTATION,
  RepairKind.NO_ARGUMENT_DELTAS,
  RepairKind.ARGUMENTS_CORRECTED,
  RepairKind.DUPLICATE_MESSAGE_START,
  DecodeErrorKind.SPLICED_STREAM,
  RepairKind.TOOL_USE_IN_MESSAGE_START,
  DecodeErrorKind.PROVIDER_ERROR,
  'json-padding',
  RepairKind.EMPTY_TOOL_INPUT,
  RepairKind.WHOLE_INPUT_IN_BLOCK_START,
  RepairKind.BLOCK_NOT_CLOSED,
  RepairKind.PARTIAL_ARGS_STREAMING,
  RepairKind.MISSING_TERMINAL_FUNCTION_CALL,
  'thought-signature-first-only',
  RepairKind.MISSING_ID,
  RepairKind.DUPLICATE_CALL_ID,
  RepairKind.FINISH_STOP_WITH_CALLS,
  'no-done-sentinel',
  'cut-off-arguments',
  'invalid-json-arguments',
  'output-limit-cut',
]

class Quirks {
  list: Quirk[]
  seen: Set<string>

  constructor() {
    this.list = []
    this.seen = new Set()
  }

  add(id: string, severity: QuirkSeverity, title: string, detail?: string): void {
    if (this.seen.has(id)) {
      const existing = this.list.find((q) => q.id === id)
      if (existing && detail && !existing.detail.includes(detail) && existing.detail.length < 400) existing.detail += `; ${detail}`
      return
    }
    this.seen.add(id)
    this.list.push({ id, severity, title, detail: detail ?? '' })
  }

  /** The quirks in the order `replay` prints them ({@link ORDER}). */
  ordered(): Quirk[] {
    const rank = (q: Quirk) => {
      const at = ORDER.indexOf(q.id)
      return at === -1 ? ORDER.length : at
    }
    return this.list.map((q, i) => ({ q, i })).sort((a, b) => rank(a.q) - rank(b.q) || a.i - b.i).map(({ q }) => q)
  }
}

/**
 * The quirks of one response: what its framing shows, the repairs the decoder reports, then
 * what the decoded turn shows. `wire` only chooses how a quirk is presented.
 */
export function findQuirks(wire: Wire, format: BodyFormat, events: FramedEvent[], turn: AssembledTurn): Quirk[] {
  const q = new Quirks()
  framing(q, wire, format, events, turn)
  repairs(q, wire, turn)
  fromTurn(q, turn)
  return q.ordered()
}

/** What the body's framing shows (no provider field is read): unreadable events, SSE field order, the body's shape, padding. */
function framing(q: Quirks, wire: Wire, format: BodyFormat, events: FramedEvent[], turn: AssembledTurn): void {
  if (events.some((e) => e.data === null && !e.done && e.raw.trim() !== '')) {
    const count = events.filter((e) => e.data === null && !e.done).length
    q.add('unreadable-event', 'error', 'events that are not valid JSON', `${count} event(s) could not be parsed; the decoder skipped them`)
  }
  if (events.some((e) => e.dataBeforeEvent)) {
    q.add('sse-data-before-event', 'info', 'SSE `data:` line before `event:`', 'field order inside an SSE block is not fixed (seen from AWS Bedrock "mantle")')
  }
  if (format === 'json-array') {
    q.add('json-array-stream', 'info', 'JSON array stream instead of SSE', 'Gemini without ?alt=sse streams one JSON array')
  }
  if (events.some((e) => paddedBeforeBrace(e.raw))) {
    q.add('json-padding', 'info', 'JSON padded with blanks before its final brace', 'harmless for a JSON parser')
  }
  // The Chat Completions servers end an SSE stream with `data: [DONE]`; the turn ended at its stop reason.
  const chat = wire === 'openai-chat' || wire === 'mistral'
  if (chat && format === 'sse' && turn.rawStopReason !== null && events.length > 0 && !events.some((e) => e.done)) {
    q.add('no-done-sentinel', 'info', 'no `data: [DONE]` at the end', 'most OpenAI-compatible servers send it; the finish_reason chunk ended the turn')
  }
}

/** The repairs the decoder reports, one quirk per kind (its calls named in the detail). */
function repairs(q: Quirks, wire: Wire, turn: AssembledTurn): void {
  const byKind = new Map<RepairKindName, DecoderRepair[]>()
  for (const repair of turn.repairs) {
    const list = byKind.get(repair.kind)
    if (list) list.push(repair)
    else byKind.set(repair.kind, [repair])
  }
  for (const [kind, list] of byKind) {
    const view: RepairView | undefined = REPAIR_VIEWS[kind]
    if (view === undefined) {
      // A kind this CLI was not built with (a newer engine): named as the decoder gives it.
      q.add(kind, 'warning', kind, list.flatMap((r) => (r.detail ? [r.detail] : [])).join('; '))
      continue
    }
    const names = list.flatMap((r) => {
      const call = r.callIndex === undefined ? undefined : turn.toolCalls[r.callIndex]
      return call ? [call.name || `#${call.index}`] : []
    })
    const seen: Seen = { count: list.length, names: [...new Set(names)], details: list.flatMap((r) => (r.detail ? [r.detail] : [])) }
    const severity = typeof view.severity === 'function' ? view.severity(wire, turn, list) : view.severity
    q.add(kind, severity, view.title, view.detail(seen))
  }
}

/** What the decoded turn shows: broken calls, a signature round trip to keep, errors with a provider cause, a cut stop. */
function fromTurn(q: Quirks, turn: AssembledTurn): void {
  for (const call of [...turn.toolCalls, ...turn.serverToolCalls]) {
    if (call.error?.code === 'INCOMPLETE_ARGUMENTS') {
      q.add('cut-off-arguments', 'error', 'arguments cut off', `${call.name} (${call.id}): ${call.error.message}`)
    } else if (call.error?.code === 'INVALID_JSON') {
      q.add('invalid-json-arguments', 'error', 'arguments are not one JSON object', `${call.name} (${call.id}): ${call.error.message}`)
    }
  }
  const signed = turn.toolCalls.filter((c) => typeof c.providerMetadata?.thoughtSignature === 'string')
  if (turn.toolCalls.length > 1 && signed.length > 0 && signed.length < turn.toolCalls.length) {
    q.add('thought-signature-first-only', 'warning', 'only the first parallel call carries thoughtSignature', 'send the calls back together, the signature on the same part, or Gemini answers 400')
  }
  if (turn.stopReason === 'length' && turn.toolCalls.some((c) => !c.complete)) {
    q.add('output-limit-cut', 'error', 'the output limit cut a tool call', `stop reason ${turn.rawStopReason ?? 'length'}`)
  }
  for (const { kind, title, message } of turnErrors(turn)) {
    const severity = isKind(kind) ? QUIRK_SEVERITY[kind] : undefined
    if (q.seen.has(kind) || severity === undefined) continue
    q.add(kind, severity, title, message)
  }
}
