// What every provider preset shares: its options read and checked once, when it is made; then,
// for each request run() hands it, the body and headers its provider requires, sent with fetch,
// tried again on a 408, 409, 429 or 5xx answer and on a network error, and a final failure
// turned into a ToolwireError naming the provider, the status and the start of the answer's body,
// never a secret the request sent.

import { ToolwireError, checkOptionKeys, describe, jsonText, messageOf, own, ownOptions } from '../common.js'
import { quotedErrorBody } from '../run.js'
import type { FetchFunction, ResponseModel, ModelPresetOptions, ModelRequest, Wire } from '../types.js'
import { retryPolicy, retryWaitMs, retryableStatus, waitUnlessAborted, type RetryPolicy } from './retry.js'

/** The keys every preset's options may hold (a provider may add its own). */
const PRESET_OPTIONS: readonly string[] = ['model', 'apiKey', 'baseURL', 'headers', 'fetch', 'body', 'retry']

/** What a preset knows of its provider: where to send, with which key and headers, and what the body adds. */
export interface Provider<W extends Wire, O extends ModelPresetOptions = ModelPresetOptions> {
  /** The preset as errors name it (`models.anthropic`). */
  preset: string
  /** The provider as errors name it (`Anthropic`); default, the origin of its base URL. */
  label?: string
  /** The wire its model function speaks. */
  wire: W
  /** The API's root when no `baseURL` is given; undefined makes `baseURL` required. */
  defaultBaseURL?: string
  /** The environment variable the provider's own SDK reads the base URL from (`OPENAI_BASE_URL`): over the default, under the option. */
  baseURLEnv?: string
  /** The environment variables the key is read from, in order; none: no key is needed. */
  keyEnv: readonly string[]
  /** The header the key is sent in (lower case); a caller's own `headers` holding it stand for the key. */
  keyHeader: string
  /** The header's value for a key (default the key itself; `Bearer <key>` for OpenAI's). */
  keyValue?: (apiKey: string) => string
  /** Headers the provider requires besides the key (`anthropic-version`), lower case. */
  headers?: Readonly<Record<string, string>>
  /** The provider's own option keys (Anthropic's `maxTokens`, `system`). */
  options?: readonly string[]
  /** The URL to POST to, for the base URL (no trailing slash) and the model. */
  url: (baseURL: string, model: string) => string
  /**
   * What the body holds besides the request: `model`, Anthropic's `max_tokens` and `system`.
   * Called once, when the preset is made: it checks the provider's own options (`where` names them).
   */
  fields: (options: O, where: string) => Record<string, unknown>
}

/** A preset's options, checked (see {@link settingsOf}). */
interface Settings {
  /** The preset, as errors name it. */
  where: string
  /** The provider, as errors name it. */
  label: string
  model: string
  apiKey: string | undefined
  url: string
  /** The caller's headers, names in lower case. */
  headers: Map<string, string>
  fetch: FetchFunction | undefined
  /** What the body holds before the request: the provider's fields. */
  fields: Record<string, unknown>
  /** What the body holds over the request: the caller's `body`. */
  extra: Record<string, unknown>
  retry: RetryPolicy
}

/**
 * The model function of `provider` with `options`: the options are checked now (a TypeError or a
 * VALIDATION_ERROR naming the one at fault); the key is looked up at each request.
 */
export function presetModel<W extends Wire, O extends ModelPresetOptions>(provider: Provider<W, O>, options: O): ResponseModel<W> {
  const settings = settingsOf(provider, options)
  return (request, callOptions) => send(provider, settings, request, callOptions)
}

/** `options` read by their own keys only (see ownOptions) and checked, naming `provider.preset` in errors. */
function settingsOf<W extends Wire, O extends ModelPresetOptions>(provider: Provider<W, O>, raw: O): Settings {
  const where = provider.preset
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new TypeError(`${where}: options must be an object with at least { model }, got ${describe(raw)}`)
  }
  const options = ownOptions(raw)
  checkOptionKeys(`${where}: options`, options, [...PRESET_OPTIONS, ...(provider.options ?? [])])
  const { model, apiKey, fetch } = options
  if (typeof model !== 'string' || model === '') {
    throw new TypeError(`${where}: options.model must be a non-empty string (the provider's model name), got ${describe(model)}`)
  }
  if (apiKey !== undefined && (typeof apiKey !== 'string' || apiKey === '')) {
    throw new TypeError(`${where}: options.apiKey must be a non-empty string, got ${describe(apiKey)}`)
  }
  if (apiKey !== undefined) checkHeaderValue(`${where}: options.apiKey`, apiKey, true)
  if (fetch !== undefined && typeof fetch !== 'function') {
    throw new TypeError(`${where}: options.fetch must be a function (url, init) => Promise<Response>, got ${describe(fetch)}`)
  }
  const baseURL = baseURLOf(where, options.baseURL, provider)
  return {
    where,
    label: provider.label ?? new URL(baseURL).origin,
    model,
    apiKey,
    url: provider.url(baseURL, model),
    headers: headersOf(where, options.headers),
    fetch,
    fields: provider.fields(options, where),
    extra: bodyOf(where, options.body),
    retry: retryPolicy(`${where}: options.retry`, options.retry),
  }
}

/**
 * The base URL: the option's, else the provider's environment variable's (read when the preset is
 * made), else the provider's default; trailing slashes dropped. One that is no absolute URL is
 * refused naming where it came from.
 */
function baseURLOf<W extends Wire, O extends ModelPresetOptions>(where: string, given: unknown, provider: Provider<W, O>): string {
  const fromEnv = provider.baseURLEnv === undefined ? undefined : own(process.env, provider.baseURLEnv)
  if (given === undefined && typeof fromEnv === 'string' && fromEnv !== '') return absoluteURL(`${where}: the environment's ${provider.baseURLEnv}`, fromEnv)
  if (given === undefined && provider.defaultBaseURL !== undefined) return provider.defaultBaseURL
  if (typeof given !== 'string') {
    const what = provider.defaultBaseURL === undefined ? "options.baseURL (the server's API root, such as http://127.0.0.1:8080/v1) is required" : 'options.baseURL must be a URL'
    throw new TypeError(`${where}: ${what}, got ${describe(given)}`)
  }
  return absoluteURL(`${where}: options.baseURL`, given)
}

/**
 * `url` without its trailing slashes, when it is an absolute URL without credentials; else a
 * TypeError naming `what` (a URL's password is never quoted: fetch refuses such a URL, and errors
 * would carry it).
 */
function absoluteURL(what: string, url: string): string {
  // (quoted with anything that may be a user and password masked: the URL is not yet known to be one)
  const quoted = describe(url.replace(/^([^/?#]*\/\/)?[^/?#@]*@/, (_all, scheme: string | undefined) => `${scheme ?? ''}***@`))
  if (!URL.canParse(url)) throw new TypeError(`${what} must be an absolute URL (http://host/...), got ${quoted}`)
  const parsed = new URL(url)
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`${what} must be an http:// or https:// URL, got ${quoted}`)
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new TypeError(`${what} must not hold credentials (user:password@ before ${parsed.host}): send them in options.headers (authorization)`)
  }
  return url.replace(/\/+$/, '')
}

/** The `headers` option as a map of lower-case names to values; one that is not a string is refused naming it. */
function headersOf(where: string, given: unknown): Map<string, string> {
  const headers = new Map<string, string>()
  if (given === undefined) return headers
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new TypeError(`${where}: options.headers must be an object of header names to values, got ${describe(given)}`)
  }
  // (a Headers or a Map, as fetch takes them, read by their entries; an object by its own keys)
  const own: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  if (given instanceof Headers || given instanceof Map) {
    for (const [name, value] of (given as Map<unknown, unknown>).entries()) {
      if (typeof name !== 'string') throw new TypeError(`${where}: options.headers holds a name that is no string: ${describe(name)}`)
      own[name] = value
    }
  } else Object.assign(own, ownOptions(given as Record<string, unknown>))
  for (const name of Object.keys(own)) {
    const value = own[name]
    const at = `${where}: options.headers[${JSON.stringify(name)}]`
    if (typeof value !== 'string') throw new TypeError(`${at} must be a string, got ${describe(value)}`)
    if (!HEADER_NAME.test(name)) throw new TypeError(`${at}: ${JSON.stringify(name)} is no header name (letters, digits and !#$%&'*+-.^_\`|~ only)`)
    checkHeaderValue(at, value, CREDENTIAL_HEADER.test(name))
    headers.set(name.toLowerCase(), value)
  }
  return headers
}

/** A header name as HTTP has it (a token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * Refuses, naming `where`, a header value fetch would refuse (a control character such as a line
 * break or a NUL, a character past U+00FF such as a pasted zero-width space): sent, it would fail before reaching the network,
 * never worth a retry. The character and its place are named, the value only when it is no
 * credential.
 */
function checkHeaderValue(where: string, value: string, secret: boolean): void {
  // (what a header value may hold: tabs, spaces, visible ASCII and U+0080 to U+00FF)
  const bad = /[^\t\x20-\x7e\x80-\xff]/u.exec(value)
  if (bad === null) return
  const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
  const quoted = secret ? '' : `: ${JSON.stringify(value.slice(0, 100))}`
  throw new TypeError(`${where} holds U+${code} at ${bad.index}, which no HTTP header may carry${quoted}`)
}

/** The `body` option: an object whose fields go into each request body (checked to have a JSON form now). */
function bodyOf(where: string, given: unknown): Record<string, unknown> {
  if (given === undefined) return {}
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new TypeError(`${where}: options.body must be an object of fields to add to each request body, got ${describe(given)}`)
  }
  const fields = ownOptions(given as Record<string, unknown>)
  jsonText(`${where}: options.body`, fields)
  return fields
}

/** The signal of a model call's options (`{ signal }`, as run() passes them). */
function signalOf(where: string, options: unknown): AbortSignal | undefined {
  if (options === undefined || options === null) return undefined
  const signal = typeof options === 'object' ? own(options, 'signal') : undefined
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`${where}: the model call's options.signal must be an AbortSignal, got ${describe(signal)}`)
  }
  return signal
}

/**
 * The API key for a request: the option's, else the first of the provider's environment variables
 * set; none when the provider needs none, or the caller's headers carry the key's header. A key
 * needed and found nowhere is a PRECONDITION_FAILED naming the option and the variables.
 */
function apiKeyOf<W extends Wire, O extends ModelPresetOptions>(provider: Provider<W, O>, settings: Settings): string | undefined {
  if (settings.apiKey !== undefined) return settings.apiKey
  if (provider.keyEnv.length === 0 || settings.headers.has(provider.keyHeader)) return undefined
  for (const name of provider.keyEnv) {
    const value = own(process.env, name)
    if (typeof value !== 'string' || value === '') continue
    try {
      checkHeaderValue(`${settings.where}: the environment's ${name}`, value, true)
    } catch (error) {
      throw new ToolwireError('PRECONDITION_FAILED', messageOf(error))
    }
    return value
  }
  throw new ToolwireError('PRECONDITION_FAILED', `${settings.where}: no API key: pass options.apiKey or set ${provider.keyEnv.join(' or ')}`)
}

/** The headers of a request: JSON, the provider's own and its key, then the caller's over them. */
function requestHeaders<W extends Wire, O extends ModelPresetOptions>(provider: Provider<W, O>, settings: Settings, apiKey: string | undefined): Record<string, string> {
  const headers = new Map<string, string>([['content-type', 'application/json'], ...Object.entries(provider.headers ?? {})])
  if (apiKey !== undefined) headers.set(provider.keyHeader, provider.keyValue === undefined ? apiKey : provider.keyValue(apiKey))
  for (const [name, value] of settings.headers) headers.set(name, value)
  // (fromEntries defines each name, `__proto__` too, as a key of its own)
  return Object.fromEntries(headers)
}

/** Header names whose values are credentials: an error never quotes them. */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|session|pass(word|wd)?|credential|bearer|jwt|signature|assertion|sig\b/i

/** What an error may not quote: the key, and the value of each credential header sent (of 4 characters or more). */
function secretsOf(apiKey: string | undefined, headers: Record<string, string>): string[] {
  const secrets = Object.keys(headers)
    .filter((name) => CREDENTIAL_HEADER.test(name))
    .map((name) => headers[name]!)
  if (apiKey !== undefined) secrets.push(apiKey)
  // (the longest first: `Bearer <key>` is replaced whole before the key alone)
  return secrets.filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length)
}

/** `text` with each of `secrets` replaced by `[redacted]`. */
function redacted(text: string, secrets: readonly string[]): string {
  let clean = text
  for (const secret of secrets) clean = clean.split(secret).join('[redacted]')
  return clean
}

/** What one model call sends: its signal, its fetch init (the body and headers), and what its errors may not quote. */
interface Outgoing {
  signal: AbortSignal | undefined
  init: RequestInit
  secrets: string[]
}

/**
 * The call `request` (with `callOptions`, `{ signal }`) as `provider` sends it: the body its
 * fields, the request and the caller's `body`; the headers with the key (looked up now).
 */
function outgoing<W extends Wire, O extends ModelPresetOptions>(provider: Provider<W, O>, settings: Settings, request: ModelRequest<W>, callOptions: unknown): Outgoing {
  const { where } = settings
  const signal = signalOf(where, callOptions)
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw new TypeError(`${where}: the request must be an object (the body run() hands the model), got ${describe(request)}`)
  }
  const apiKey = apiKeyOf(provider, settings)
  const headers = requestHeaders(provider, settings, apiKey)
  const body = jsonText(`${where}: the request body`, { ...settings.fields, ...request, ...settings.extra })
  return { signal, init: { method: 'POST', headers, body, signal }, secrets: secretsOf(apiKey, headers) }
}

/**
 * Sends `request` as `provider` requires, retrying as `settings.retry` says (see
 * ModelRetryOptions); resolves with the first ok Response. An abort rejects with the signal's
 * reason at once (never retried, a wait ended); a final failure rejects with a ToolwireError
 * (EXECUTION_ERROR) naming the provider, the status or the network error, and the start of the
 * answer's body, secrets replaced.
 */
async function send<W extends Wire, O extends ModelPresetOptions>(provider: Provider<W, O>, settings: Settings, request: ModelRequest<W>, callOptions: unknown): Promise<Response> {
  const { signal, init, secrets } = outgoing(provider, settings, request, callOptions)
  const { retry } = settings
  for (let retries = 0; ; retries++) {
    signal?.throwIfAborted()
    let answer: unknown
    try {
      // (the global fetch called as the global object's method, as it may require, and read now)
      answer = await (settings.fetch === undefined ? globalThis.fetch(settings.url, init) : settings.fetch(settings.url, init))
    } catch (error) {
      if (signal?.aborted) throw error
      if (retries >= retry.maxRetries) throw networkError(settings, error, retries, secrets)
      await waitUnlessAborted(retryWaitMs(retry, retries), signal)
      continue
    }
    const response = responseOf(settings.where, answer)
    if (response.ok) return response
    if (!retryableStatus(response.status) || retries >= retry.maxRetries) throw await statusError(settings, response, retries, secrets, signal)
    // (its body is not needed: the connection is freed)
    response.body?.cancel().catch(() => {})
    await waitUnlessAborted(retryWaitMs(retry, retries, response.headers), signal)
  }
}

/** What `fetch` resolved with, when it is a Response (ok, status, headers); anything else is a TypeError naming it. */
function responseOf(where: string, answer: unknown): Response {
  const like = answer as Partial<Response> | null
  if (like === null || typeof like !== 'object' || typeof like.status !== 'number' || typeof like.headers?.get !== 'function') {
    throw new TypeError(`${where}: fetch must resolve to a Response, got ${describe(answer)}`)
  }
  return like as Response
}

/** After how many attempts a request failed, for its error (`` after 3 attempts``), or nothing after one. */
function attemptsText(retries: number): string {
  return retries === 0 ? '' : ` after ${retries + 1} attempts`
}

/** The error of a request whose last attempt `fetch` threw for (a refused connection, a DNS failure). */
function networkError(settings: Settings, error: unknown, retries: number, secrets: readonly string[]): ToolwireError {
  const cause = error instanceof Error && error.cause !== undefined ? ` (${messageOf(error.cause)})` : ''
  const url = new URL(settings.url)
  const what = redacted(`${messageOf(error)}${cause}`, secrets)
  return new ToolwireError('EXECUTION_ERROR', `${settings.where}: the request to ${url.origin}${url.pathname} failed${attemptsText(retries)}: ${what}`)
}

/** The error of a request whose last answer was not ok: the provider, the status and the start of the body, secrets replaced. */
async function statusError(settings: Settings, response: Response, retries: number, secrets: readonly string[], signal: AbortSignal | undefined): Promise<ToolwireError> {
  const head = await quotedErrorBody(response, signal, (text) => redacted(text, secrets))
  return new ToolwireError('EXECUTION_ERROR', `${settings.where}: ${settings.label} answered HTTP ${response.status}${attemptsText(retries)}: ${head}`)
}
