// OpenAI Chat Completions as OpenAI streams it (`stream: true`, with
// `stream_options.include_usage` as run() asks): a role chunk, `content` and
// `reasoning_content` deltas, each call's first fragment with its id, type and name and then its
// argument fragments by `index`, a finish chunk with an empty delta, the usage chunk with no
// choices, and `[DONE]` (WIRE.md section 1; openai-chat/*.sse).

import { pieces } from '../turns.js'
import type { PlannedTurn } from '../turns.js'
import { createdAt, responseId } from './event.js'
import type { WireEncoder, WireEvent } from './event.js'

/** How many characters one streamed fragment of text or arguments holds. */
const PIECE = 6

/** The turn's `finish_reason`. */
function finishReason(turn: PlannedTurn): string {
  if (turn.length) return 'length'
  return turn.calls.length > 0 ? 'tool_calls' : 'stop'
}

/** The usage object of Chat Completions. */
function usage(turn: PlannedTurn): object {
  return { prompt_tokens: turn.inputTokens, completion_tokens: turn.outputTokens, total_tokens: turn.inputTokens + turn.outputTokens }
}

function stream(turn: PlannedTurn, model: string): WireEvent[] {
  const head = { id: responseId('chatcmpl-', turn), object: 'chat.completion.chunk', created: createdAt(turn), model, system_fingerprint: 'fp_scripted' }
  const chunk = (delta: object, finish: string | null = null): WireEvent => ({
    data: { ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null },
  })
  const events: WireEvent[] = []
  const calls = turn.calls
  if (turn.thinking !== undefined || turn.text !== '' || calls.length === 0) {
    events.push(chunk({ role: 'assistant', content: '', refusal: null }))
    if (turn.thinking !== undefined) for (const piece of pieces(turn.thinking.text, PIECE)) events.push(chunk({ content: null, reasoning_content: piece }))
    if (turn.text !== '') for (const piece of pieces(turn.text, PIECE)) events.push(chunk({ content: piece }))
  }
  calls.forEach((call, index) => {
    const opening = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }
    // A turn that opens with a call sends the role in the call's first chunk.
    events.push(chunk(events.length === 0 ? { role: 'assistant', content: null, tool_calls: [opening], refusal: null } : { tool_calls: [opening] }))
    if (call.text !== '') for (const piece of pieces(call.text, PIECE)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
  })
  events.push(chunk({}, finishReason(turn)))
  events.push({ data: { ...head, choices: [], usage: usage(turn) } })
  events.push({ data: '[DONE]' })
  return events
}

function whole(turn: PlannedTurn, model: string): object {
  const message: Record<string, unknown> = { role: 'assistant', content: turn.text === '' ? null : turn.text, refusal: null }
  if (turn.thinking !== undefined) message.reasoning_content = turn.thinking.text
  if (turn.calls.length > 0) {
    message.tool_calls = turn.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.text } }))
  }
  return {
    id: responseId('chatcmpl-', turn),
    object: 'chat.completion',
    created: createdAt(turn),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(turn) }],
    usage: usage(turn),
    system_fingerprint: 'fp_scripted',
  }
}

/** OpenAI Chat Completions. */
export const OPENAI_CHAT: WireEncoder = { model: 'gpt-4o-mini-2024-07-18', stream, whole }
