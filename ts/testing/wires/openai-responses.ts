// The OpenAI Responses API as OpenAI streams it: named events numbered by `sequence_number`,
// `response.created` and `response.in_progress`, then each output item (a reasoning item with
// its summary deltas, a message with its text deltas, function calls with their argument deltas)
// added, filled and done by `output_index`, then `response.completed`, or
// `response.incomplete` for a length cut, whose last item is never done (WIRE.md section 2;
// openai-responses/openai-reasoning-encrypted-content.1, azure-tool-call.1).

import { pieces } from '../turns.js'
import type { PlannedTurn } from '../turns.js'
import { createdAt, responseId } from './event.js'
import type { WireEncoder, WireEvent } from './event.js'

/** How many characters one streamed fragment of text or arguments holds. */
const PIECE = 6

/** One output item: its value when done, and the events that stream it (without the done events). */
interface Item {
  done: Record<string, unknown>
  /** The events from `output_item.added` up to (not including) the item's done events. */
  opening: [string, object][]
  /** The events that end it, `output_item.done` last. */
  closing: [string, object][]
}

function reasoningItem(turn: PlannedTurn, index: number, thinking: NonNullable<PlannedTurn['thinking']>): Item {
  const id = `rs_scripted${turn.number + 1}_${index}`
  const at = { item_id: id, output_index: index, summary_index: 0 }
  const secret = thinking.signature === undefined ? {} : { encrypted_content: thinking.signature }
  const part = { type: 'summary_text', text: thinking.text }
  const done = { id, type: 'reasoning', ...secret, summary: [part] }
  return {
    done,
    opening: [
      ['response.output_item.added', { output_index: index, item: { id, type: 'reasoning', ...secret, summary: [] } }],
      ['response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } }],
      ...pieces(thinking.text, PIECE).map((delta): [string, object] => ['response.reasoning_summary_text.delta', { ...at, delta }]),
    ],
    closing: [
      ['response.reasoning_summary_text.done', { ...at, text: thinking.text }],
      ['response.reasoning_summary_part.done', { ...at, part }],
      ['response.output_item.done', { output_index: index, item: done }],
    ],
  }
}

function messageItem(turn: PlannedTurn, index: number): Item {
  const id = `msg_scripted${turn.number + 1}_${index}`
  const at = { item_id: id, output_index: index, content_index: 0 }
  const part = { type: 'output_text', annotations: [], logprobs: [], text: turn.text }
  const done = { id, type: 'message', status: 'completed', content: [part], role: 'assistant' }
  return {
    done,
    opening: [
      ['response.output_item.added', { output_index: index, item: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' } }],
      ['response.content_part.added', { ...at, part: { ...part, text: '' } }],
      ...pieces(turn.text, PIECE).map((delta): [string, object] => ['response.output_text.delta', { ...at, delta, logprobs: [] }]),
    ],
    closing: [
      ['response.output_text.done', { ...at, text: turn.text, logprobs: [] }],
      ['response.content_part.done', { ...at, part }],
      ['response.output_item.done', { output_index: index, item: done }],
    ],
  }
}

function callItem(index: number, call: PlannedTurn['calls'][number]): Item {
  const id = `fc_${call.id}`
  const done = { id, type: 'function_call', status: 'completed', arguments: call.text, call_id: call.id, name: call.name }
  const deltas = call.text === '' ? [] : pieces(call.text, PIECE)
  return {
    done,
    opening: [
      ['response.output_item.added', { output_index: index, item: { ...done, status: 'in_progress', arguments: '' } }],
      ...deltas.map((delta): [string, object] => ['response.function_call_arguments.delta', { item_id: id, output_index: index, delta }]),
    ],
    closing: [
      ['response.function_call_arguments.done', { item_id: id, output_index: index, arguments: call.text }],
      ['response.output_item.done', { output_index: index, item: done }],
    ],
  }
}

/** The turn's output items, in the order the API sends them: reasoning, message, calls. */
function items(turn: PlannedTurn): Item[] {
  const out: Item[] = []
  if (turn.thinking !== undefined) out.push(reasoningItem(turn, out.length, turn.thinking))
  if (turn.text !== '') out.push(messageItem(turn, out.length))
  for (const call of turn.calls) out.push(callItem(out.length, call))
  return out
}

/** The response object; `output` and `usage` as of its state. */
function response(turn: PlannedTurn, model: string, state: 'in_progress' | 'final', output: object[]): object {
  const status = state === 'in_progress' ? 'in_progress' : turn.length ? 'incomplete' : 'completed'
  return {
    id: responseId('resp_', turn),
    object: 'response',
    created_at: createdAt(turn),
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    model,
    output,
    parallel_tool_calls: true,
    usage: state === 'in_progress' ? null : {
      input_tokens: turn.inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: turn.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: turn.inputTokens + turn.outputTokens,
    },
  }
}

/** The final output: each item as done; for a length cut the last one `incomplete`. */
function finalOutput(turn: PlannedTurn, all: Item[]): object[] {
  return all.map((item, i) => (turn.length && i === all.length - 1 ? { ...item.done, status: 'incomplete' } : item.done))
}

function stream(turn: PlannedTurn, model: string): WireEvent[] {
  const all = items(turn)
  const named: [string, object][] = [
    ['response.created', { response: response(turn, model, 'in_progress', []) }],
    ['response.in_progress', { response: response(turn, model, 'in_progress', []) }],
  ]
  all.forEach((item, i) => {
    named.push(...item.opening)
    if (!(turn.length && i === all.length - 1)) named.push(...item.closing)
  })
  named.push([turn.length ? 'response.incomplete' : 'response.completed', { response: response(turn, model, 'final', finalOutput(turn, all)) }])
  return named.map(([type, fields], sequence) => ({ event: type, data: { type, sequence_number: sequence, ...fields } }))
}

function whole(turn: PlannedTurn, model: string): object {
  return response(turn, model, 'final', finalOutput(turn, items(turn)))
}

/** The OpenAI Responses API. */
export const OPENAI_RESPONSES: WireEncoder = { model: 'gpt-5-mini-2025-08-07', stream, whole }
