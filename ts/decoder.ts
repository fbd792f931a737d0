// StreamDecoder: one streamed provider response decoded into assembled tool calls, text,
// thinking and a stop reason. Framing and assembly run in Rust; events cross as one JSON text
// per push.

import type * as Native from '../native.js'
import { loadBinding } from './binding.js'
import { checkWire, describe, jsonText, native, own, ownOptions } from './common.js'
import type { AssembledTurn, DecoderOptions, StreamEvent, Wire } from './types.js'

const { NativeDecoder }: typeof Native = loadBinding()

/** A container of partial arguments being filled in, by key or index. */
type Container = Record<string | number, unknown>

/**
 * The options objects of decoders made by {@link scrubbingDecoder}, with the `sanitize`
 * settings (JSON text) their events are scrubbed with; not an option users can give.
 */
const scrubbing = new WeakMap<DecoderOptions, string>()

/**
 * Decodes one streamed provider response into assembled tool calls, text, thinking and a stop
 * reason, reporting each change as an event.
 */
export class StreamDecoder {
  #native: Native.NativeDecoder
  /** `partial: 'object'`: each call's partial arguments as they stand, by the call's index. */
  #objects: unknown[] | null

  /**
   * A decoder for one response of `wire`. Throws a ToolwireError VALIDATION_ERROR naming an
   * unknown wire (and the closest one) or a bad option, a TypeError when `options` is no object.
   */
  constructor(wire: Wire, options: DecoderOptions = {}) {
    checkWire('StreamDecoder', wire)
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw new TypeError(`StreamDecoder: options must be an object, got ${describe(options)}`)
    }
    // (its own keys only, each read once, as the engine reads their JSON: see ownOptions)
    const given = ownOptions(options)
    const scrub = scrubbing.get(options)
    this.#native = native(() => new NativeDecoder(wire, JSON.stringify(given), scrub))
    this.#objects = given.partial === 'object' ? [] : null
  }

  /** Raw response body, split anywhere (SSE, Gemini's JSON array, NDJSON, one whole JSON response): bytes (Uint8Array, Buffer, ArrayBuffer) or text. */
  push(chunk: Uint8Array | ArrayBuffer | string): StreamEvent[] {
    let json: string
    if (typeof chunk === 'string') json = native(() => this.#native.pushText(chunk))
    else if (chunk instanceof Uint8Array) json = native(() => this.#native.pushBytes(chunk))
    else if (chunk instanceof ArrayBuffer) json = native(() => this.#native.pushBytes(new Uint8Array(chunk)))
    else throw new TypeError(`StreamDecoder.push: chunk must be a Uint8Array or a string, got ${describe(chunk)}`)
    return this.#events(json)
  }

  /** One parsed chunk as an SDK iterator yields it, or its JSON text. An object with no JSON form (a cycle, a BigInt) throws a ToolwireError VALIDATION_ERROR naming why. */
  pushEvent(event: object | string): StreamEvent[] {
    let text: string
    if (typeof event === 'string') text = event
    else {
      if (event === null || typeof event !== 'object') {
        throw new TypeError(`StreamDecoder.pushEvent: event must be an object or JSON text, got ${describe(event)}`)
      }
      text = jsonText('StreamDecoder.pushEvent: event', event)
    }
    return this.#events(native(() => this.#native.pushEvent(text)))
  }

  /**
   * Ends the body and returns the assembled turn. A stream that never sent its terminal event
   * was cut off: its open calls are incomplete. `turn.events` holds the events that ending
   * caused (the end of cut-off calls, an error, `done`).
   */
  finish(): AssembledTurn {
    const [events, turn] = JSON.parse(native(() => this.#native.finish())) as [StreamEvent[], AssembledTurn]
    turn.events = this.#objects ? this.#track(events, this.#objects) : events
    return turn
  }

  #events(json: string): StreamEvent[] {
    if (json === '[]') return [] // most chunks of a stream (pings, text-less deltas) change nothing visible
    const events = JSON.parse(json) as StreamEvent[]
    return this.#objects ? this.#track(events, this.#objects) : events
  }

  /** `partial: 'object'`: keeps each call's partial arguments up to date, in place. */
  #track(events: StreamEvent[], objects: unknown[]): StreamEvent[] {
    for (const event of events) {
      const partial = event.type === 'toolcall_delta' ? (own(event, 'partial') as typeof event.partial) : undefined
      if (event.type !== 'toolcall_delta' || partial === undefined) continue
      const { path } = partial
      // (the engine's own keys: `in` would find a key a polluted Object.prototype holds)
      const append = own(partial, 'append') as string | undefined
      const value = own(partial, 'value')
      if (path.length === 0) {
        objects[event.index] = append === undefined ? value : `${(objects[event.index] as string | undefined) ?? ''}${append}`
      } else {
        if (objects[event.index] === undefined) objects[event.index] = typeof path[0] === 'number' ? [] : {}
        let parent = objects[event.index] as Container
        // The model writes the keys: each is an own key, as JSON.parse makes it (`__proto__`
        // too), never one a prototype holds or a setter takes.
        for (let i = 0; i < path.length - 1; i++) {
          const step = path[i]!
          if (own(parent, step) === undefined) setOwn(parent, step, typeof path[i + 1] === 'number' ? [] : {})
          parent = own(parent, step) as Container
        }
        const key = path[path.length - 1]!
        setOwn(parent, key, append === undefined ? value : `${(own(parent, key) as string | undefined) ?? ''}${append}`)
      }
      event.object = objects[event.index]
    }
    return events
  }
}

/** Sets `container[key]` as an own data property, as JSON.parse does (`__proto__` included). */
function setOwn(container: Container, key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true })
  else container[key] = value
}

/**
 * A decoder whose events are scrubbed of secrets with the `sanitize` settings given (a
 * runtime's; the defaults when undefined), as the agent loop hands them to `onEvent`: whole
 * events as the audit log scrubs records, the deltas of each text (the answer, the thinking, a
 * call's arguments) as the text they add to, so a secret split across deltas is never handed on
 * in part (see `toolwire_core::wire::scrubbed`). The turn `finish()` returns is the model's own.
 */
export function scrubbingDecoder(wire: Wire, options: DecoderOptions, sanitize: unknown): StreamDecoder {
  const given: DecoderOptions = { ...options }
  scrubbing.set(given, sanitize === undefined || sanitize === null ? '' : jsonText('sanitize', sanitize))
  return new StreamDecoder(wire, given)
}
