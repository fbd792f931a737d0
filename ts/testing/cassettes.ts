// Cassettes: a model's exchanges recorded to a folder (one file per request, named by the request's
// canonical hash) and replayed from it, so a run that once talked to a provider runs again offline
// and gets the very bytes it got then, a stream that broke included.

import { randomBytes } from 'node:crypto'
import { closeSync, writeFileSync } from 'node:fs'
import { mkdir, readdir, rename, rm } from 'node:fs/promises'
import { basename, join } from 'node:path'

import { ToolwireError, checkOptionKeys, describe, messageOf, ownOptions } from '../common.js'
import { hasMethod, isResponse } from '../run.js'
import type { ModelAnswer, ResponseModel, Wire } from '../types.js'
import { RunFileError, createNewFile, readRunFile, type FileWords } from '../run-files.js'
import { canonicalHash, canonicalJson, firstDifference, jsonValue, likeness, sortedKeys, type Difference } from './canonical.js'


/** One recorded exchange, as its file holds it. */
export interface Recording {
  /** The `key` the recording was made with (see {@link CassetteOptions}), when one was given. */
  key?: unknown
  /** The request body the model got, its keys in canonical order. */
  request: unknown
  response: {
    /** The HTTP status: 200 to 599, as a fetch Response has one. */
    status: number
    /** The answer's `content-type`, when it had one. */
    contentType?: string
    /** The body as text, when it is UTF-8... */
    body?: string
    /** ...else as base64. */
    bodyBase64?: string
    /** The message of the error the body's stream failed with, after the bytes above. */
    error?: string
  }
}

/** Options of {@link recordModel} and {@link replayModel}. */
export interface CassetteOptions {
  /**
   * A JSON value mixed into each request's hash and kept in its recording: what the wrapped
   * model adds to the request that the request does not show, such as the model name and
   * settings a preset sends (`{ model: 'gpt-4o', max_tokens: 1024 }`). A replay with another
   * key finds none of the recordings made with this one.
   */
  key?: unknown
}

/** The keys of a recording file, of its response, and of the options. */
const RECORDING_KEYS = ['key', 'request', 'response']
const RESPONSE_KEYS = ['status', 'contentType', 'body', 'bodyBase64', 'error']
const OPTION_KEYS = ['key']

/** The statuses a fetch Response has no body with. */
const NULL_BODY_STATUSES = [204, 205, 304]

/**
 * The form of an id the decoder makes for a call its provider sent without one (Gemini 2 sends
 * none): `call_` and 24 hex digits, new on every run (toolwire_core::wire::turn::generate_call_id).
 */
const GENERATED_ID = /^call_[0-9a-f]{24}$/

/** A JSON value as JSON.parse makes it. */
type Json = ReturnType<typeof jsonValue>
type JsonObject = { [key: string]: Json }

/** Whether `value` is a JSON object (not an array, not null). */
function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * `value` with each object of its array under `key` mapped by `map` (a missing key or an array
 * of other items left as it is): `under(message, 'tool_calls', ...)`.
 */
function under(value: JsonObject, key: string, map: (item: JsonObject) => JsonObject): JsonObject {
  const items = value[key]
  if (!Array.isArray(items)) return value
  return { ...value, [key]: items.map((item) => (isObject(item) ? map(item) : item)) }
}

/**
 * `request` as cassettes key it: each call id the decoder made (see {@link GENERATED_ID}) in
 * one of the places a request holds call ids replaced by `call_generated_<n>`, numbered in the
 * order of the history (a call's id and its result's the same number), so a run replayed, whose
 * decoder makes other ids, asks what the recorded run asked. The places, each wire's: OpenAI
 * Chat's and Mistral's `messages[].tool_calls[].id` and `messages[].tool_call_id`; Anthropic's
 * `messages[].content[]` `tool_use` `id` and `tool_use_id`; the Responses `input[].call_id`;
 * Gemini's `contents[].parts[].functionCall.id` and `.functionResponse.id`. Anywhere else (a
 * message's text, a tool's arguments or result) a string of that form is content, kept as it is.
 */
export function requestKey(request: Json): Json {
  if (!isObject(request)) return request
  const numbers = new Map<string, string>()
  const id = (value: JsonObject, key: string): JsonObject => {
    const held = value[key]
    if (typeof held !== 'string' || !GENERATED_ID.test(held)) return value
    if (!numbers.has(held)) numbers.set(held, `call_generated_${numbers.size + 1}`)
    return { ...value, [key]: numbers.get(held)! }
  }
  const block = (item: JsonObject): JsonObject => id(item.type === 'tool_use' ? id(item, 'id') : item, 'tool_use_id')
  const message = (item: JsonObject): JsonObject => under(id(under(item, 'tool_calls', (call) => id(call, 'id')), 'tool_call_id'), 'content', block)
  const part = (item: JsonObject): JsonObject => {
    let out = item
    for (const key of ['functionCall', 'functionResponse']) if (isObject(out[key])) out = { ...out, [key]: id(out[key], 'id') }
    return out
  }
  let key = under(request, 'messages', message)
  key = under(key, 'input', (item) => id(item, 'call_id'))
  return under(key, 'contents', (content) => under(content, 'parts', part))
}

/** What is hashed for `request` under `key`: the request alone without a key, else both. */
function hashed(key: Json | undefined, request: Json): Json {
  return key === undefined ? request : [key, request]
}

/** The file of the exchange whose request has `hash`. */
function fileOf(dir: string, hash: string): string {
  return join(dir, `${hash}.json`)
}

/** How a recording file that is a symlink, a directory or a FIFO is refused (see readRunFile). */
const RECORDING_FILE: FileWords = { link: "a recording is never read through a link: what it points to is no recording of the folder's, and nothing of it is read", noun: 'a recording' }

/**
 * Writes `text` as recording `file` of `folder` (created when missing) at once: into a new
 * temporary file of the folder (created exclusively, never through a symlink; its mode as the
 * umask leaves 644), then renamed over `file`. A reader sees the old recording or the new one,
 * never half of one; two recorders of one request leave one whole recording (the last renamed);
 * and a symlink at `file` is replaced, its target never written.
 */
async function writeRecording(folder: string, file: string, text: string): Promise<void> {
  await mkdir(folder, { recursive: true })
  // (a dot file ending in .tmp: never one of the folder's `.json` recordings)
  const temporary = join(folder, `.${basename(file)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`)
  const { fd } = createNewFile(temporary, 0o644, false)
  try {
    try {
      writeFileSync(fd, text)
    } finally {
      closeSync(fd)
    }
    await rename(temporary, file)
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {})
    throw error
  }
}

/**
 * The text of recording file `file`: read only when it is a regular file reached by no symlink
 * (a RunFileError naming it and what it is else, nothing of a link's target read).
 */
function recordingText(file: string): string {
  return readRunFile(file, RECORDING_FILE).toString('utf8')
}

/** The recording's response for `bytes`: as text when the bytes are UTF-8, else as base64. */
function responseRecord(status: number, contentType: string | null, bytes: Uint8Array, error?: unknown): Recording['response'] {
  const response: Recording['response'] = { status }
  if (contentType !== null) response.contentType = contentType
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes)
  // (text only when it holds the very bytes; a body with no bytes holds neither)
  if (bytes.byteLength > 0) {
    if (Buffer.from(text, 'utf8').equals(bytes)) response.body = text
    else response.bodyBase64 = Buffer.from(bytes).toString('base64')
  }
  if (error !== undefined) response.error = messageOf(error)
  return response
}

/** The headers of a response of `contentType`. */
function headersOf(contentType: string | undefined): Record<string, string> {
  return contentType === undefined ? {} : { 'content-type': contentType }
}

/** A body of `bytes` that then fails with `error`. */
function failingBody(bytes: Uint8Array, error: Error): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes)
    },
    pull(controller) {
      controller.error(error)
    },
  })
}

/** A Response answering as `recording` recorded: its bytes, then its error when it has one. */
function responseOf(recording: Recording): Response {
  const { status, contentType, body, bodyBase64, error } = recording.response
  const headers = headersOf(contentType)
  if (NULL_BODY_STATUSES.includes(status)) return new Response(null, { status, headers })
  const bytes = body !== undefined ? Buffer.from(body, 'utf8') : Buffer.from(bodyBase64 ?? '', 'base64')
  return new Response(error === undefined ? bytes : failingBody(bytes, new Error(error)), { status, headers })
}

/** Checks the folder argument of `where`. */
function checkDir(where: string, dir: unknown): string {
  if (typeof dir !== 'string' || dir === '') throw new TypeError(`${where}: dir must be a non-empty path, got ${describe(dir)}`)
  return dir
}

/** The key of the options of `where`, as a JSON value (undefined: none). */
function checkOptions(where: string, raw: CassetteOptions | undefined): Json | undefined {
  if (raw === undefined) return undefined
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new TypeError(`${where}: options must be an object, got ${describe(raw)}`)
  const options = ownOptions(raw)
  checkOptionKeys(`${where}: options`, options, OPTION_KEYS)
  return options.key === undefined ? undefined : jsonValue(`${where}: options.key`, options.key)
}

/** A source of an answer's items: the next one, and giving the rest up. */
interface Items {
  next(): Promise<IteratorResult<unknown>>
  stop(): void
}

/** The items of a body: a ReadableStream's chunks, an (async) iterable's items. */
function itemsOf(body: object): Items {
  if (hasMethod(body, 'getReader')) {
    const reader = (body as ReadableStream<unknown>).getReader()
    return { next: () => reader.read() as Promise<IteratorResult<unknown>>, stop: () => void reader.cancel().catch(() => {}) }
  }
  const iterator = hasMethod(body, Symbol.asyncIterator) ? (body as AsyncIterable<unknown>)[Symbol.asyncIterator]() : (body as Iterable<unknown>)[Symbol.iterator]()
  return {
    next: async () => iterator.next(),
    stop: () => {
      try {
        Promise.resolve(iterator.return?.()).catch(() => {})
      } catch {}
    },
  }
}

/** An item of an answer as bytes: text as UTF-8, bytes as they are, a chunk object as an NDJSON line. */
function bytesOf(item: unknown): Uint8Array {
  if (typeof item === 'string') return new TextEncoder().encode(item)
  if (item instanceof Uint8Array) return item
  if (item instanceof ArrayBuffer) return new Uint8Array(item)
  return new TextEncoder().encode(`${JSON.stringify(item)}\n`)
}

/** Whether an item is a chunk object (an SDK stream's), not text or bytes. */
function isChunkObject(item: unknown): boolean {
  return typeof item !== 'string' && !(item instanceof Uint8Array) && !(item instanceof ArrayBuffer)
}

/** An answer as recordModel passes it on: status, content type, and its body's items (none: no body) or its whole bytes. */
interface Answer {
  status: number
  contentType: string | null
  items: Items | undefined
  whole?: Uint8Array
  /** The first item, read ahead (an SDK stream's first chunk says its content type). */
  first?: IteratorResult<unknown>
}

/**
 * The status, content type and body of a model's answer: a Response's; a stream's or iterable's
 * items (an SDK stream's chunk objects as NDJSON, their content type said by the first); a whole
 * answer's text or bytes, or an SDK response object as its JSON.
 */
async function answerOf(answer: unknown): Promise<Answer> {
  const whole = (bytes: Uint8Array, contentType: string | null): Answer => ({ status: 200, contentType, items: undefined, whole: bytes })
  if (isResponse(answer)) {
    const { status } = answer
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new ToolwireError('VALIDATION_ERROR', `recordModel: the model answered a Response of status ${describe(status)}, which no Response can be made with again (a fetch Response has a status from 200 to 599)`)
    }
    return { status, contentType: answer.headers.get('content-type'), items: answer.body === null ? undefined : itemsOf(answer.body) }
  }
  if (typeof answer === 'string') return whole(new TextEncoder().encode(answer), null)
  if (answer instanceof Uint8Array) return whole(answer, null)
  if (answer instanceof ArrayBuffer) return whole(new Uint8Array(answer), null)
  if (answer !== null && typeof answer === 'object') {
    if (hasMethod(answer, 'getReader') || hasMethod(answer, Symbol.asyncIterator) || hasMethod(answer, Symbol.iterator)) {
      const items = itemsOf(answer)
      let first: IteratorResult<unknown>
      try {
        first = await items.next()
      } catch (error) {
        // (the stream failed before its first item: the failure is passed on as the body's)
        return { status: 200, contentType: null, items: { next: () => Promise.reject(error), stop: () => {} } }
      }
      return { status: 200, contentType: !first.done && isChunkObject(first.value) ? 'application/x-ndjson' : null, items, first }
    }
    return whole(new TextEncoder().encode(JSON.stringify(answer)), 'application/json')
  }
  throw new TypeError(`recordModel: the model answered ${describe(answer)}, which is no answer run() takes`)
}

/**
 * Wraps `model` so that each exchange is recorded under `dir` (created when missing): one file
 * per request, `<hash>.json`, named by the SHA-256 of the request's canonical JSON (its
 * messages, tools and parameters, keys sorted: key order does not matter; call ids the decoder
 * made, new on every run, numbered: see {@link requestKey}; `options.key` mixed in, see
 * {@link CassetteOptions}), holding the request and the whole response (status, content type,
 * body, and the error its stream failed with, if it failed). The wrapped model answers with a
 * Response streaming the model's bytes as they come, so a run sees what it would see without the
 * recording: the same bytes, the same error after them. The file is written when the body ends
 * or fails, before the run sees that end (an error status's body is read whole first). A body
 * the run gives up (an abort) is recorded never. A request made again is recorded again (the
 * last answer kept). Each file is written whole, at once: a new temporary file renamed over its
 * name (see writeRecording), never written through a symlink.
 */
export function recordModel<Request>(
  model: (request: Request, options: { signal?: AbortSignal }) => Promise<ModelAnswer> | ModelAnswer,
  dir: string,
  options?: CassetteOptions,
): (request: Request, options?: { signal?: AbortSignal }) => Promise<Response> {
  if (typeof model !== 'function') throw new TypeError(`recordModel: model must be a function, got ${describe(model)}`)
  const folder = checkDir('recordModel', dir)
  const key = checkOptions('recordModel', options)
  return async (request, callOptions = {}) => {
    const value = jsonValue('recordModel: the request', request)
    const answer = await answerOf(await model(request, callOptions))
    const file = fileOf(folder, canonicalHash(hashed(key, requestKey(value))))
    const save = async (parts: Uint8Array[], error?: unknown): Promise<void> => {
      const recording: Recording = { ...(key === undefined ? {} : { key }), request: sortedKeys(value), response: responseRecord(answer.status, answer.contentType, Buffer.concat(parts), error) }
      await writeRecording(folder, file, `${JSON.stringify(recording, null, 2)}\n`)
    }
    const headers = headersOf(answer.contentType ?? undefined)
    const { items } = answer
    if (answer.whole !== undefined) {
      await save([answer.whole])
      return new Response(Buffer.from(answer.whole), { status: answer.status, headers })
    }
    if (items === undefined || NULL_BODY_STATUSES.includes(answer.status)) {
      items?.stop()
      await save([])
      return new Response(null, { status: answer.status, headers })
    }
    const parts: Uint8Array[] = []
    let pending = answer.first
    // An error status: its body read whole first, as before any run reads it, then answered.
    if (answer.status >= 300) {
      let failure: unknown
      try {
        for (let next = pending ?? (await items.next()); !next.done; next = await items.next()) parts.push(bytesOf(next.value))
      } catch (error) {
        failure = error ?? new Error('the stream failed')
      }
      await save(parts, failure)
      const bytes = Buffer.concat(parts)
      return new Response(failure === undefined ? bytes : failingBody(bytes, failure instanceof Error ? failure : new Error(messageOf(failure))), { status: answer.status, headers })
    }
    let given = false
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let next: IteratorResult<unknown>
        try {
          next = pending ?? (await items.next())
          pending = undefined
        } catch (error) {
          // (given up, or aborted by the run's signal: nothing the provider said to record)
          if (given || callOptions.signal?.aborted) return controller.error(error)
          await save(parts, error ?? new Error('the stream failed')).then(() => controller.error(error), (failed: unknown) => controller.error(failed))
          return
        }
        if (given) return
        if (next.done) {
          await save(parts).then(() => controller.close(), (failed: unknown) => controller.error(failed))
          return
        }
        const bytes = bytesOf(next.value)
        parts.push(bytes)
        controller.enqueue(bytes)
      },
      cancel() {
        given = true
        items.stop()
      },
    })
    return new Response(body, { status: answer.status, headers })
  }
}

/** What is wrong with `value` as the recording in `file` (undefined: nothing), naming the key and the value. */
function recordingFault(value: unknown): string | undefined {
  const shown = (held: unknown): string => {
    if (typeof held !== 'string') return describe(held)
    const text = JSON.stringify(held)
    return text.length > 80 ? `${text.slice(0, 80)}…` : text
  }
  if (!isObject(value)) return `must be an object { request, response }, got ${describe(value)}`
  const unknown = Object.keys(value).find((name) => !RECORDING_KEYS.includes(name))
  if (unknown !== undefined) return `has unknown key ${JSON.stringify(unknown)} (a recording holds ${RECORDING_KEYS.join(', ')})`
  if (!isObject(value.request)) return `request must be the request body (an object), got ${describe(value.request)}`
  const response = value.response
  if (!isObject(response)) return `response must be an object { status, contentType?, body? }, got ${describe(response)}`
  const stray = Object.keys(response).find((name) => !RESPONSE_KEYS.includes(name))
  if (stray !== undefined) return `response has unknown key ${JSON.stringify(stray)} (a response holds ${RESPONSE_KEYS.join(', ')})`
  const { status, contentType, body, bodyBase64, error } = response
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
    return `response.status must be an HTTP status a fetch Response can have (a whole number from 200 to 599), got ${describe(status)}`
  }
  if (contentType !== undefined) {
    if (typeof contentType !== 'string') return `response.contentType must be a string, got ${describe(contentType)}`
    try {
      // (Headers refuses what no header can hold)
      void new Headers({ 'content-type': contentType })
    } catch {
      return `response.contentType must be a header value (no line break or NUL, no character past \\u00ff), got ${shown(contentType)}`
    }
  }
  for (const [name, held] of [['body', body], ['bodyBase64', bodyBase64], ['error', error]] as const) {
    if (held !== undefined && typeof held !== 'string') return `response.${name} must be a string, got ${describe(held)}`
  }
  if (body !== undefined && bodyBase64 !== undefined) return 'response holds both body and bodyBase64: keep the one the bytes are in'
  if (typeof bodyBase64 === 'string' && !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(bodyBase64)) {
    return `response.bodyBase64 must be base64, got ${shown(bodyBase64)}`
  }
  if (NULL_BODY_STATUSES.includes(status)) {
    for (const [name, held] of [['body', body], ['bodyBase64', bodyBase64], ['error', error]] as const) {
      if (held !== undefined && held !== '') return `response.${name} must be left out with status ${status}, which has no body, got ${shown(held)}`
    }
  }
  return undefined
}

/** The recording `text` holds, or what is wrong with it (`is not JSON: ...`, `response.status must be ...`). */
function parsed(text: string): Recording | string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return `is not JSON: ${messageOf(error)}`
  }
  try {
    return recordingFault(value) ?? (value as Recording)
  } catch (error) {
    // (a value nested too deeply for the stack, say)
    return `cannot be checked: ${messageOf(error)}`
  }
}

/** The recording `text` holds, `file` named; a ToolwireError VALIDATION_ERROR naming what is wrong. */
function recordingIn(file: string, text: string): Recording {
  const recording = parsed(text)
  if (typeof recording === 'string') throw new ToolwireError('VALIDATION_ERROR', `replayModel: the recording ${file} ${recording}`)
  return recording
}

/** Why file `file` of the folder cannot be read, in words after its name (a symlink, a directory, a permission). */
function unreadable(file: string, error: unknown): string {
  if (error instanceof RunFileError) return error.message.startsWith(`${file} `) ? error.message.slice(file.length + 1) : error.message
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'EISDIR') return 'is a directory, not a recording: refused'
  return `cannot be read: ${messageOf(error)}`
}

/** The `.json` files in `dir`, each a recording or what is wrong with it (the folder missing: none). */
async function recordingsIn(dir: string): Promise<{ recordings: [string, Recording][]; faults: string[] }> {
  let names: string[]
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { recordings: [], faults: [] }
    throw new ToolwireError('PRECONDITION_FAILED', `replayModel: the folder ${dir} cannot be read: ${messageOf(error)}`)
  }
  const recordings: [string, Recording][] = []
  const faults: string[] = []
  for (const name of names) {
    let text: string
    const file = join(dir, name)
    try {
      text = recordingText(file)
    } catch (error) {
      faults.push(`${name} ${unreadable(file, error)}`)
      continue
    }
    const recording = parsed(text)
    if (typeof recording === 'string') faults.push(`${name} ${recording}`)
    else recordings.push([name, recording])
  }
  return { recordings, faults }
}

/** A value quoted for an error: its JSON, cut to 80 characters; `nothing` for none. */
function quoted(value: unknown): string {
  if (value === undefined) return 'nothing'
  const text = JSON.stringify(value)
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

/** The files that are no recordings, for the end of an error: at most three named. */
function faultsNote(faults: string[]): string {
  if (faults.length === 0) return ''
  const named = faults.slice(0, 3).join('; ')
  const more = faults.length > 3 ? `; and ${faults.length - 3} more` : ''
  return ` (${faults.length === 1 ? 'a file is' : `${faults.length} files are`} no recording, left out: ${named}${more})`
}

/** Whether two keys are one (none and none are). */
function sameKey(a: unknown, b: unknown): boolean {
  return a === undefined || b === undefined ? a === b : canonicalJson(a as Json) === canonicalJson(b as Json)
}

/** The error of a request with no recording in `dir`: naming the nearest and where they differ. */
async function missing(dir: string, hash: string, key: Json | undefined, request: Json): Promise<ToolwireError> {
  const where = `replayModel: no recording in ${dir} of this request (${hash}.json)`
  const { recordings, faults } = await recordingsIn(dir)
  if (recordings.length === 0) return new ToolwireError('NOT_FOUND', `${where}: the folder holds no recordings (record them with recordModel(model, dir))${faultsNote(faults)}`)
  // (the nearest: one of the same key if any, then the most alike request)
  // (each recording compared, and its difference found, within a try: one nested too deeply for
  // the stack is named as a file left out, never the error of every miss)
  let best: { name: string; recording: Recording; sameKey: boolean; score: number; difference: Difference | undefined } | undefined
  let compared = 0
  for (const [name, recording] of recordings) {
    try {
      const same = sameKey(key, recording.key)
      const recorded = requestKey(recording.request as Json)
      const score = likeness(request, recorded)
      if (best === undefined || (same && !best.sameKey) || (same === best.sameKey && score > best.score)) {
        best = { name, recording, sameKey: same, score, difference: firstDifference(request, recorded) }
      }
      compared += 1
    } catch (error) {
      faults.push(`${name} cannot be compared with the request: ${messageOf(error)}`)
    }
  }
  if (best === undefined) return new ToolwireError('NOT_FOUND', `${where}: the folder holds no recording it can compare with it${faultsNote(faults)}`)
  const nearest = best
  const difference = nearest.difference
  const at: string[] = []
  if (!nearest.sameKey) at.push(`it was recorded with key ${quoted(nearest.recording.key)}, this replay has ${quoted(key)}`)
  if (difference !== undefined) at.push(`they first differ at ${difference.path}: the request has ${quoted(difference.left)}, the recording ${quoted(difference.right)}`)
  if (at.length === 0) at.push('they hold the same request (was the file renamed?)')
  return new ToolwireError('NOT_FOUND', `${where}: the nearest of ${compared} is ${nearest.name} (${Math.round(nearest.score * 100)}% alike); ${at.join('; ')}${faultsNote(faults)}`)
}

/**
 * A model answering each request with what `dir` recorded for it (see {@link recordModel}; the
 * same `options.key`): a Response of the recorded status, content type and body (none for 204,
 * 205 and 304), its stream failing after the body when the recorded one failed, found by the
 * request's canonical hash. The recording is checked when read: one that is not JSON or not a
 * recording (a status no Response can have, a content type no header can hold, a body that is
 * not text) rejects with a ToolwireError VALIDATION_ERROR naming the file, the key and the
 * value; one that cannot be read, PRECONDITION_FAILED (a symlink or anything but a regular file
 * at its name too, refused by name, nothing of its target read). A request with no recording rejects with
 * NOT_FOUND naming the nearest recording (one of the same key, sharing the most of the
 * request's values, path by path) and the first JSON path where the two differ, with what each
 * holds there; the folder's `.json` files that are no recordings are left out of that search
 * and named.
 */
export function replayModel<W extends Wire = Wire>(dir: string, options?: CassetteOptions): ResponseModel<W> {
  const folder = checkDir('replayModel', dir)
  const key = checkOptions('replayModel', options)
  return async (request) => {
    const value = requestKey(jsonValue('replayModel: the request', request))
    const hash = canonicalHash(hashed(key, value))
    const file = fileOf(folder, hash)
    let text: string
    try {
      text = recordingText(file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw await missing(folder, hash, key, value)
      throw new ToolwireError('PRECONDITION_FAILED', `replayModel: the recording ${file} ${unreadable(file, error)}`)
    }
    return responseOf(recordingIn(file, text))
  }
}
