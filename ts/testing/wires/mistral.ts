// Mistral's chat completions as Mistral streams them: a role chunk with `content: ""`, content
// deltas, and every call whole in the last chunk (no `index`, no `type`) with the finish reason
// and usage, then `[DONE]` (WIRE.md section 5; openai-compatible-chat/mistral-tool-call).

import { pieces } from '../turns.js'
import type { PlannedTurn } from '../turns.js'
import { createdAt } from './event.js'
import type { WireEncoder, WireEvent } from './event.js'

/** How many characters one streamed fragment of text holds. */
const PIECE = 6

/** The turn's `finish_reason`. */
function finishReason(turn: PlannedTurn): string {
  if (turn.length) return 'length'
  return turn.calls.length > 0 ? 'tool_calls' : 'stop'
}

/** Mistral's usage object (its own key order). */
function usage(turn: PlannedTurn): object {
  return { prompt_tokens: turn.inputTokens, total_tokens: turn.inputTokens + turn.outputTokens, completion_tokens: turn.outputTokens }
}

/** Mistral's response id: 32 hex digits. */
function mistralId(turn: PlannedTurn): string {
  return (turn.number + 1).toString(16).padStart(32, '0')
}

function stream(turn: PlannedTurn, model: string): WireEvent[] {
  const head = { id: mistralId(turn), object: 'chat.completion.chunk', created: createdAt(turn), model }
  const chunk = (delta: object, finish: string | null = null, extra: object = {}): WireEvent => ({
    data: { ...head, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra },
  })
  const events: WireEvent[] = [chunk({ role: 'assistant', content: '' })]
  if (turn.text !== '') for (const piece of pieces(turn.text, PIECE)) events.push(chunk({ content: piece }))
  const last = turn.calls.length > 0
    ? { content: null, tool_calls: turn.calls.map((call) => ({ id: call.id, function: { name: call.name, arguments: call.text } })) }
    : { content: '' }
  events.push(chunk(last, finishReason(turn), { usage: usage(turn) }))
  events.push({ data: '[DONE]' })
  return events
}

function whole(turn: PlannedTurn, model: string): object {
  const message: Record<string, unknown> = { role: 'assistant', tool_calls: null, content: turn.text }
  if (turn.calls.length > 0) {
    message.tool_calls = turn.calls.map((call, index) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.text }, index }))
  }
  return {
    id: mistralId(turn),
    object: 'chat.completion',
    created: createdAt(turn),
    model,
    choices: [{ index: 0, message, finish_reason: finishReason(turn) }],
    usage: usage(turn),
  }
}

/** Mistral. */
export const MISTRAL: WireEncoder = { model: 'mistral-small-latest', stream, whole }
