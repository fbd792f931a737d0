// faultyStream: a response body delivered as a network would deliver it badly: split at every byte
// or at seeded random places, events repeated, parallel calls' fragments interleaved where the
// wire keys them, call ids or indexes removed, cut short (ended, failed or stalled).

import { ToolwireError, checkOptionKeys, describe, ownOptions } from '../common.js'
import { CallKeys, removeCallIds, removeCallIndexes } from './call-events.js'
import { bodyText, parseBody, withValue } from './events.js'
import type { BodyEvent, ParsedBody } from './events.js'
import { seededRandom } from './random.js'

/** The faults {@link faultyStream} delivers a body with. Every fault is off unless given. */
export interface Faults {
  /**
   * Where the bytes are split into chunks: `'event'` (default: one chunk per event, as a server
   * flushes them), `'byte'` (one chunk per byte, multi-byte characters split too), `'random'`
   * (chunks of 1 to 32 bytes at places drawn from `seed`).
   */
  split?: 'event' | 'byte' | 'random'
  /** The seed of `split: 'random'` (default 1): one seed, the same places every time. */
  seed?: number
  /** Events (by their place in the body, 0 for the first) each sent twice in a row. */
  duplicate?: number[]
  /**
   * Interleaves the fragments of parallel calls where the wire keys them: OpenAI Chat by
   * `tool_calls[].index`, Responses by the `output_index` of function-call items, Anthropic by the
   * `index` of `tool_use` blocks. Each run of consecutive events of calls is dealt out one event
   * of each call in turn, each call's own events kept in order (so the calls still start in
   * order). Gemini and Mistral send each call whole and in order: nothing of theirs is moved.
   */
  interleaveCalls?: boolean
  /** Removes the calls' ids (Chat's `id`, Responses' `call_id`, Anthropic's `tool_use` id, Gemini's `functionCall.id`). */
  removeIds?: boolean
  /** Removes the indexes that key calls (Chat's `tool_calls[].index`, Responses' `output_index`, Anthropic's block `index`). */
  removeIndexes?: boolean
  /** Delivers only the first `cutAfterEvent` events (as sent, after the faults above). */
  cutAfterEvent?: number
  /** Delivers only the first `cutAtByte` bytes (after every other fault). */
  cutAtByte?: number
  /**
   * How a cut body ends: `'end'` (default: the stream closes, as a connection closed early),
   * `'error'` (the stream fails, as a connection reset), `'stall'` (nothing more ever arrives:
   * only a cancel ends it).
   */
  cutAs?: 'end' | 'error' | 'stall'
}

/** The keys of {@link Faults}. */
const FAULT_KEYS = ['split', 'seed', 'duplicate', 'interleaveCalls', 'removeIds', 'removeIndexes', 'cutAfterEvent', 'cutAtByte', 'cutAs']

/** What {@link faultyStream} delivers: bytes, as a ReadableStream that is also an async iterable. */
export type FaultyStream = ReadableStream<Uint8Array> & AsyncIterable<Uint8Array>

/** A body {@link faultyStream} takes: text, bytes, or a fetch Response (what `scriptedModel` answers), or a promise of one. */
export type FaultyBody = string | Uint8Array | ArrayBuffer | Response | PromiseLike<Response>

/** Throws a VALIDATION_ERROR naming the fault. */
function refuse(message: string): never {
  throw new ToolwireError('VALIDATION_ERROR', `faultyStream: ${message}`)
}

/** A whole number of at least 0 at `key`, or undefined. */
function count(key: string, value: unknown): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) refuse(`faults.${key} must be a whole number of at least 0, got ${describe(value)}`)
  return value
}

/** `faults` checked: their own keys, each value of its type. */
function checkFaults(raw: Faults | undefined): Required<Pick<Faults, 'split' | 'seed' | 'cutAs'>> & Faults {
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) throw new TypeError(`faultyStream: faults must be an object, got ${describe(raw)}`)
  const faults = ownOptions(raw ?? {})
  checkOptionKeys('faultyStream: faults', faults, FAULT_KEYS)
  const { split = 'event', seed = 1, cutAs = 'end' } = faults
  if (split !== 'event' && split !== 'byte' && split !== 'random') refuse(`faults.split must be 'event', 'byte' or 'random', got ${describe(split)}`)
  if (cutAs !== 'end' && cutAs !== 'error' && cutAs !== 'stall') refuse(`faults.cutAs must be 'end', 'error' or 'stall', got ${describe(cutAs)}`)
  if (typeof seed !== 'number' || !Number.isInteger(seed)) refuse(`faults.seed must be a whole number, got ${describe(seed)}`)
  if (faults.duplicate !== undefined && !Array.isArray(faults.duplicate)) refuse(`faults.duplicate must be an array of event places, got ${describe(faults.duplicate)}`)
  faults.duplicate?.forEach((place, i) => count(`duplicate[${i}]`, place))
  for (const key of ['interleaveCalls', 'removeIds', 'removeIndexes'] as const) {
    if (faults[key] !== undefined && typeof faults[key] !== 'boolean') refuse(`faults.${key} must be a boolean, got ${describe(faults[key])}`)
  }
  count('cutAfterEvent', faults.cutAfterEvent)
  count('cutAtByte', faults.cutAtByte)
  return { ...faults, split, seed, cutAs }
}

/** Whether any fault works on whole events (and the body must be read into them). */
function changesEvents(faults: Faults): boolean {
  return faults.duplicate !== undefined || faults.interleaveCalls === true || faults.removeIds === true || faults.removeIndexes === true || faults.cutAfterEvent !== undefined
}

/** `events` with each run of consecutive call events dealt out one event per call in turn. */
function interleaved(events: BodyEvent[]): BodyEvent[] {
  const keys = new CallKeys()
  const out: BodyEvent[] = []
  let run: [number, BodyEvent][] = []
  const flush = () => {
    const queues = new Map<number, BodyEvent[]>()
    for (const [key, event] of run) queues.set(key, [...(queues.get(key) ?? []), event])
    while (queues.size > 0) {
      for (const [key, queue] of queues) {
        out.push(queue.shift()!)
        if (queue.length === 0) queues.delete(key)
      }
    }
    run = []
  }
  for (const event of events) {
    const key = keys.keyOf(event.value)
    if (key === undefined) {
      flush()
      out.push(event)
    } else {
      run.push([key, event])
    }
  }
  flush()
  return out
}

/** The text of `body` with every event-level fault applied. */
function faultedText(body: ParsedBody, faults: Faults): string {
  let events = body.events.map((event) => {
    if (!faults.removeIds && !faults.removeIndexes) return event
    // (a copy: the parsed value is changed in place)
    const value = event.value === undefined ? undefined : structuredClone(event.value)
    const ids = faults.removeIds === true && removeCallIds(value)
    const indexes = faults.removeIndexes === true && removeCallIndexes(value)
    return ids || indexes ? withValue(event, value, body.framing) : event
  })
  for (const place of faults.duplicate ?? []) {
    if (place >= body.events.length) refuse(`faults.duplicate names event ${place}, but the body has ${body.events.length} events (0 to ${body.events.length - 1})`)
  }
  const repeated = new Set(faults.duplicate ?? [])
  events = events.flatMap((event, place) => (repeated.has(place) ? [event, event] : [event]))
  if (faults.interleaveCalls) events = interleaved(events)
  if (faults.cutAfterEvent !== undefined) {
    if (faults.cutAfterEvent > events.length) refuse(`faults.cutAfterEvent is ${faults.cutAfterEvent}, but the body has ${events.length} events as sent`)
    // A body cut after an event has no end of its own (a JSON array's `]`).
    return `${body.head}${bodyText({ ...body, head: '', tail: '' }, events.slice(0, faults.cutAfterEvent))}`
  }
  return bodyText(body, events)
}

/** The chunks of `bytes`: one per event of `events`, one per byte, or at seeded random places. */
function chunksOf(bytes: Uint8Array, faults: ReturnType<typeof checkFaults>, eventLengths: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = []
  if (faults.split === 'byte') {
    for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1))
  } else if (faults.split === 'random') {
    const next = seededRandom(faults.seed)
    for (let i = 0; i < bytes.length; ) {
      const size = 1 + Math.floor(next() * 32)
      chunks.push(bytes.subarray(i, i + size))
      i += size
    }
  } else {
    let at = 0
    for (const length of eventLengths) {
      if (at >= bytes.length) break
      chunks.push(bytes.subarray(at, at + length))
      at += length
    }
    if (at < bytes.length) chunks.push(bytes.subarray(at))
  }
  return chunks
}

/** The byte lengths of the events of `bytes` as framed (a JSON array's brackets with its first and last element). */
function eventLengthsOf(bytes: Uint8Array): number[] {
  const encoder = new TextEncoder()
  const parsed = parseBody(new TextDecoder().decode(bytes))
  const pieces = parsed.framing === 'json-array'
    ? [parsed.head + (parsed.events[0]?.text ?? ''), ...parsed.events.slice(1).map((event) => parsed.separator + event.text), parsed.tail]
    : [parsed.head, ...parsed.events.map((event) => event.text), parsed.tail]
  return pieces.filter((piece) => piece !== '').map((piece) => encoder.encode(piece).length)
}

/** The bytes of `body` with its faults, and the byte lengths of its events as sent (for `split: 'event'`). */
function faultedBytes(bytes: Uint8Array, faults: ReturnType<typeof checkFaults>): { bytes: Uint8Array; eventLengths: number[] } {
  let out = bytes
  if (changesEvents(faults)) out = new TextEncoder().encode(faultedText(parseBody(new TextDecoder().decode(bytes)), faults))
  const eventLengths = faults.split === 'event' ? eventLengthsOf(out) : []
  if (faults.cutAtByte !== undefined) {
    if (faults.cutAtByte > out.length) refuse(`faults.cutAtByte is ${faults.cutAtByte}, but the body has ${out.length} bytes`)
    out = out.subarray(0, faults.cutAtByte)
  }
  return { bytes: out, eventLengths }
}

/** The bytes of a body given to faultyStream. */
async function bytesOf(body: FaultyBody): Promise<Uint8Array> {
  if (typeof body === 'string') return new TextEncoder().encode(body)
  if (body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  const response = await body
  if (response === null || typeof response !== 'object' || typeof response.arrayBuffer !== 'function') {
    refuse(`body must be text, bytes or a fetch Response, got ${describe(response)}`)
  }
  return new Uint8Array(await response.arrayBuffer())
}

/**
 * `body` (text, bytes, or a fetch Response such as `scriptedModel` answers, or a promise of one)
 * delivered with `faults` as a ReadableStream of bytes that is also an async iterable: a model
 * answer for `run()` (`model: () => faultyStream(body, faults)`), or chunks to push into a
 * StreamDecoder. Event faults read the body back into its events (SSE blocks, NDJSON lines, a
 * JSON array's elements, or one whole response) and frame it again. A fault that names more than
 * the body holds (an event or byte past its end) fails the stream with a ToolwireError
 * VALIDATION_ERROR saying how much it holds; a bad fault option throws one at once.
 */
export function faultyStream(body: FaultyBody, faults?: Faults): FaultyStream {
  const checked = checkFaults(faults)
  if (!(typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer || (body !== null && typeof body === 'object'))) {
    refuse(`body must be text, bytes or a fetch Response, got ${describe(body)}`)
  }
  const cut = checked.cutAfterEvent !== undefined || checked.cutAtByte !== undefined
  let chunks: Uint8Array[] | undefined
  let next = 0
  let sent = 0
  const stream = new ReadableStream<Uint8Array>({
    async start() {
      const faulted = faultedBytes(await bytesOf(body), checked)
      chunks = chunksOf(faulted.bytes, checked, faulted.eventLengths)
    },
    pull(controller) {
      const all = chunks!
      if (next < all.length) {
        const chunk = all[next++]!
        sent += chunk.length
        controller.enqueue(chunk)
        return undefined
      }
      if (cut && checked.cutAs === 'error') controller.error(new Error(`faultyStream: the connection was cut after ${sent} bytes`))
      else if (cut && checked.cutAs === 'stall') return new Promise<void>(() => {})
      else controller.close()
      return undefined
    },
  })
  // (Node's ReadableStream is an async iterable)
  return stream as FaultyStream
}
