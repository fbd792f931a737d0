// The provider quirks `replay` names: what the raw events of one response show (the decoder
// copes with these silently), and what the decoder's errors and refused calls mean, each with a
// readable name. Severity: `info` (harmless, handled), `warning` (handled here, breaks naive
// clients or needs care when sending results back), `error` (a call or the turn is broken).

import { isObject } from './input.js'
import { paddedBeforeBrace } from './frames.js'
import type { BodyFormat, FramedEvent } from './frames.js'
import { DecodeErrorKind } from '../protocol.generated.js'
import type { AssembledTurn, DecodeErrorKindName, Wire } from '../types.js'

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
  [DecodeErrorKind.FRAGMENT_AFTER_FINISH]: 'a tool call fragment after the turn finished',
  [DecodeErrorKind.SEVERAL_RESPONSES]: 'a second response in the same body',
  [DecodeErrorKind.SEVERAL_CHOICES]: 'more than one choice in the response; only the first was read',
  [DecodeErrorKind.ARGUMENTS_FOR_UNKNOWN_ITEM]: 'arguments for an output item never announced',
  [DecodeErrorKind.NAMELESS_FUNCTION_CALL]: 'a functionCall part without a name',
  [DecodeErrorKind.BAD_PARTIAL_ARGUMENTS]: 'streamed partial arguments that contradict each other',
  [DecodeErrorKind.OVERSIZED_EVENT]: 'an event too large, dropped',
  [DecodeErrorKind.UNREADABLE_EVENT]: 'an event that is not valid JSON or has the wrong shape',
  [DecodeErrorKind.INPUT_AFTER_FINISH]: 'input after the end of the response',
}

/** The kinds of decoder error `replay` lists among a response's quirks, each with its severity. */
const QUIRK_SEVERITY: Readonly<Partial<Record<DecodeErrorKindName, QuirkSeverity>>> = {
  [DecodeErrorKind.SPLICED_STREAM]: 'error',
  [DecodeErrorKind.STREAM_TRUNCATED]: 'error',
  [DecodeErrorKind.SEVERAL_RESPONSES]: 'warning',
  [DecodeErrorKind.FRAGMENT_AFTER_FINISH]: 'warning',
  [DecodeErrorKind.NAMELESS_FUNCTION_CALL]: 'error',
  [DecodeErrorKind.OVERSIZED_EVENT]: 'error',
  [DecodeErrorKind.CONTENT_FILTER]: 'error',
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
}

function jsonObjectText(text: string): boolean {
  try {
    return isObject(JSON.parse(text))
  } catch {
    return false
  }
}

/** Quirks seen in the raw events of one response, then those the decoded turn shows. */
export function findQuirks(wire: Wire, format: BodyFormat, events: FramedEvent[], turn: AssembledTurn): Quirk[] {
  const q = new Quirks()
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
  if (format === 'json' && events.length === 1 && isWholeResponse(wire, events[0].data)) {
    q.add('whole-response', 'info', 'a whole (non-streamed) response', 'the server answered one JSON response, not a stream (it ignored `stream: true`); decoded as its stream would be')
  }
  if (wire === 'anthropic') anthropic(q, events)
  else if (wire === 'openai-responses') responses(q, events)
  else if (wire === 'gemini') gemini(q, events)
  else chat(q, events, format)
  fromTurn(q, turn)
  return q.list
}

/** Whether a JSON body is the wire's whole (non-streamed) response rather than one event. */
function isWholeResponse(wire: Wire, body: unknown): boolean {
  if (!isObject(body)) return false
  switch (wire) {
    case 'anthropic':
      return body.type === 'message'
    case 'openai-responses':
      return body.object === 'response'
    case 'gemini':
      return Array.isArray(body.candidates)
    default:
      return body.object === 'chat.completion' || (Array.isArray(body.choices) && body.choices.some((c) => isObject(c) && isObject(c.message)))
  }
}

/** A call of the chat wire as its fragments build it up. */
interface ChatCall {
  id: string | null
  name: string
  args: string
}

function chat(q: Quirks, events: FramedEvent[], format: BodyFormat): void {
  let finish: unknown = null
  let finished = false
  const calls: ChatCall[] = []
  const byKey = new Map<unknown, ChatCall>()
  let firstIndex: number | undefined
  let sawDone = false
  for (const event of events) {
    if (event.done) {
      sawDone = true
      continue
    }
    const chunk = event.data
    if (!isObject(chunk)) continue
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.prompt_filter_results !== undefined) {
      q.add('filter-only-chunk', 'warning', 'chunk with no choices, only content-filter results', 'Azure sends `choices: []` with `prompt_filter_results`; code reading choices[0] crashes')
    }
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isObject(choice)) continue
      if (choice.delta === undefined && (choice.content_filter_offsets !== undefined || choice.content_filter_results !== undefined)) {
        q.add('filter-only-chunk', 'warning', 'chunk with no choices, only content-filter results', 'a choice with content-filter data and no `delta` (Azure)')
      }
      const list = isObject(choice.delta) && Array.isArray(choice.delta.tool_calls) ? choice.delta.tool_calls : []
      list.forEach((fragment, position) => {
        if (!isObject(fragment)) return
        const fn: Record<string, unknown> = isObject(fragment.function) ? fragment.function : {}
        const id = fragment.id
        const name = fn.name
        const args = typeof fn.arguments === 'string' ? fn.arguments : ''
        if (finished) {
          const empty = (id === undefined || id === '') && !name && args === ''
          if (empty) q.add('trailing-empty-fragment', 'info', 'empty tool call fragment after the call ended', 'a no-op, not a new call')
          else q.add('fragment-after-finish', 'warning', 'tool call fragment after finish_reason', 'ignored by the decoder')
          return
        }
        if (fragment.index === undefined || fragment.index === null) {
          q.add('missing-index', 'warning', 'tool call without `index`', 'Mistral, old Ollama and Gemini\'s OpenAI endpoint omit it; calls are keyed by position instead')
        }
        if (id === '' || name === '') {
          q.add('empty-string-fields', 'warning', 'empty-string `id` or `name` in a fragment', 'treated as absent (Qwen/DashScope, GLM); naive clients overwrite the real value')
        }
        const key = isInteger(fragment.index) ? fragment.index : `p${position}`
        if (firstIndex === undefined && isInteger(fragment.index)) {
          firstIndex = fragment.index
          if (firstIndex !== 0) q.add('index-offset', 'warning', `tool call index starts at ${firstIndex}`, 'array-by-index clients leave a hole (Anthropic\'s OpenAI-compatible endpoint)')
        }
        let call = byKey.get(key)
        const newId = typeof id === 'string' && id !== '' ? id : null
        const newName = typeof name === 'string' && name !== '' ? name : null
        if (call !== undefined && newId !== null && call.id !== null && newId !== call.id) {
          if (newName !== null) {
            q.add('index-reused', 'warning', `parallel calls share index ${fragment.index ?? '(none)'}`, 'a new id on an occupied index starts a new call (Ollama 0.20); keying by index alone merges them')
            call = undefined
          } else {
            q.add('unstable-id', 'warning', 'call id changes between fragments of one call', 'kept as one call (Poolside, LM Studio)')
          }
        }
        if (call === undefined) {
          call = { id: newId, name: newName ?? '', args: '' }
          byKey.set(key, call)
          calls.push(call)
        } else {
          if (call.id === null && newId !== null) call.id = newId
          if (newName !== null) {
            if (call.name === '') call.name = newName
            else if (newName === call.name) q.add('name-repeated', 'warning', 'tool name repeated in every fragment', `"${newName}" is not doubled (MiniMax via NVIDIA NIM)`)
            else {
              q.add('name-split', 'warning', 'tool name split across fragments', `"${call.name}" + "${newName}"`)
              call.name += newName
            }
          }
        }
        if (args !== '') {
          if (call.args !== '' && args === call.args && jsonObjectText(call.args)) {
            q.add('arguments-resent', 'warning', 'full arguments re-sent after the deltas', 'not duplicated')
          } else if (call.args.length >= 2 && args.length > call.args.length && args.startsWith(call.args)) {
            q.add('cumulative-arguments', 'warning', 'each fragment resends the arguments so far', 'cumulative resend (DeepSeek, Qianfan): replaced, not appended')
            call.args = args
          } else call.args += args
        }
      })
      if (choice.finish_reason) {
        finish = choice.finish_reason
        finished = true
      }
    }
  }
  const noId = calls.filter((c) => c.id === null)
  if (noId.length > 0) q.add('missing-id', 'warning', 'tool call without an id', `${noId.length} call(s); an id was generated (the result must reference it)`)
  if (finish === 'stop' && calls.length > 0) {
    q.add('finish-stop-with-calls', 'warning', 'finish_reason "stop" although tool calls were sent', 'OpenAI with a named tool_choice and several servers; gate on complete calls, not finish_reason')
  }
  if (!finished && calls.length > 0) q.add('no-finish-reason', 'error', 'stream ended without a finish_reason', 'the calls were never signalled complete')
  if (format === 'sse' && finished && !sawDone && events.length > 0) {
    q.add('no-done-sentinel', 'info', 'no `data: [DONE]` at the end', 'most OpenAI-compatible servers send it; the finish_reason chunk ended the turn')
  }
}

function responses(q: Quirks, events: FramedEvent[]): void {
  const items = new Map<unknown, { id: unknown; name: unknown; deltas: number }>()
  const anyItem = new Map<number, unknown>()
  const callIds = new Map<string, boolean>()
  for (const event of events) {
    const e = event.data
    if (!isObject(e) || typeof e.type !== 'string') continue
    if (typeof e.item_id === 'string' && isInteger(e.output_index)) {
      const id = anyItem.get(e.output_index)
      if (typeof id === 'string' && e.item_id !== id) {
        q.add('item-id-rotation', 'warning', 'item_id changes from event to event', 'correlated by output_index instead (GitHub Copilot); code keyed by item_id loses deltas')
      }
    }
    if (e.type === 'response.output_item.added' && isObject(e.item)) {
      const item = e.item
      if (isInteger(e.output_index) && typeof item.id === 'string') anyItem.set(e.output_index, item.id)
      if (item.type === 'function_call' || item.type === 'custom_tool_call') {
        items.set(e.output_index, { id: item.id, name: item.name, deltas: 0 })
        if (typeof item.call_id === 'string') {
          if (callIds.has(item.call_id)) q.add('duplicate-call-id', 'warning', 'two calls with one call_id', `"${item.call_id}": the second got a generated id`)
          callIds.set(item.call_id, true)
        }
      }
    } else if (/^response\.(function_call_arguments|custom_tool_call_input)\.(delta|done)$/.test(e.type)) {
      const item = items.get(e.output_index)
      if (item === undefined) continue
      if (e.type.endsWith('.delta')) item.deltas += 1
    }
  }
  const noDeltas = [...items.values()].filter((i) => i.deltas === 0)
  if (noDeltas.length > 0) {
    q.add('no-argument-deltas', 'info', 'no argument deltas', `${noDeltas.map((i) => i.name).join(', ')}: arguments taken from the .done events (LM Studio)`)
  }
}

function anthropic(q: Quirks, events: FramedEvent[]): void {
  const blocks = new Map<unknown, { name: unknown; input: unknown; partial: string; deltas: number; stopped: boolean }>()
  let open: unknown = null
  let padded = false
  for (const event of events) {
    const e = event.data
    if (!isObject(e)) continue
    if (!padded && paddedBeforeBrace(event.raw)) padded = true
    if (e.type === 'message_start') {
      const id = isObject(e.message) ? e.message.id : undefined
      if (open !== null) {
        if (id === open) q.add('duplicate-message-start', 'warning', 'message_start sent twice', `"${id}": the duplicate was ignored`)
        else q.add('spliced-stream', 'error', 'two generations spliced into one stream', `message_start "${id}" while "${open}" was open`)
      } else open = id ?? '(no id)'
      const content = isObject(e.message) && Array.isArray(e.message.content) ? e.message.content : []
      if (content.some((b) => isObject(b) && b.type === 'tool_use')) {
        q.add('tool-use-in-message-start', 'info', 'tool_use inside message_start', 'a whole call with no block events (programmatic tool calling)')
      }
    } else if (e.type === 'message_stop') open = null
    else if (e.type === 'content_block_start' && isObject(e.content_block)) {
      const b = e.content_block
      if (b.type === 'tool_use' || b.type === 'server_tool_use') {
        blocks.set(e.index, { name: b.name, input: b.input, partial: '', deltas: 0, stopped: false })
      }
    } else if (e.type === 'content_block_delta' && isObject(e.delta) && e.delta.type === 'input_json_delta') {
      const b = blocks.get(e.index)
      if (b !== undefined) {
        b.deltas += 1
        b.partial += typeof e.delta.partial_json === 'string' ? e.delta.partial_json : ''
      }
    } else if (e.type === 'content_block_stop') {
      const b = blocks.get(e.index)
      if (b !== undefined) b.stopped = true
    } else if (e.type === 'error') {
      const detail = isObject(e.error) ? `${e.error.type ?? ''}: ${e.error.message ?? ''}` : ''
      q.add('provider-error', 'error', 'the provider reported an error mid-stream', detail)
    }
  }
  if (padded) q.add('json-padding', 'info', 'JSON padded with blanks before its final brace', 'harmless for a JSON parser')
  for (const b of blocks.values()) {
    if (b.deltas > 0 && b.partial === '') q.add('empty-tool-input', 'info', 'tool input streamed as only `""`', `${b.name}: treated as {} (JSON.parse("") throws)`)
    if (b.deltas === 0 && isObject(b.input) && Object.keys(b.input).length > 0) {
      q.add('whole-input-in-block-start', 'info', 'input whole in content_block_start', `${b.name}: no input_json_delta`)
    }
    if (!b.stopped) q.add('block-not-closed', 'error', 'tool_use block never closed', `${b.name}: no content_block_stop (cut off by max_tokens or the stream's end)`)
  }
}

function gemini(q: Quirks, events: FramedEvent[]): void {
  let open = false
  const calls: { name: unknown; id: unknown; signed: boolean }[] = []
  for (const event of events) {
    const e = event.data
    if (!isObject(e) || !Array.isArray(e.candidates)) continue
    for (const candidate of e.candidates) {
      const parts = isObject(candidate) && isObject(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : []
      for (const part of parts) {
        if (!isObject(part) || !isObject(part.functionCall)) continue
        const fc = part.functionCall
        const named = typeof fc.name === 'string' && fc.name !== ''
        if (Array.isArray(fc.partialArgs) || fc.willContinue === true) {
          q.add('partial-args-streaming', 'info', 'arguments streamed as partialArgs', 'nameless continuation parts are not calls (Gemini 3 streamFunctionCallArguments)')
        }
        if (named) {
          calls.push({ name: fc.name, id: fc.id, signed: typeof part.thoughtSignature === 'string' })
          open = fc.willContinue === true
        } else if (Object.keys(fc).length === 0) open = false
      }
    }
  }
  if (open) q.add('missing-terminal-function-call', 'warning', 'streamed call never closed by an empty functionCall', 'finalized at the end of the stream')
  const signed = calls.filter((c) => c.signed)
  if (calls.length > 1 && signed.length > 0 && signed.length < calls.length) {
    q.add('thought-signature-first-only', 'warning', 'only the first parallel call carries thoughtSignature', 'send the calls back together, the signature on the same part, or Gemini answers 400')
  }
  const noId = calls.filter((c) => typeof c.id !== 'string' || c.id === '')
  if (noId.length > 0) q.add('missing-id', 'info', 'functionCall without an id', `${noId.length} call(s); an id was generated`)
}

/** What the decoded turn shows: broken calls, errors with a provider cause, a cut stop. */
function fromTurn(q: Quirks, turn: AssembledTurn): void {
  for (const call of [...turn.toolCalls, ...turn.serverToolCalls]) {
    if (call.error?.code === 'INCOMPLETE_ARGUMENTS') {
      q.add('cut-off-arguments', 'error', 'arguments cut off', `${call.name} (${call.id}): ${call.error.message}`)
    } else if (call.error?.code === 'INVALID_JSON') {
      q.add('invalid-json-arguments', 'error', 'arguments are not one JSON object', `${call.name} (${call.id}): ${call.error.message}`)
    }
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

/** Number.isInteger, telling TypeScript the value is a number. */
function isInteger(value: unknown): value is number {
  return Number.isInteger(value)
}
