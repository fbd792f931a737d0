// The suites' scripted model, written over the public toolkit (toolwire/testing): each turn is
// written here as text and calls whose arguments are JSON text (`args`), encoded by
// scriptedBody/scriptedModel as each wire sends it. What this file adds: the compact
// `{ model, requests }` form the suites destructure, and answers in the shapes other than a fetch
// Response that run() takes (a bare ReadableStream, string items, SDK chunk objects).

import type { Wire } from '../dist/index.js'
import { scriptedBody, scriptedModel as publicScriptedModel } from '../dist/testing/index.js'
import type { ScriptedTurn as PublicTurn } from '../dist/testing/index.js'

export interface ScriptedCall {
  id: string
  name: string
  /** The arguments' JSON text as the model writes it (may be invalid). */
  args: string
}

export interface ScriptedTurn {
  text?: string
  calls?: ScriptedCall[]
  /** `length`: the model ran out of tokens. */
  stop?: 'stop' | 'length'
}

/** The turn as the public toolkit takes it. */
function toPublic(turn: ScriptedTurn): PublicTurn {
  return { ...turn, calls: turn.calls?.map(({ id, name, args }) => ({ id, name, arguments: args })) }
}

/** The response body of `turn` on `wire` (SSE). */
export function body(wire: Wire, turn: ScriptedTurn): string {
  return scriptedBody(wire, toPublic(turn))
}

/**
 * The whole (non-streamed) response of `turn` on `wire`: what a server that ignores
 * `stream: true` answers. Decoding it must give the turn its stream gives.
 */
export function whole(wire: Wire, turn: ScriptedTurn): object {
  return JSON.parse(scriptedBody(wire, toPublic(turn), { format: 'whole' }))
}

/** The SDK chunk objects of `turn` on `wire`: each event's data, parsed (`[DONE]` left out). */
export function chunks(wire: Wire, turn: ScriptedTurn): object[] {
  return scriptedBody(wire, toPublic(turn), { format: 'ndjson' })
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))
}

/**
 * How a scripted model answers: a fetch `Response`, a bare `ReadableStream` of bytes, an async
 * iterable of body strings, an async iterable of SDK chunk objects, or a fetch `Response` of
 * the whole JSON response (a server that ignored `stream: true`).
 */
export type AnswerForm = 'response' | 'stream' | 'strings' | 'chunks' | 'whole'

async function* each<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item
}

/** The answer to `turn` on `wire` in `form`. */
export function answer(wire: Wire, turn: ScriptedTurn, form: AnswerForm = 'response') {
  switch (form) {
    case 'response':
    case 'whole':
      return publicScriptedModel(wire, [toPublic(turn)], { format: form === 'whole' ? 'whole' : 'sse' })({} as never)
    case 'stream':
      return new Response(body(wire, turn)).body!
    case 'strings': {
      const text = body(wire, turn)
      const pieces: string[] = []
      for (let i = 0; i < text.length; i += 23) pieces.push(text.slice(i, i + 23))
      return each(pieces)
    }
    case 'chunks':
      return each(chunks(wire, turn))
  }
}

/**
 * A model that answers each call with the next turn of the script (as a fetch Response, unless
 * `form` says otherwise), and records the requests it got.
 */
export function scriptedModel(wire: Wire, turns: ScriptedTurn[], form: AnswerForm = 'response') {
  if (form === 'response' || form === 'whole') {
    const model = publicScriptedModel(wire, turns.map(toPublic), { format: form === 'whole' ? 'whole' : 'sse' })
    return { model: model as (request: any) => Promise<Response>, requests: model.requests as any[] }
  }
  const requests: any[] = []
  const model = async (request: any) => {
    requests.push(structuredClone(request))
    const turn = turns[requests.length - 1]
    if (turn === undefined) throw new Error(`the script has no turn ${requests.length}`)
    return answer(wire, turn, form)
  }
  return { model, requests }
}
