'use strict'
// Reads a captured response body into its JSON events, with where each one is in the body, so
// `replay` can split a capture holding several responses and notice provider quirks in the raw
// events. Decoding itself is the engine's StreamDecoder, fed the original bytes; this is only
// the observer's view. Shapes: SSE, NDJSON (one JSON payload per line), a Gemini JSON array
// stream, one JSON object (a non-streamed response).

/** `{ format, events }`: each event `{ start, end, data, raw, sseEvent?, dataBeforeEvent?, done? }`. */
function frameBody(text) {
  if (text.charCodeAt(0) === 0xfeff) text = ' ' + text.slice(1)
  const first = text.match(/\S/)
  if (first === null) return { format: 'empty', events: [] }
  if (first[0] === '[') return { format: 'json-array', events: scanObjects(text, first.index + 1) }
  if (first[0] === '{') {
    const whole = parse(text)
    if (whole !== undefined && whole !== null && !Array.isArray(whole)) {
      return { format: 'json', events: [{ start: 0, end: text.length, data: whole, raw: text }] }
    }
    return { format: 'ndjson', events: lines(text) }
  }
  return { format: 'sse', events: sse(text) }
}

function parse(raw) {
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}

function lines(text) {
  const out = []
  const re = /\r?\n/g
  let start = 0
  const push = (end) => {
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

function sse(text) {
  const out = []
  const re = /\r\n\r\n|\n\n|\r\r/g
  let start = 0
  const push = (end) => {
    const block = text.slice(start, end)
    if (block.trim() === '') return
    const data = []
    let sseEvent
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
    const event = { start, end, data: null, raw }
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
function scanObjects(text, from) {
  const out = []
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
function paddedBeforeBrace(raw) {
  return /[ \t]+\}\s*$/.test(raw)
}

/**
 * Splits the events into responses: a new response starts where a response that already
 * ended is followed by another one's first event. A second start while a response is still
 * open is left in place, for the decoder to judge (a spliced stream, a duplicate start).
 */
function splitResponses(wire, framed) {
  const { events, format } = framed
  if (format === 'json' || format === 'json-array' || events.length === 0) return [events]
  const groups = [[]]
  let ended = false
  let chatId = null
  let geminiId = null
  for (const event of events) {
    const data = event.data
    let boundary = false
    if (data && typeof data === 'object') {
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
    if (!data || typeof data !== 'object') continue
    if (wire === 'anthropic') {
      if (data.type === 'message_stop') ended = true
    } else if (wire === 'openai-responses') {
      if (data.type === 'response.completed' || data.type === 'response.incomplete' || data.type === 'response.failed') ended = true
    } else if (wire === 'gemini') {
      if (typeof data.responseId === 'string' && data.responseId !== '') geminiId = data.responseId
      if (Array.isArray(data.candidates) && data.candidates.some((c) => c && c.finishReason)) ended = true
    } else {
      if (typeof data.id === 'string' && data.id !== '') chatId = data.id
      if (Array.isArray(data.choices) && data.choices.some((c) => c && c.finish_reason)) ended = true
    }
  }
  return groups
}

module.exports = { frameBody, splitResponses, paddedBeforeBrace }
