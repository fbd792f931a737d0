// Reads a captured response body into its JSON events, with where each one is in the body, so
// `replay` can split a capture holding several responses and tell what the framing shows
// (unreadable events, SSE field order, padding). Decoding itself, and naming the provider quirks
// repaired, is the engine's StreamDecoder, fed the original bytes; this is only the observer's
// view. Shapes: SSE, NDJSON (one JSON payload per line), a Gemini JSON array
// stream, one JSON object (a non-streamed response).

import type { Wire } from '../types.js'

/** One event of a body: where it is (`start`, `end`), its text and its JSON value (null when it is not JSON). */
export interface FramedEvent {
  start: number
  end: number
  data: unknown
  raw: string
  /** SSE: the block's `event:` field. */
  sseEvent?: string
  /** SSE: a `data:` line came before the `event:` line. */
  dataBeforeEvent?: boolean
  /** SSE: `data: [DONE]`. */
  done?: boolean
}

/** The shape of a body: SSE, NDJSON, a JSON array stream, one JSON object, or nothing. */
export type BodyFormat = 'empty' | 'json-array' | 'json' | 'ndjson' | 'sse'

/** A body read into its events. */
export interface FramedBody {
  format: BodyFormat
  events: FramedEvent[]
}

/** `{ format, events }`: each event `{ start, end, data, raw, sseEvent?, dataBeforeEvent?, done? }`. */
export function frameBody(text: string): FramedBody {
  if (text.charCodeAt(0) === 0xfeff) text = ' ' + text.slice(1)
  const first = text.match(/\S/)
  if (first === null) return { format: 'empty', events: [] }
  if (first[0] === '[') return { format: 'json-array', events: scanObjects(text, (first.index ?? 0) + 1) }
  if (first[0] === '{') {
    const whole = parse(text)
    if (whole !== undefined && whole !== null && !Array.isArray(whole)) {
      return { format: 'json', events: [{ start: 0, end: text.length, data: whole, raw: text }] }
    }
    return { format: 'ndjson', events: lines(text) }
  }
  return { format: 'sse', events: sse(text) }
}

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}

function lines(text: string): FramedEvent[] {
  const out: FramedEvent[] = []
  const re = /\r?\n/g
  let start = 0
  const push = (end: number): void => {
    const raw = text.slice(start, end)
    if (raw.trim() === '') return
    const data = parse(raw)
    out.push({ start, end, data: data === undefined ? null : data, raw })
  }
  for (const match of text.matchAll(re)) {
    push(match.index)
    start = match.index + match[0].length
  }
  push(text.length)
  return out
}

function sse(text: string): FramedEvent[] {
  const out: FramedEvent[] = []
  const re = /\r\n\r\n|\n\n|\r\r/g
  let start = 0
  const push = (end: number): void => {
    const block = text.slice(start, end)
    if (block.trim() === '') return
    const data: string[] = []
    let sseEvent: string | undefined
    let dataBeforeEvent = false
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line === '' || line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon === -1 ? line : line.slice(0, colon)
      let value = colon === -1 ? '' : line.slice(colon + 1)
      if (value.startsWith(' ')) value = value.slice(1)
      if (field === 'data') data.push(value)
      else if (field === 'event') {
        if (data.length > 0) dataBeforeEvent = true
        sseEvent = value
      }
    }
    if (data.length === 0) return
    const raw = data.join('\n')
    const event: FramedEvent = { start, end, data: null, raw }
    if (sseEvent !== undefined) event.sseEvent = sseEvent
    if (dataBeforeEvent) event.dataBeforeEvent = true
    if (raw.trim() === '[DONE]') event.done = true
    else {
      const value = parse(raw)
      event.data = value === undefined ? null : value
    }
    out.push(event)
  }
  for (const match of text.matchAll(re)) {
    push(match.index)
    start = match.index + match[0].length
  }
  push(text.length)
  return out
}

/** The top-level `{...}` values of a JSON array body (which may be cut off), by brace depth. */
function scanObjects(text: string, from: number): FramedEvent[] {
  const out: FramedEvent[] = []
  let depth = 0
  let inString = false
  let escaped = false
  let start = -1
  for (let i = from; i < text.length; i += 1) {
    const ch = text[i]
    if (inString) {
      if (escaped) escaped = false
      else if (ch === '\\') escaped = true
      else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    else if (ch === '{') {
      if (depth === 0) start = i
      depth += 1
    } else if (ch === '}') {
      depth -= 1
      if (depth === 0) {
        const raw = text.slice(start, i + 1)
        const data = parse(raw)
        out.push({ start, end: i + 1, data: data === undefined ? null : data, raw })
      }
    }
  }
  if (depth > 0 && start !== -1) out.push({ start, end: text.length, data: null, raw: text.slice(start) })
  return out
}

/** Whether an event's JSON text is padded with blanks before its final brace (Anthropic). */
export function paddedBeforeBrace(raw: string): boolean {
  return /[ \t]+\}\s*$/.test(raw)
}

/**
 * Splits the events into responses: a new response starts where a response that already
 * ended is followed by another one's first event. A second start while a response is still
 * open is left in place, for the decoder to judge (a spliced stream, a duplicate start).
 */
export function splitResponses(wire: Wire, framed: FramedBody): FramedEvent[][] {
  const { events, format } = framed
  if (format === 'json' || format === 'json-array' || events.length === 0) return [events]
  const groups: FramedEvent[][] = [[]]
  let ended = false
  let chatId: string | null = null
  let geminiId: string | null = null
  for (const event of events) {
    const data = fieldsOf(event.data)
    let boundary = false
    if (data) {
      if (wire === 'anthropic') {
        if (data.type === 'message_start' && ended) boundary = true
      } else if (wire === 'openai-responses') {
        if (data.type === 'response.created' && ended) boundary = true
      } else if (wire === 'gemini') {
        const id = data.responseId
        // A chunk without candidates after the finish (a usage trailer) belongs to the response.
        const content = Array.isArray(data.candidates) && data.candidates.length > 0
        if (typeof id === 'string' && id !== '' && geminiId !== null && id !== geminiId && ended && content) boundary = true
      } else {
        const id = data.id
        // As the decoder: after the finish, a new id on a chunk with choices is a second
        // response; a usage trailer without choices is this one's, whatever its id.
        const content = Array.isArray(data.choices) && data.choices.length > 0
        if (typeof id === 'string' && id !== '' && chatId !== null && id !== chatId && ended && content) boundary = true
      }
    }
    if (boundary) {
      groups.push([])
      ended = false
      chatId = null
      geminiId = null
    }
    groups[groups.length - 1].push(event)
    if (!data) continue
    if (wire === 'anthropic') {
      if (data.type === 'message_stop') ended = true
    } else if (wire === 'openai-responses') {
      if (data.type === 'response.completed' || data.type === 'response.incomplete' || data.type === 'response.failed') ended = true
    } else if (wire === 'gemini') {
      if (typeof data.responseId === 'string' && data.responseId !== '') geminiId = data.responseId
      if (Array.isArray(data.candidates) && data.candidates.some((c: unknown) => fieldsOf(c)?.finishReason)) ended = true
    } else {
      if (typeof data.id === 'string' && data.id !== '') chatId = data.id
      if (Array.isArray(data.choices) && data.choices.some((c: unknown) => fieldsOf(c)?.finish_reason)) ended = true
    }
  }
  return groups
}

/** The fields of a JSON value that is an object (an array too, its fields all absent); undefined for anything else. */
function fieldsOf(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined
}
