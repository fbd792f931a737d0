// How a wire's events become the bytes of a body: Server-Sent Events as each provider frames
// them, NDJSON, a JSON array (Gemini's stream without `alt=sse`), or one whole response.

import type { Wire } from '../types.js'
import type { WireEvent } from './wires/index.js'

/**
 * How a scripted answer is framed: `'sse'` (what each provider streams; Gemini's `alt=sse`),
 * `'ndjson'` (each event's JSON on a line, as relays and SDK loggers write them),
 * `'json-array'` (Gemini's stream without `alt=sse`: the chunks as one JSON array, pretty-printed,
 * one element at a time), `'whole'` (the wire's non-streamed response).
 */
export type AnswerFormat = 'sse' | 'ndjson' | 'json-array' | 'whole'

/** The formats, for checking. */
export const ANSWER_FORMATS: readonly AnswerFormat[] = ['sse', 'ndjson', 'json-array', 'whole']

/** The `content-type` each format is answered with. */
export const CONTENT_TYPES: Readonly<Record<AnswerFormat, string>> = Object.freeze({
  sse: 'text/event-stream; charset=utf-8',
  ndjson: 'application/x-ndjson',
  'json-array': 'application/json; charset=UTF-8',
  whole: 'application/json',
})

/**
 * `value` as Google writes JSON in its SSE events: `": "` after each key, no space after commas
 * (`{"candidates": [{"content": {"parts": [...],"role": "model"},"index": 0}]}`).
 */
function googleJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(googleJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${googleJson(item)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * An Anthropic event's JSON as Anthropic writes it: spaces before the closing brace, as every
 * real recording shows (`{"type":"content_block_stop","index":0           }`), their count
 * varying with the event's place; its ping as `{"type": "ping"}`.
 */
function anthropicJson(data: object, place: number): string {
  const text = JSON.stringify(data)
  if (text === '{"type":"ping"}') return '{"type": "ping"}'
  return `${text.slice(0, -1)}${' '.repeat((place * 7) % 16)}}`
}

/** One SSE event of `wire`, the `place`-th of its stream. */
function sseEvent(wire: Wire, event: WireEvent, place: number): string {
  if (event.data === '[DONE]') return 'data: [DONE]\n\n'
  if (wire === 'gemini') return `data: ${googleJson(event.data)}\r\n\r\n`
  const data = wire === 'anthropic' ? anthropicJson(event.data, place) : JSON.stringify(event.data)
  return event.event === undefined ? `data: ${data}\n\n` : `event: ${event.event}\ndata: ${data}\n\n`
}

/** The JSON values of `events` (OpenAI's `[DONE]` left out: it is no JSON). */
function values(events: WireEvent[]): object[] {
  return events.flatMap((event) => (event.data === '[DONE]' ? [] : [event.data]))
}

/**
 * The body of a streamed answer on `wire` in `format` (not `'whole'`), as the pieces a server
 * writes: one per event (the JSON array's brackets with its first and last element).
 */
export function framedPieces(wire: Wire, events: WireEvent[], format: Exclude<AnswerFormat, 'whole'>): string[] {
  switch (format) {
    case 'sse':
      return events.map((event, place) => sseEvent(wire, event, place))
    case 'ndjson':
      return values(events).map((value) => `${JSON.stringify(value)}\n`)
    case 'json-array': {
      const all = values(events)
      return all.map((value, i) => `${i === 0 ? '[' : '\n,\r\n'}${JSON.stringify(value, null, 2)}${i === all.length - 1 ? '\n]' : ''}`)
    }
  }
}

/** The text of a whole response of `wire`: pretty-printed where the provider does (OpenAI, Gemini). */
export function wholeText(wire: Wire, response: object): string {
  return wire === 'anthropic' || wire === 'mistral' ? JSON.stringify(response) : JSON.stringify(response, null, 2)
}
