// A response body read back into its events, as a provider framed them (SSE blocks, NDJSON
// lines, the elements of a JSON array, or one whole response), so a fault can change, repeat,
// reorder or drop whole events and the body be framed again. The reading is the CLI's
// (cli/frames.ts, which `toolwire replay` reads captures with); this adds the text between
// events, so that the events framed again give the body back byte for byte.

import { frameBody } from '../cli/frames.js'

/** How a body is framed. */
export type Framing = 'sse' | 'ndjson' | 'json-array' | 'whole'

/** One event of a body. */
export interface BodyEvent {
  /** The event's text as framed: an SSE block or an NDJSON line with what ends it, a JSON element. */
  text: string
  /** Its JSON value (an SSE block's data), or null when it is none (`[DONE]`, a cut event). */
  value: unknown
  /** An SSE block's `event:` name. */
  name?: string
  /** What ends an SSE block (`\n\n`, `\r\n\r\n`) or an NDJSON line. */
  end: string
}

/** A body read into its events: what precedes them, the events, what follows them. */
export interface ParsedBody {
  framing: Framing
  /** Text before the first event (a JSON array's `[`). */
  head: string
  events: BodyEvent[]
  /** Text after the last event (a JSON array's `]`). */
  tail: string
  /** What separates two elements of a JSON array (`,` or Gemini's `\n,\r\n`). */
  separator: string
}

/** The framings of cli/frames.ts's formats. */
const FRAMINGS = { sse: 'sse', ndjson: 'ndjson', 'json-array': 'json-array', json: 'whole', empty: 'whole' } as const

/**
 * `text` read into its events: a JSON array (Gemini's stream without `alt=sse`), one whole JSON
 * response, NDJSON, or SSE. The events' texts, with `head`, `tail` and (in an array)
 * `separator`, are the whole of `text`.
 */
export function parseBody(text: string): ParsedBody {
  const framed = frameBody(text)
  const framing = FRAMINGS[framed.format]
  const found = framed.events
  if (found.length === 0) return { framing, head: text, events: [], tail: '', separator: ',' }
  const head = text.slice(0, found[0]!.start)
  if (framing === 'json-array' || framing === 'whole') {
    const events = found.map((event) => ({ text: text.slice(event.start, event.end), value: event.data, end: '' }))
    const separator = found.length > 1 ? text.slice(found[0]!.end, found[1]!.start) : ','
    return { framing, head, events, tail: text.slice(found[found.length - 1]!.end), separator }
  }
  // SSE blocks and NDJSON lines: each event's text runs to the next one's start (its end and
  // any comment or empty block after it travel with it).
  const events = found.map((event, i) => {
    const next = i + 1 < found.length ? found[i + 1]!.start : text.length
    const body: BodyEvent = { text: text.slice(event.start, next), value: event.data, end: text.slice(event.end, next) }
    if (event.sseEvent !== undefined) body.name = event.sseEvent
    return body
  })
  return { framing, head, events, tail: '', separator: ',' }
}

/** `event` with its value replaced by `value`, framed as `framing` frames it. */
export function withValue(event: BodyEvent, value: unknown, framing: Framing): BodyEvent {
  const json = JSON.stringify(value)
  switch (framing) {
    case 'sse':
      return { ...event, value, text: `${event.name === undefined ? '' : `event: ${event.name}\n`}data: ${json}${event.end}` }
    case 'ndjson':
      return { ...event, value, text: `${json}${event.end}` }
    default:
      return { ...event, value, text: json }
  }
}

/** The text of `body` with `events` in place of its own, framed as it was. */
export function bodyText(body: ParsedBody, events: BodyEvent[]): string {
  return `${body.head}${events.map((event) => event.text).join(body.framing === 'json-array' ? body.separator : '')}${body.tail}`
}
