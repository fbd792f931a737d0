// The provider presets (`models.*`) with the real `fetch` against a local HTTP server standing in
// for each provider: it checks the exact request (method, path, query, headers, body) and streams
// back a small body in the provider's wire format. Each preset drives a run() through a tool call
// and a second turn, whose request must carry the tool's result in the wire's own shape. Then the
// retries (retry-after, 5xx, 4xx, network errors, an abort while waiting), the API key (from the
// environment, missing, never quoted) and the options (headers, body, fetch, refused values).
import { readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { afterEach, describe, expect, it } from 'vitest'

import {
  ToolwireError,
  models,
  type FetchFunction,
  type HistoryMessage,
  type ResponseModel,
  type ModelRequest,
  type RunOutcome,
  type Wire,
} from '../dist/index.js'
import { backoffMs, requestedWaitMs } from '../dist/models/retry.js'
import { rejection } from './helpers'
import { body as scriptedBody } from './scripted'
import { addRuntime } from './consumer/sdk-run'

/** A key the tests send: never to be quoted by an error. */
const KEY = 'sk-test-Zq7rVb2LmX9pK4sT8wY1uN6e'

/** What each run asks. */
const USER = 'What is 1 + 1?'

/** A request as the stand-in server saw it. */
interface Seen {
  method: string
  path: string
  query: Record<string, string>
  headers: http.IncomingHttpHeaders
  body: Record<string, any>
}

/** How the stand-in server answers a request: a status, headers and a body; or it drops the connection, or never answers. */
interface Answer {
  status?: number
  headers?: Record<string, string>
  body?: string
  drop?: boolean
  stall?: boolean
}

const servers: http.Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

/**
 * A provider's stand-in on 127.0.0.1 (port 0), closed after the test: records each request and
 * answers it as `respond(seen, index)` says.
 */
async function providerServer(respond: (seen: Seen, index: number) => Answer) {
  const seen: Seen[] = []
  const server = http.createServer(async (req, res) => {
    let text = ''
    for await (const part of req) text += part
    const url = new URL(req.url!, 'http://stand-in')
    const request: Seen = { method: req.method!, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body: JSON.parse(text) }
    seen.push(request)
    const answer = respond(request, seen.length - 1)
    if (answer.drop) return void req.socket.destroy()
    if (answer.stall) return
    res.writeHead(answer.status ?? 200, { 'content-type': 'text/event-stream', ...answer.headers })
    res.end(answer.body ?? '')
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

/** The message of what `fn` throws (it must throw). */
function thrownMessage(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected a throw')
}

/** Runs `body` with the environment variables `values` set (undefined: unset), restoring them after. */
async function withEnv<T>(values: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]))
  const apply = (from: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(from)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
  apply(values)
  try {
    return await body()
  } finally {
    apply(saved)
  }
}

/** The call the model makes in its first turn. */
const CALL = { id: 'call_1', name: 'add', args: '{"a":1}' }

/**
 * Mistral's stream as Mistral sends it: the whole call in one chunk, no `index` nor `type`, the
 * finish reason beside it; ids of 9 letters and digits (what toolwire keeps them as).
 */
function mistralBody(first: boolean): string {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'cmpl-1', object: 'chat.completion.chunk', created: 1, model: 'mistral-small-latest', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const call = { id: 'abcDEF123', function: { name: 'add', arguments: '{"a":1}' } }
  return (first ? chunk({ role: 'assistant', content: '', tool_calls: [call] }, 'tool_calls') : chunk({ role: 'assistant', content: 'two' }, 'stop')) + 'data: [DONE]\n\n'
}

/** The provider's two turns on `wire`: a call to `add`, then the answer `two`. */
function twoTurns(wire: Wire) {
  return (_seen: Seen, index: number): Answer => ({
    body: wire === 'mistral' ? mistralBody(index === 0) : scriptedBody(wire, index === 0 ? { calls: [CALL] } : { text: 'two' }),
  })
}

/** The question a run starts from, in `wire`'s shape. */
function ask<W extends Wire>(wire: W): HistoryMessage<W> {
  // (a user message of the wire's own shape)
  return (wire === 'gemini' ? { role: 'user', parts: [{ text: USER }] } : { role: 'user', content: USER }) as HistoryMessage<W>
}

/** Where each wire's request body holds the history. */
const HISTORY_KEY: Record<Wire, string> = { 'openai-chat': 'messages', 'openai-responses': 'input', anthropic: 'messages', gemini: 'contents', mistral: 'messages' }

/** The headers a key may go in: a preset sends its own provider's only. */
const KEY_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key']

/** Runs `model` on `wire` with `add` registered, from the question. */
function runAdd<W extends Wire>(wire: W, model: ResponseModel<W>, signal?: AbortSignal): Promise<RunOutcome<W>> {
  return addRuntime().run({ wire, model, messages: [ask(wire)], signal })
}

/** What each preset must send and what its second request must carry. */
interface PresetCase {
  name: string
  wire: Wire
  /** Runs the preset against the stand-in at `url`. */
  run: (url: string) => Promise<RunOutcome>
  path: string
  /** The URL's query (default none). */
  query?: Record<string, string>
  /** Headers it must send (besides `content-type: application/json`); no other key header. */
  headers: Record<string, string>
  /** The first body, but for the history and the tools. */
  fields: Record<string, unknown>
  /** The tool's result, in the wire's shape, in the second request's history. */
  result: object
  /** The last message of the outcome's history. */
  last: object
}

const PRESETS: PresetCase[] = [
  {
    name: 'openaiChat',
    wire: 'openai-chat',
    run: (url) => runAdd('openai-chat', models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: `${url}/v1` })),
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${KEY}` },
    fields: { model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true } },
    result: { role: 'tool', tool_call_id: 'call_1', content: '2' },
    last: { role: 'assistant', content: 'two' },
  },
  {
    name: 'openaiResponses',
    wire: 'openai-responses',
    run: (url) => runAdd('openai-responses', models.openaiResponses({ model: 'gpt-5-mini', apiKey: KEY, baseURL: `${url}/v1` })),
    path: '/v1/responses',
    headers: { authorization: `Bearer ${KEY}` },
    fields: { model: 'gpt-5-mini', stream: true },
    result: { type: 'function_call_output', call_id: 'call_1', output: '2' },
    last: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'two' }] },
  },
  {
    name: 'anthropic',
    wire: 'anthropic',
    run: (url) => runAdd('anthropic', models.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: url })),
    path: '/v1/messages',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    fields: { model: 'claude-sonnet-4-5', max_tokens: 4096, stream: true },
    result: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: '2' }], is_error: false }] },
    last: { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
  },
  {
    name: 'gemini',
    wire: 'gemini',
    run: (url) => runAdd('gemini', models.gemini({ model: 'gemini-2.5-flash', apiKey: KEY, baseURL: url })),
    path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    query: { alt: 'sse' },
    headers: { 'x-goog-api-key': KEY },
    // (the model is in the path; Gemini streams by its URL, not by a flag)
    fields: {},
    result: { role: 'user', parts: [{ functionResponse: { name: 'add', id: 'call_1', response: { output: '2' } } }] },
    last: { role: 'model', parts: [{ text: 'two' }] },
  },
  {
    name: 'mistral',
    wire: 'mistral',
    run: (url) => runAdd('mistral', models.mistral({ model: 'mistral-small-latest', apiKey: KEY, baseURL: url })),
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${KEY}` },
    fields: { model: 'mistral-small-latest', stream: true },
    result: { role: 'tool', tool_call_id: 'abcDEF123', name: 'add', content: '2' },
    last: { role: 'assistant', content: 'two' },
  },
  {
    name: 'openaiCompatible',
    wire: 'openai-chat',
    run: (url) => runAdd('openai-chat', models.openaiCompatible({ model: 'qwen3-8b', baseURL: `${url}/v1` })),
    path: '/v1/chat/completions',
    headers: {},
    fields: { model: 'qwen3-8b', stream: true, stream_options: { include_usage: true } },
    result: { role: 'tool', tool_call_id: 'call_1', content: '2' },
    last: { role: 'assistant', content: 'two' },
  },
]

describe('each preset sends what its provider requires, through a tool call and a second turn', () => {
  for (const preset of PRESETS) {
    it(preset.name, async () => {
      const server = await providerServer(twoTurns(preset.wire))
      const outcome = await withEnv({ OPENAI_API_KEY: 'sk-from-the-environment-not-for-other-servers' }, () => preset.run(server.url))
      expect(outcome.error).toBeUndefined()
      expect(outcome.stopReason).toBe('stop')
      expect(outcome.steps[0]!.results.map((result) => result.status)).toEqual(['ok'])
      expect(server.seen).toHaveLength(2)

      const [first, second] = server.seen as [Seen, Seen]
      expect(first.method).toBe('POST')
      expect(first.path).toBe(preset.path)
      expect(first.query).toEqual(preset.query ?? {})
      expect(first.headers).toMatchObject({ 'content-type': 'application/json', ...preset.headers })
      // (an OpenAI-compatible server gets no key: OPENAI_API_KEY is set, and not sent)
      for (const name of KEY_HEADERS.filter((header) => !(header in preset.headers))) expect(first.headers[name], name).toBeUndefined()
      // The key never goes in the URL.
      expect(JSON.stringify([first.path, first.query])).not.toContain(KEY)
      const history = HISTORY_KEY[preset.wire]
      expect(first.body).toEqual({ ...preset.fields, [history]: [ask(preset.wire)], tools: addRuntime().definitions(preset.wire).tools })

      expect(second.path).toBe(preset.path)
      expect(second.headers).toMatchObject(preset.headers)
      expect(second.body[history][0]).toEqual(ask(preset.wire))
      expect(second.body[history]).toContainEqual(preset.result)
      expect(outcome.messages.at(-1)).toEqual(preset.last)
    })
  }
})

/** A stand-in for OpenAI's Chat Completions answering `failures` first, then the two turns. */
async function failingThenOk(failures: Answer[]) {
  return providerServer((seen, index) => failures[index] ?? twoTurns('openai-chat')(seen, index - failures.length))
}

/** A chat request as run() makes it. */
const CHAT_REQUEST: ModelRequest<'openai-chat'> = { messages: [ask('openai-chat')], stream: true, stream_options: { include_usage: true } }

/**
 * The global fetch, watched: `waiting()` resolves a turn of the event loop after its first
 * Response was handed on, when the preset that called it is waiting to retry.
 */
function watchedFetch() {
  let handedOn: () => void = () => {}
  const answered = new Promise<void>((resolve) => (handedOn = resolve))
  const fetch: FetchFunction = async (url, init) => {
    const response = await globalThis.fetch(url, init)
    handedOn()
    return response
  }
  const waiting = () => answered.then(() => new Promise<void>((resolve) => setImmediate(resolve)))
  return { fetch, waiting }
}

/**
 * A stand-in answering every request with `status`, and a preset's options for it whose backoff (a
 * minute) would outlast the test: only an abort ends its wait. `abortWhenWaiting()` aborts
 * `signal` once the preset waits to retry.
 */
async function retryingForever(status: number) {
  const server = await providerServer(() => ({ status, body: 'busy' }))
  const { fetch, waiting } = watchedFetch()
  const controller = new AbortController()
  const options = { apiKey: KEY, baseURL: server.url, fetch, retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 } }
  const abortWhenWaiting = async () => {
    await waiting()
    controller.abort()
  }
  return { server, options, signal: controller.signal, abortWhenWaiting }
}

describe('retries', () => {
  it('a 429 and a 503 asking for a wait by retry-after-ms and retry-after are retried after it, not after the backoff', async () => {
    const server = await failingThenOk([
      { status: 429, headers: { 'retry-after-ms': '5', 'content-type': 'application/json' }, body: '{"error":{"type":"rate_limit"}}' },
      { status: 503, headers: { 'retry-after': '0' }, body: 'overloaded' },
    ])
    // (a backoff of a minute would outlast the test: only the headers' waits let it pass)
    const model = models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.url, retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 } })
    const outcome = await runAdd('openai-chat', model)
    expect(outcome.error).toBeUndefined()
    expect(outcome.stopReason).toBe('stop')
    // three attempts for the first turn (the same body each time), one for the second
    expect(server.seen).toHaveLength(4)
    expect(server.seen[1]!.body).toEqual(server.seen[0]!.body)
    expect(server.seen[2]!.body).toEqual(server.seen[0]!.body)
  })

  it('a 500 twice, then success: three attempts with the backoff', async () => {
    const server = await failingThenOk([{ status: 500, body: 'oops' }, { status: 502, body: 'bad gateway' }])
    const model = models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.url, retry: { initialDelayMs: 1, maxDelayMs: 2 } })
    const response = await model(CHAT_REQUEST)
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('"tool_calls"')
    expect(server.seen).toHaveLength(3)
  })

  it('a 5xx past maxRetries fails naming the provider, the status, the attempts and the start of the body', async () => {
    const server = await providerServer(() => ({ status: 503, headers: { 'content-type': 'application/json' }, body: `{"error":{"message":"The server is overloaded${'.'.repeat(400)}"}}` }))
    const model = models.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: server.url, retry: { maxRetries: 1, initialDelayMs: 1 } })
    const error = await rejection(model({ messages: [ask('anthropic')], stream: true }))
    expect(error).toBeInstanceOf(ToolwireError)
    expect(error.code).toBe('EXECUTION_ERROR')
    expect(error.message).toMatch(/^models\.anthropic: Anthropic answered HTTP 503 after 2 attempts: "\{\\"error\\":\{\\"message\\":\\"The server is overloaded\.+"… \(\d+ characters\)$/)
    expect(server.seen).toHaveLength(2)
  })

  it('a 400 is not retried, and ends the run with an error naming it', async () => {
    const server = await providerServer(() => ({ status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":{"message":"Unknown parameter: foo"}}' }))
    const model = models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.url, retry: { initialDelayMs: 1 } })
    const outcome = await runAdd('openai-chat', model)
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toBe('models.openaiChat: OpenAI answered HTTP 400: "{\\"error\\":{\\"message\\":\\"Unknown parameter: foo\\"}}"')
    expect(server.seen).toHaveLength(1)
  })

  it('a dropped connection (a network error fetch throws) is retried; past maxRetries it fails naming the URL and the cause', async () => {
    const flaky = await failingThenOk([{ drop: true }])
    const model = models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: flaky.url, retry: { initialDelayMs: 1 } })
    expect((await model(CHAT_REQUEST)).status).toBe(200)
    expect(flaky.seen).toHaveLength(2)

    const down = await providerServer(() => ({ drop: true }))
    const failing = models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: `${down.url}/v1`, retry: { maxRetries: 2, initialDelayMs: 1 } })
    const error = await rejection(failing(CHAT_REQUEST))
    expect(error.code).toBe('EXECUTION_ERROR')
    expect(error.message).toMatch(new RegExp(`^models\\.openaiChat: the request to ${down.url}/v1/chat/completions failed after 3 attempts: fetch failed`))
    expect(down.seen).toHaveLength(3)
  })

  it('an abort during the backoff ends the wait at once: the call rejects with the abort, nothing is sent again', async () => {
    const { server, options, signal, abortWhenWaiting } = await retryingForever(503)
    const pending = rejection(models.openaiChat({ model: 'gpt-4o-mini', ...options })(CHAT_REQUEST, { signal }))
    await abortWhenWaiting()
    expect((await pending).name).toBe('AbortError')
    expect(server.seen).toHaveLength(1)
  })

  it('an abort during the backoff ends the run as aborted', async () => {
    const { server, options, signal, abortWhenWaiting } = await retryingForever(429)
    const running = runAdd('anthropic', models.anthropic({ model: 'claude-sonnet-4-5', ...options }), signal)
    await abortWhenWaiting()
    const outcome = await running
    expect(outcome.stopReason).toBe('aborted')
    expect(outcome.error).toBeUndefined()
    expect(server.seen).toHaveLength(1)
  })

  it('an abort while the request is in flight is not retried', async () => {
    const server = await providerServer(() => ({ stall: true }))
    const model = models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.url, retry: { initialDelayMs: 1 } })
    const controller = new AbortController()
    const pending = rejection(model(CHAT_REQUEST, { signal: controller.signal }))
    while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort()
    expect((await pending).name).toBe('AbortError')
    expect(server.seen).toHaveLength(1)
  })
})

describe('how long a retry waits', () => {
  it("an answer's retry-after-ms, else retry-after (seconds or a date), at most 60 s", () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    const wait = (headers: Record<string, string>) => requestedWaitMs(new Headers(headers), now)
    expect(wait({ 'retry-after-ms': '250' })).toBe(250)
    expect(wait({ 'retry-after-ms': '10', 'retry-after': '3' })).toBe(10)
    expect(wait({ 'retry-after': '2' })).toBe(2000)
    expect(wait({ 'retry-after': '1.5' })).toBe(1500)
    expect(wait({ 'retry-after': '3600' })).toBe(60_000)
    expect(wait({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' })).toBe(5000)
    expect(wait({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' })).toBe(0)
    expect(wait({ 'retry-after': 'soon', 'retry-after-ms': '-5' })).toBeUndefined()
    // what Date.parse reads as a date is none unless it is an HTTP date (V8 reads "5, 10" as 2001)
    for (const junk of ['5, 10', 'x 2050', '2026-01-01T00:00:05Z', 'Thu Jan 01 2026 00:00:05 GMT', 'Mon, 99 Jan 2025 99:99:99 GMT']) expect(wait({ 'retry-after': junk })).toBeUndefined()
    expect(wait({})).toBeUndefined()
  })

  it('without one, the backoff doubles from initialDelayMs up to maxDelayMs, less up to a quarter', () => {
    const policy = { maxRetries: 9, initialDelayMs: 100, maxDelayMs: 1000 }
    for (let i = 0; i < 50; i++) {
      const [first, second, late] = [backoffMs(policy, 0), backoffMs(policy, 1), backoffMs(policy, 8)]
      expect(first).toBeGreaterThanOrEqual(75)
      expect(first).toBeLessThanOrEqual(100)
      expect(second).toBeGreaterThanOrEqual(150)
      expect(second).toBeLessThanOrEqual(200)
      expect(late).toBeGreaterThanOrEqual(750)
      expect(late).toBeLessThanOrEqual(1000)
    }
  })
})

describe('the base URL', () => {
  it("left out, is the variable the provider's SDK reads, when the preset is made", async () => {
    const server = await providerServer(twoTurns('openai-chat'))
    const anthropic = await providerServer(twoTurns('anthropic'))
    const gemini = await providerServer(twoTurns('gemini'))
    const env = { OPENAI_BASE_URL: `${server.url}/v1/`, ANTHROPIC_BASE_URL: anthropic.url, GOOGLE_GEMINI_BASE_URL: gemini.url }
    const [chat, claude, flash] = await withEnv(env, async () => [
      models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY }),
      models.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY }),
      models.gemini({ model: 'gemini-2.5-flash', apiKey: KEY }),
    ] as const)
    await chat(CHAT_REQUEST)
    await claude({ messages: [ask('anthropic')], stream: true })
    await flash({ contents: [ask('gemini')] })
    expect(server.seen.map((seen) => seen.path)).toEqual(['/v1/chat/completions'])
    expect(anthropic.seen.map((seen) => seen.path)).toEqual(['/v1/messages'])
    expect(gemini.seen.map((seen) => seen.path)).toEqual(['/v1beta/models/gemini-2.5-flash:streamGenerateContent'])
  })

  it('given, wins over the variable; a variable that is no URL is refused naming it', async () => {
    const server = await providerServer(twoTurns('openai-chat'))
    const model = await withEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/never' }, async () => models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.url }))
    await model(CHAT_REQUEST)
    expect(server.seen).toHaveLength(1)
    await withEnv({ ANTHROPIC_BASE_URL: 'api.anthropic.com' }, async () => {
      expect(() => models.anthropic({ model: 'claude-sonnet-4-5' })).toThrow(
        new TypeError("models.anthropic: the environment's ANTHROPIC_BASE_URL must be an absolute URL (http://host/...), got string api.anthropic.com"),
      )
    })
  })

  it('of a server of your own is never read from the environment', async () => {
    await withEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, async () => {
      expect(() => models.openaiCompatible({ model: 'qwen3-8b' } as never)).toThrow(/^models\.openaiCompatible: options\.baseURL \(the server's API root/)
    })
  })
})

describe('headers given as fetch takes them', () => {
  it('a Headers or a Map is sent, as an object is', async () => {
    const server = await providerServer(twoTurns('openai-chat'))
    await models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.url, headers: new Headers({ 'X-Tenant': 'acme' }) })(CHAT_REQUEST)
    await models.openaiChat({ model: 'gpt-4o-mini', baseURL: server.url, headers: new Map([['Authorization', 'Bearer from-map']]) })(CHAT_REQUEST)
    expect(server.seen[0]!.headers['x-tenant']).toBe('acme')
    expect(server.seen[1]!.headers.authorization).toBe('Bearer from-map')
  })
})

describe('the API key', () => {
  it("is read from the provider's environment variable at each request", async () => {
    const server = await providerServer(twoTurns('openai-chat'))
    // made before the variable is set: read when the request is sent
    const model = models.openaiChat({ model: 'gpt-4o-mini', baseURL: server.url })
    await withEnv({ OPENAI_API_KEY: 'sk-env-one' }, () => model(CHAT_REQUEST))
    expect(server.seen[0]!.headers.authorization).toBe('Bearer sk-env-one')
  })

  it('Gemini reads GEMINI_API_KEY, else GOOGLE_API_KEY', async () => {
    const server = await providerServer(twoTurns('gemini'))
    const model = models.gemini({ model: 'gemini-2.5-flash', baseURL: server.url })
    const request: ModelRequest<'gemini'> = { contents: [ask('gemini')] }
    await withEnv({ GEMINI_API_KEY: undefined, GOOGLE_API_KEY: 'google-key-1' }, () => model(request))
    await withEnv({ GEMINI_API_KEY: 'gemini-key-2', GOOGLE_API_KEY: 'google-key-1' }, () => model(request))
    expect(server.seen.map((seen) => seen.headers['x-goog-api-key'])).toEqual(['google-key-1', 'gemini-key-2'])
  })

  it('missing, fails the first request naming the option and the environment variables; nothing is sent', async () => {
    const server = await providerServer(twoTurns('gemini'))
    const outcome = await withEnv({ GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined }, () =>
      runAdd('gemini', models.gemini({ model: 'gemini-2.5-flash', baseURL: server.url })),
    )
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toBe('models.gemini: no API key: pass options.apiKey or set GEMINI_API_KEY or GOOGLE_API_KEY')
    expect(server.seen).toHaveLength(0)

    const error = await withEnv({ OPENAI_API_KEY: undefined }, () => rejection(models.openaiChat({ model: 'gpt-4o-mini', baseURL: server.url })(CHAT_REQUEST)))
    expect(error).toBeInstanceOf(ToolwireError)
    expect(error.code).toBe('PRECONDITION_FAILED')
    expect(error.message).toBe('models.openaiChat: no API key: pass options.apiKey or set OPENAI_API_KEY')
  })

  it('is not needed when the headers carry its header', async () => {
    const server = await providerServer(twoTurns('anthropic'))
    const model = models.anthropic({ model: 'claude-sonnet-4-5', baseURL: server.url, headers: { 'X-Api-Key': 'from-headers' } })
    const outcome = await withEnv({ ANTHROPIC_API_KEY: undefined }, () => runAdd('anthropic', model))
    expect(outcome.error).toBeUndefined()
    expect(server.seen[0]!.headers['x-api-key']).toBe('from-headers')
  })

  it('is never quoted by an error, even when the answer echoes it (nor is a credential header)', async () => {
    const server = await providerServer((seen) => ({
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}`, header: seen.headers.authorization, token: seen.headers['x-session-token'] } }),
    }))
    const model = models.openaiChat({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.url, headers: { 'X-Session-Token': 'session-secret-77' } })
    const error: ToolwireError = await rejection(model(CHAT_REQUEST))
    expect(error.message).toContain('OpenAI answered HTTP 401')
    expect(error.message).toContain('Incorrect API key provided: [redacted]')
    expect(error.message).not.toContain(KEY)
    expect(error.message).not.toContain(KEY.slice(0, 12))
    expect(error.message).not.toContain('session-secret-77')
    const outcome = await runAdd('openai-chat', model)
    expect(outcome.error).toContain('HTTP 401')
    expect(outcome.error).not.toContain(KEY)
  })
})

describe('options', () => {
  it('headers are merged over the defaults (any case), body fields over the request', async () => {
    const server = await providerServer(twoTurns('anthropic'))
    const model = models.anthropic({
      model: 'claude-sonnet-4-5',
      apiKey: KEY,
      baseURL: `${server.url}/`,
      maxTokens: 1024,
      system: 'Be brief.',
      headers: { 'Anthropic-Version': '2099-01-01', 'anthropic-beta': 'some-feature', 'X-Trace': 't-1' },
      body: { temperature: 0.2, metadata: { user_id: 'u-1' } },
    })
    const outcome = await runAdd('anthropic', model)
    expect(outcome.error).toBeUndefined()
    const [first] = server.seen as [Seen]
    expect(first.path).toBe('/v1/messages')
    expect(first.headers).toMatchObject({ 'anthropic-version': '2099-01-01', 'anthropic-beta': 'some-feature', 'x-trace': 't-1', 'x-api-key': KEY })
    expect(first.body).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 1024, system: 'Be brief.', temperature: 0.2, metadata: { user_id: 'u-1' }, stream: true })
  })

  it('a custom fetch is called with the URL and the request, and its Response is what the model resolves with', async () => {
    const calls: { url: string; init: RequestInit }[] = []
    const model = models.mistral({
      model: 'mistral-small-latest',
      apiKey: KEY,
      fetch: async (url, init) => {
        calls.push({ url, init })
        return new Response(mistralBody(calls.length === 1), { headers: { 'content-type': 'text/event-stream' } })
      },
    })
    const outcome = await runAdd('mistral', model)
    expect(outcome.error).toBeUndefined()
    expect(outcome.steps[0]!.results[0]).toMatchObject({ callId: 'abcDEF123', status: 'ok' })
    expect(calls).toHaveLength(2)
    expect(calls[0]!.url).toBe('https://api.mistral.ai/v1/chat/completions')
    expect(calls[0]!.init.method).toBe('POST')
    expect(calls[0]!.init.headers).toMatchObject({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json' })
    expect(JSON.parse(calls[1]!.init.body as string).messages).toContainEqual({ role: 'tool', tool_call_id: 'abcDEF123', name: 'add', content: '2' })
  })

  it('refuses what they cannot be, naming it', () => {
    expect(() => models.openaiChat({} as never)).toThrow(new TypeError("models.openaiChat: options.model must be a non-empty string (the provider's model name), got undefined"))
    expect(() => models.anthropic({ model: '' })).toThrow(/^models\.anthropic: options\.model must be a non-empty string/)
    expect(() => models.gemini({ model: 'g', maxTokens: 5 } as never)).toThrow(/options has unknown key "maxTokens"/)
    expect(() => models.anthropic({ model: 'c', maxToken: 5 } as never)).toThrow(/did you mean "maxTokens"\?/)
    expect(() => models.anthropic({ model: 'c', maxTokens: 0 })).toThrow('models.anthropic: options.maxTokens must be a whole number of at least 1, got number 0')
    expect(() => models.openaiCompatible({ model: 'm' } as never)).toThrow(/^models\.openaiCompatible: options\.baseURL \(the server's API root/)
    expect(() => models.mistral({ model: 'm', baseURL: 'api.mistral.ai' })).toThrow('models.mistral: options.baseURL must be an absolute URL (http://host/...), got string api.mistral.ai')
    expect(() => models.openaiChat({ model: 'm', headers: { 'x-n': 1 as never } })).toThrow('models.openaiChat: options.headers["x-n"] must be a string, got number 1')
    expect(() => models.openaiChat({ model: 'm', retry: { maxRetries: -1 } })).toThrow('models.openaiChat: options.retry.maxRetries must be a whole number from 0 to 9007199254740991, got number -1')
    expect(() => models.openaiChat({ model: 'm', retry: { retries: 3 } as never })).toThrow(/options\.retry has unknown key "retries"/)
    expect(() => models.openaiChat({ model: 'm', fetch: 'fetch' as never })).toThrow(/options\.fetch must be a function/)
    expect(() => models.openaiChat({ model: 'm', body: { n: 10n } })).toThrow(/options\.body cannot be serialized to JSON/)
  })

  it('refuses, before anything is sent, what fetch would refuse: credentials in the URL, header values it cannot carry (never quoting a secret)', async () => {
    expect(() => models.openaiCompatible({ model: 'm', baseURL: 'http://admin:hunter2pass@127.0.0.1:8080/v1' })).toThrow(
      new TypeError('models.openaiCompatible: options.baseURL must not hold credentials (user:password@ before 127.0.0.1:8080): send them in options.headers (authorization)'),
    )
    expect(() => models.openaiChat({ model: 'm', apiKey: 'sk-proj-abc\u200bdef1234567890' })).toThrow(
      new TypeError('models.openaiChat: options.apiKey holds U+200B at 11, which no HTTP header may carry'),
    )
    expect(() => models.openaiChat({ model: 'm', headers: { 'x-trace': 'a\r\nx-injected: 1' } })).toThrow(
      new TypeError('models.openaiChat: options.headers["x-trace"] holds U+000D at 1, which no HTTP header may carry: "a\\r\\nx-injected: 1"'),
    )
    expect(() => models.openaiChat({ model: 'm', headers: { 'x-api-token': 'secret\nvalue' } })).toThrow(/^models\.openaiChat: options\.headers\["x-api-token"\] holds U\+000A at 6, which no HTTP header may carry$/)
    expect(() => models.openaiChat({ model: 'm', headers: { 'bad name': 'v' } })).toThrow(/"bad name" is no header name/)
    const sent: unknown[] = []
    const fetch = async (url: unknown) => {
      sent.push(url)
      return new Response('')
    }
    const error = await withEnv({ OPENAI_API_KEY: 'sk-pasted\u200b' }, () => rejection(models.openaiChat({ model: 'm', fetch })(CHAT_REQUEST)))
    expect(error).toMatchObject({ code: 'PRECONDITION_FAILED', message: "models.openaiChat: the environment's OPENAI_API_KEY holds U+200B at 9, which no HTTP header may carry" })
    expect(sent).toEqual([])
    // a URL without its scheme reads as one whose scheme is the user: refused, the password never quoted
    expect(() => models.openaiCompatible({ model: 'm', baseURL: 'admin:hunter2@127.0.0.1:9/v1' })).toThrow(
      new TypeError('models.openaiCompatible: options.baseURL must be an http:// or https:// URL, got string ***@127.0.0.1:9/v1'),
    )
    await withEnv({ OPENAI_BASE_URL: 'https://proxyuser:Sup3rS3cretPass@my proxy.example/v1' }, async () => {
      const message = thrownMessage(() => models.openaiChat({ model: 'm' }))
      expect(message).toBe("models.openaiChat: the environment's OPENAI_BASE_URL must be an absolute URL (http://host/...), got string https://***@my proxy.example/v1")
    })
    // every control character fetch refuses, a credential's value unquoted whatever its header is called
    expect(() => models.openaiChat({ model: 'm', apiKey: 'sk-\u0001abcdef' })).toThrow('models.openaiChat: options.apiKey holds U+0001 at 3, which no HTTP header may carry')
    expect(() => models.openaiChat({ model: 'm', headers: { 'x-trace': 'a\u007f' } })).toThrow(/options\.headers\["x-trace"\] holds U\+007F at 1/)
    for (const name of ['x-client-credential', 'x-jwt-assertion', 'x-bearer', 'x-signature', 'x-goog-iap-jwt', 'x-db-passwd']) {
      expect(thrownMessage(() => models.openaiChat({ model: 'm', headers: { [name]: 'hunter2\nsecret' } }))).not.toContain('hunter2')
    }
    await withEnv({ ANTHROPIC_BASE_URL: 'https://user:pw-secret@proxy.example' }, async () => {
      expect(() => models.anthropic({ model: 'c' })).toThrow(/^models\.anthropic: the environment's ANTHROPIC_BASE_URL must not hold credentials \(user:password@ before proxy\.example\)/)
    })
  })

  it('a Gemini model named as the API names it (models/...) is sent in the path once', async () => {
    const server = await providerServer(twoTurns('gemini'))
    await models.gemini({ model: 'models/gemini-2.5-pro', apiKey: KEY, baseURL: server.url })({ contents: [ask('gemini')] })
    expect(server.seen[0]!.path).toBe('/v1beta/models/gemini-2.5-pro:streamGenerateContent')
  })
})

describe('the README', () => {
  it('shows the typed Anthropic run the strict consumer compiles (__test__/consumer/presets.ts)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const source = readFileSync(new URL('./consumer/presets.ts', import.meta.url), 'utf8')
    const block = /\/\/ --- README: presets ---\n([\s\S]*?)\n\s*\/\/ --- end ---/.exec(source)![1]!
    const lines = block.split('\n').map((line) => line.replace(/^ {2}/, ''))
    expect(readme).toContain(lines.join('\n'))
  })
})
