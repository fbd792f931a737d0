// Cassettes: a model's exchanges recorded to a folder (one file per request, named by the request's
// canonical hash) and replayed from it, so a run that once talked to a provider runs again offline
// and gets the very bytes it got then.

import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { ToolwireError, describe, messageOf } from '../common.js'
import { hasMethod, isResponse } from '../run.js'
import type { ModelAnswer, ResponseModel, Wire } from '../types.js'
import { canonicalHash, firstDifference, jsonValue, likeness, sortedKeys } from './canonical.js'


/** One recorded exchange, as its file holds it. */
export interface Recording {
  /** The request body the model got, its keys in canonical order. */
  request: unknown
  response: {
    status: number
    /** The answer's `content-type`, when it had one. */
    contentType?: string
    /** The body as text, when it is UTF-8... */
    body?: string
    /** ...else as base64. */
    bodyBase64?: string
  }
}

/** What a recorded answer was: its status, content type and bytes. */
interface Captured {
  status: number
  contentType: string | undefined
  bytes: Uint8Array
}

/** The bytes of `items` (an SDK stream's chunks as NDJSON lines, body pieces as they are) and whether any was a chunk object. */
async function collect(items: AsyncIterable<unknown> | Iterable<unknown>): Promise<{ bytes: Uint8Array; objects: boolean }> {
  const encoder = new TextEncoder()
  const parts: Uint8Array[] = []
  let objects = false
  for await (const item of items) {
    if (typeof item === 'string') parts.push(encoder.encode(item))
    else if (item instanceof Uint8Array) parts.push(item)
    else {
      objects = true
      parts.push(encoder.encode(`${JSON.stringify(item)}\n`))
    }
  }
  return { bytes: Buffer.concat(parts), objects }
}

/**
 * The whole of a model's answer as bytes: a Response's status, content type and body; a stream's
 * or iterable's bytes (an SDK stream's chunk objects as NDJSON); a whole answer's text or bytes,
 * or an SDK response object as its JSON.
 */
async function capture(answer: unknown): Promise<Captured> {
  if (isResponse(answer)) {
    return { status: answer.status, contentType: answer.headers.get('content-type') ?? undefined, bytes: new Uint8Array(await answer.arrayBuffer()) }
  }
  if (typeof answer === 'string') return { status: 200, contentType: undefined, bytes: new TextEncoder().encode(answer) }
  if (answer instanceof Uint8Array) return { status: 200, contentType: undefined, bytes: answer }
  if (answer instanceof ArrayBuffer) return { status: 200, contentType: undefined, bytes: new Uint8Array(answer) }
  if (answer !== null && typeof answer === 'object') {
    if (hasMethod(answer, Symbol.asyncIterator) || hasMethod(answer, Symbol.iterator)) {
      const { bytes, objects } = await collect(answer as AsyncIterable<unknown>)
      return { status: 200, contentType: objects ? 'application/x-ndjson' : undefined, bytes }
    }
    return { status: 200, contentType: 'application/json', bytes: new TextEncoder().encode(JSON.stringify(answer)) }
  }
  throw new TypeError(`recordModel: the model answered ${describe(answer)}, which is no answer run() takes`)
}

/**
 * The form of an id the decoder makes for a call its provider sent without one (Gemini 2 sends
 * none): `call_` and 24 hex digits, new on every run (toolwire_core::wire::turn::generate_call_id).
 */
const GENERATED_ID = /^call_[0-9a-f]{24}$/

/** A JSON value as JSON.parse makes it. */
type Json = ReturnType<typeof jsonValue>

/**
 * `request` as cassettes key it: each generated call id (see {@link GENERATED_ID}) replaced by
 * `call_generated_<n>`, numbered in order of first appearance, so a run replayed (whose decoder
 * makes other ids) asks what the recorded run asked.
 */
export function requestKey(request: Json): Json {
  const numbers = new Map<string, string>()
  const walk = (value: Json): Json => {
    if (typeof value === 'string' && GENERATED_ID.test(value)) {
      if (!numbers.has(value)) numbers.set(value, `call_generated_${numbers.size + 1}`)
      return numbers.get(value)!
    }
    if (Array.isArray(value)) return value.map(walk)
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]))
    return value
  }
  return walk(request)
}

/** The file of the exchange whose request has `hash`. */
function fileOf(dir: string, hash: string): string {
  return join(dir, `${hash}.json`)
}

/** The recording of `captured` for `request`. */
function recordingOf(request: unknown, captured: Captured): Recording {
  const response: Recording['response'] = { status: captured.status }
  if (captured.contentType !== undefined) response.contentType = captured.contentType
  const text = new TextDecoder('utf-8', { fatal: false }).decode(captured.bytes)
  // (text only when it holds the very bytes)
  if (Buffer.from(text, 'utf8').equals(captured.bytes)) response.body = text
  else response.bodyBase64 = Buffer.from(captured.bytes).toString('base64')
  return { request, response }
}

/** A Response answering as `recording` recorded. */
function responseOf(recording: Recording): Response {
  const { status, contentType, body, bodyBase64 } = recording.response
  const bytes = body !== undefined ? Buffer.from(body, 'utf8') : Buffer.from(bodyBase64 ?? '', 'base64')
  // (a status with no body of its own, 204 or 304, takes none)
  return new Response(status === 204 || status === 304 ? null : bytes, { status, headers: contentType === undefined ? {} : { 'content-type': contentType } })
}

/** Checks the folder argument of `where`. */
function checkDir(where: string, dir: unknown): string {
  if (typeof dir !== 'string' || dir === '') throw new TypeError(`${where}: dir must be a non-empty path, got ${describe(dir)}`)
  return dir
}

/**
 * Wraps `model` so that each exchange is recorded under `dir` (created when missing): one file
 * per request, `<hash>.json`, named by the SHA-256 of the request's canonical JSON (its
 * messages, tools and parameters, keys sorted: key order does not matter; call ids the decoder
 * made, new on every run, numbered: see {@link requestKey}), holding the request
 * and the whole response (status, content type, body). The wrapped model answers with a
 * Response of the same bytes, after the model's whole body arrived. A request made again is
 * recorded again (the last answer kept).
 */
export function recordModel<Request>(model: (request: Request, options: { signal?: AbortSignal }) => Promise<ModelAnswer> | ModelAnswer, dir: string): (request: Request, options?: { signal?: AbortSignal }) => Promise<Response> {
  if (typeof model !== 'function') throw new TypeError(`recordModel: model must be a function, got ${describe(model)}`)
  const folder = checkDir('recordModel', dir)
  return async (request, options = {}) => {
    const value = jsonValue('recordModel: the request', request)
    const captured = await capture(await model(request, options))
    await mkdir(folder, { recursive: true })
    const recording = recordingOf(sortedKeys(value), captured)
    await writeFile(fileOf(folder, canonicalHash(requestKey(value))), `${JSON.stringify(recording, null, 2)}\n`)
    return responseOf(recording)
  }
}

/** The recordings in `dir`, by file name (the folder missing: none). */
async function recordingsIn(dir: string): Promise<[string, Recording][]> {
  let names: string[]
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  return Promise.all(names.map(async (name): Promise<[string, Recording]> => [name, JSON.parse(await readFile(join(dir, name), 'utf8')) as Recording]))
}

/** A value quoted for an error: its JSON, cut to 80 characters; `nothing` for none. */
function quoted(value: unknown): string {
  if (value === undefined) return 'nothing'
  const text = JSON.stringify(value)
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

/** The error of a request with no recording in `dir`: naming the nearest and where they differ. */
async function missing(dir: string, hash: string, request: Json): Promise<ToolwireError> {
  const where = `replayModel: no recording in ${dir} of this request (${hash}.json)`
  const recordings = await recordingsIn(dir)
  if (recordings.length === 0) return new ToolwireError('NOT_FOUND', `${where}: the folder holds no recordings (record them with recordModel(model, dir))`)
  let best: { name: string; recording: Recording; score: number } | undefined
  for (const [name, recording] of recordings) {
    const score = likeness(request, requestKey(recording.request as Json))
    if (best === undefined || score > best.score) best = { name, recording, score }
  }
  const nearest = best!
  const difference = firstDifference(request, requestKey(nearest.recording.request as Json))
  const at = difference === undefined
    ? 'they hold the same request (was the file renamed?)'
    : `they first differ at ${difference.path}: the request has ${quoted(difference.left)}, the recording ${quoted(difference.right)}`
  return new ToolwireError('NOT_FOUND', `${where}: the nearest of ${recordings.length} is ${nearest.name} (${Math.round(nearest.score * 100)}% alike); ${at}`)
}

/**
 * A model answering each request with what `dir` recorded for it (see {@link recordModel}): a
 * Response of the recorded status, content type and body, found by the request's canonical hash.
 * A request with no recording rejects with a ToolwireError NOT_FOUND naming the nearest
 * recording (the one sharing the most of the request's values, path by path) and the first JSON
 * path where the two differ, with what each holds there.
 */
export function replayModel<W extends Wire = Wire>(dir: string): ResponseModel<W> {
  const folder = checkDir('replayModel', dir)
  return async (request) => {
    const value = requestKey(jsonValue('replayModel: the request', request))
    const hash = canonicalHash(value)
    let text: string
    try {
      text = await readFile(fileOf(folder, hash), 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw await missing(folder, hash, value)
      throw new ToolwireError('PRECONDITION_FAILED', `replayModel: the recording ${fileOf(folder, hash)} cannot be read: ${messageOf(error)}`)
    }
    return responseOf(JSON.parse(text) as Recording)
  }
}
