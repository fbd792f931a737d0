// What a wire's encoder writes: the events of a streamed answer, each framed later as the wire
// frames it (ts/testing/framing.ts), and the names every encoder shares.

import type { PlannedTurn } from '../turns.js'

/** One event of a stream: its SSE `event:` name where the wire sends one, and its data. */
export interface WireEvent {
  event?: string
  /** The event's JSON value, or OpenAI Chat's and Mistral's `[DONE]` sentinel. */
  data: object | '[DONE]'
}

/** What a wire's encoder makes of a turn: its streamed events and its whole (non-streamed) response. */
export interface WireEncoder {
  /** The model named in every answer when the test names none. */
  model: string
  stream(turn: PlannedTurn, model: string): WireEvent[]
  whole(turn: PlannedTurn, model: string): object
}

/** The `created` time of a scripted answer (fixed: the bytes of a script never change). */
export function createdAt(turn: PlannedTurn): number {
  return 1_760_000_000 + turn.number
}

/** An id for the turn's response, in a provider's style (`chatcmpl-`, `resp_`, `msg_`). */
export function responseId(prefix: string, turn: PlannedTurn): string {
  return `${prefix}scripted${turn.number + 1}`
}
