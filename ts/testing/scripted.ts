// A scripted model for run(): each model call answered with the next turn of a script, encoded
// as the wire's real bytes, and every request it got kept for the test to check.

import { ToolwireError, checkOptionKeys, checkWire, describe, ownOptions } from '../common.js'
import type { ModelRequest, Wire } from '../types.js'
import { ANSWER_FORMATS, CONTENT_TYPES, framedPieces, wholeText } from './framing.js'
import type { AnswerFormat } from './framing.js'
import { planTurns } from './turns.js'
import type { PlannedTurn, ScriptedTurn } from './turns.js'
import { ENCODERS } from './wires/index.js'

/** Options of {@link scriptedModel} and {@link scriptedBody}. */
export interface ScriptedOptions {
  /** How the answer is framed (see {@link AnswerFormat}). Default `'sse'`. */
  format?: AnswerFormat
  /** The model named in the answers. Default: one of the wire's (`gpt-4o-mini-2024-07-18`, `claude-sonnet-4-5-20250929`, ...). */
  model?: string
}

/** The keys of {@link ScriptedOptions}. */
const OPTION_KEYS = ['format', 'model']

/** A model function for `run()` answering from a script; `requests` holds a copy of each request it got, in order. */
export interface ScriptedModel<W extends Wire = Wire> {
  (request: ModelRequest<W>, options?: { signal?: AbortSignal }): Promise<Response>
  /** A copy of each request body the model got (taken when it got it), in order. */
  readonly requests: ModelRequest<W>[]
}

/** The checked options: the format and the model named. */
function checkOptions(where: string, wire: Wire, raw: ScriptedOptions | undefined): { format: AnswerFormat; model: string } {
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
    throw new TypeError(`${where}: options must be an object, got ${describe(raw)}`)
  }
  const options = ownOptions(raw ?? {})
  checkOptionKeys(`${where}: options`, options, OPTION_KEYS)
  const { format = 'sse', model = ENCODERS[wire].model } = options
  if (!ANSWER_FORMATS.includes(format)) {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: options.format must be one of ${ANSWER_FORMATS.map((f) => `'${f}'`).join(', ')}, got ${describe(format)}`)
  }
  if (typeof model !== 'string' || model === '') throw new ToolwireError('VALIDATION_ERROR', `${where}: options.model must be a non-empty string, got ${describe(model)}`)
  return { format, model }
}

/** The pieces of the body of `turn` on `wire`, as a server writes them. */
function bodyPieces(wire: Wire, turn: PlannedTurn, format: AnswerFormat, model: string): string[] {
  const encoder = ENCODERS[wire]
  if (format === 'whole') return [wholeText(wire, encoder.whole(turn, model))]
  return framedPieces(wire, encoder.stream(turn, model), format)
}

/**
 * The response body of `turn` on `wire`, as the provider sends it (SSE unless
 * `options.format` says otherwise): for a StreamDecoder, a fault ({@link faultyStream}) or a
 * server of your own. It is the first turn of a script (ids numbered from 1): for the turns of one
 * conversation, {@link scriptedBodies} numbers them through. Throws a ToolwireError
 * VALIDATION_ERROR naming an unknown wire, a bad option or what is wrong in the turn.
 */
export function scriptedBody(wire: Wire, turn: ScriptedTurn, options?: ScriptedOptions): string {
  const [body] = bodiesOf('scriptedBody', wire, [turn], options)
  return body!
}

/**
 * The response bodies of `turns` on `wire`, each as {@link scriptedModel} answers that turn: the
 * responses' ids and the calls' default ids numbered through the script, so no two bodies share
 * one (a framework merging messages by id keeps them apart). Errors as {@link scriptedBody}'s.
 */
export function scriptedBodies(wire: Wire, turns: ScriptedTurn[], options?: ScriptedOptions): string[] {
  return bodiesOf('scriptedBodies', wire, turns, options)
}

/** The bodies of `turns`, errors naming `where`. */
function bodiesOf(where: string, wire: Wire, turns: ScriptedTurn[], options: ScriptedOptions | undefined): string[] {
  checkWire(where, wire)
  const { format, model } = checkOptions(where, wire, options)
  return planTurns(where, wire, turns, format === 'whole').map((planned) => bodyPieces(wire, planned, format, model).join(''))
}

/** A Response streaming `pieces` (one chunk each), with `contentType`. */
function responseOf(pieces: string[], contentType: string): Response {
  const encoder = new TextEncoder()
  const chunks = pieces.map((piece) => encoder.encode(piece))
  let next = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]!)
      else controller.close()
    },
  })
  return new Response(body, { status: 200, headers: { 'content-type': contentType } })
}

/**
 * A model for `runtime.run({ wire, model })` that answers its n-th call with `turns[n - 1]`,
 * encoded as `wire` sends it (SSE, or `options.format`) in a fetch Response whose body
 * streams one event at a time. Call ids default to the wire's style, numbered through the
 * script. `model.requests` holds a copy of each request body it got. A call past the last
 * turn rejects with a ToolwireError LIMIT_EXCEEDED naming the count; the turns are checked
 * when the model is made (a ToolwireError VALIDATION_ERROR naming the turn, key and value).
 */
export function scriptedModel<W extends Wire>(wire: W, turns: ScriptedTurn[], options?: ScriptedOptions): ScriptedModel<W> {
  checkWire('scriptedModel', wire)
  const { format, model } = checkOptions('scriptedModel', wire, options)
  const planned = planTurns('scriptedModel', wire, turns, format === 'whole')
  const requests: ModelRequest<W>[] = []
  const answer = async (request: ModelRequest<W>): Promise<Response> => {
    requests.push(structuredClone(request))
    const turn = planned[requests.length - 1]
    if (turn === undefined) {
      throw new ToolwireError(
        'LIMIT_EXCEEDED',
        `scriptedModel: the script has ${planned.length} turn${planned.length === 1 ? '' : 's'}, and this is model call ${requests.length}: add a turn, or see why the run called the model again (model.requests holds each request)`,
      )
    }
    return responseOf(bodyPieces(wire, turn, format, model), CONTENT_TYPES[format])
  }
  return Object.defineProperty(answer, 'requests', { value: requests, enumerable: true }) as ScriptedModel<W>
}
