// Google Gemini's streamGenerateContent as Gemini sends it: each chunk a whole
// GenerateContentResponse (thought parts, text parts, then every call whole in one chunk as
// `functionCall` parts with `args` objects), `finishReason` on the last chunk (`STOP` even for
// calls, `MAX_TOKENS` for a length cut), `usageMetadata` on each (WIRE.md section 4;
// gemini/llm-gemini-test-tools.0.json-array-stream, pydantic-google-*.sse).

import { pieces } from '../turns.js'
import type { PlannedTurn } from '../turns.js'
import { responseId } from './event.js'
import type { WireEncoder, WireEvent } from './event.js'

/** How many characters one streamed chunk of text holds. */
const PIECE = 12

/** The usage metadata of the turn. */
function usage(turn: PlannedTurn): object {
  return { promptTokenCount: turn.inputTokens, candidatesTokenCount: turn.outputTokens, totalTokenCount: turn.inputTokens + turn.outputTokens }
}

/** The call parts: each call whole; a thinking signature on the first (Gemini's quirk 26). */
function callParts(turn: PlannedTurn): object[] {
  return turn.calls.map((call, i) => {
    const functionCall = call.id === undefined ? { name: call.name, args: call.value } : { name: call.name, args: call.value, id: call.id }
    const signature = i === 0 ? turn.thinking?.signature : undefined
    return signature === undefined ? { functionCall } : { functionCall, thoughtSignature: signature }
  })
}

/** The thought parts: the thinking in pieces, its signature on the last when no call carries it. */
function thoughtParts(turn: PlannedTurn): object[][] {
  if (turn.thinking === undefined) return []
  const { text, signature } = turn.thinking
  const all = pieces(text, PIECE)
  return all.map((piece, i) => {
    const signed = signature !== undefined && turn.calls.length === 0 && i === all.length - 1
    return [signed ? { text: piece, thought: true, thoughtSignature: signature } : { text: piece, thought: true }]
  })
}

/** One GenerateContentResponse holding `parts`; `finished` for the last. */
function chunk(turn: PlannedTurn, model: string, parts: object[], finished: boolean): object {
  const candidate = finished
    ? { content: { parts, role: 'model' }, finishReason: turn.length ? 'MAX_TOKENS' : 'STOP', index: 0 }
    : { content: { parts, role: 'model' }, index: 0 }
  return { candidates: [candidate], usageMetadata: usage(turn), modelVersion: model, responseId: responseId('', turn) }
}

function stream(turn: PlannedTurn, model: string): WireEvent[] {
  const groups: object[][] = [...thoughtParts(turn)]
  if (turn.text !== '') for (const text of pieces(turn.text, PIECE)) groups.push([{ text }])
  if (turn.calls.length > 0) groups.push(callParts(turn))
  if (groups.length === 0) groups.push([{ text: '' }])
  return groups.map((parts, i) => ({ data: chunk(turn, model, parts, i === groups.length - 1) }))
}

function whole(turn: PlannedTurn, model: string): object {
  const parts: object[] = []
  if (turn.thinking !== undefined) {
    const { text, signature } = turn.thinking
    parts.push(signature !== undefined && turn.calls.length === 0 ? { text, thought: true, thoughtSignature: signature } : { text, thought: true })
  }
  if (turn.text !== '') parts.push({ text: turn.text })
  parts.push(...callParts(turn))
  if (parts.length === 0) parts.push({ text: '' })
  return chunk(turn, model, parts, true)
}

/** Google Gemini. */
export const GEMINI: WireEncoder = { model: 'gemini-2.5-flash', stream, whole }
