// Anthropic Messages as Anthropic streams them: named events, `message_start`, then each content
// block (thinking with its `signature_delta`, text, `tool_use` whose `input_json_delta`s start
// with `""`) started, filled and stopped by `index`, a `ping` after the first block starts,
// `message_delta` with the stop reason and usage, `message_stop`. A length cut stops with
// `max_tokens` and leaves the last block without its `content_block_stop` (WIRE.md section 3;
// anthropic/llm-anthropic-tool-chain-thinking.0.sse, incomplete_partial_json_response.txt).

import { pieces } from '../turns.js'
import type { PlannedTurn } from '../turns.js'
import { responseId } from './event.js'
import type { WireEncoder, WireEvent } from './event.js'

/** How many characters one streamed fragment of text or arguments holds. */
const PIECE = 6

/**
 * The signature of a thinking block the test gave none: Anthropic signs every one (an opaque
 * base64 value the API checks when the block is sent back).
 */
export const DEFAULT_SIGNATURE = 'RXFzY3JpcHRlZC10aGlua2luZy1zaWduYXR1cmUtdG9vbHdpcmU='

/** The turn's `stop_reason`. */
function stopReason(turn: PlannedTurn): string {
  if (turn.length) return 'max_tokens'
  return turn.calls.length > 0 ? 'tool_use' : 'end_turn'
}

/** One content block: its start, its deltas. */
interface Block {
  start: object
  deltas: object[]
}

/** The turn's content blocks in order: thinking, text, tool uses. */
function blocks(turn: PlannedTurn): Block[] {
  const out: Block[] = []
  if (turn.thinking !== undefined) {
    const { text, signature = DEFAULT_SIGNATURE } = turn.thinking
    out.push({
      start: { type: 'thinking', thinking: '', signature: '' },
      deltas: [...pieces(text, PIECE).map((thinking) => ({ type: 'thinking_delta', thinking })), { type: 'signature_delta', signature }],
    })
  }
  if (turn.text !== '') {
    out.push({ start: { type: 'text', text: '' }, deltas: pieces(turn.text, PIECE).map((text) => ({ type: 'text_delta', text })) })
  }
  for (const call of turn.calls) {
    const fragments = call.text === '' ? [] : pieces(call.text, PIECE)
    out.push({
      start: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      deltas: ['', ...fragments].map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    })
  }
  return out
}

function stream(turn: PlannedTurn, model: string): WireEvent[] {
  const all = blocks(turn)
  const events: WireEvent[] = []
  const send = (type: string, fields: object) => events.push({ event: type, data: { type, ...fields } })
  send('message_start', {
    message: {
      model,
      id: responseId('msg_', turn),
      type: 'message',
      role: 'assistant',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: turn.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    },
  })
  all.forEach((block, index) => {
    send('content_block_start', { index, content_block: block.start })
    if (index === 0) events.push({ event: 'ping', data: { type: 'ping' } })
    for (const delta of block.deltas) send('content_block_delta', { index, delta })
    if (!(turn.length && index === all.length - 1)) send('content_block_stop', { index })
  })
  send('message_delta', { delta: { stop_reason: stopReason(turn), stop_sequence: null }, usage: { output_tokens: turn.outputTokens } })
  send('message_stop', {})
  return events
}

function whole(turn: PlannedTurn, model: string): object {
  const content: object[] = []
  if (turn.thinking !== undefined) content.push({ type: 'thinking', thinking: turn.thinking.text, signature: turn.thinking.signature ?? DEFAULT_SIGNATURE })
  if (turn.text !== '') content.push({ type: 'text', text: turn.text })
  for (const call of turn.calls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.value })
  return {
    model,
    id: responseId('msg_', turn),
    type: 'message',
    role: 'assistant',
    content,
    stop_reason: stopReason(turn),
    stop_sequence: null,
    usage: { input_tokens: turn.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: turn.outputTokens },
  }
}

/** Anthropic Messages. */
export const ANTHROPIC: WireEncoder = { model: 'claude-sonnet-4-5-20250929', stream, whole }
