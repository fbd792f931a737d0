// A RAP tool server for the tests, written on Node's http module: it serves a toolset manifest at
// /.well-known/rap-toolset, accepts invocations at /invoke (answering 200, then POSTing its
// callbacks to the call's callback_url) and records every request it receives, including the
// cancel_tool_call, close_thread and user-choice answers toolwire sends.

import { once } from 'node:events'
import { createServer, request } from 'node:http'
import type { IncomingMessage, Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Seen {
  method: string
  path: string
  body: any
  headers: Record<string, string | string[] | undefined>
}

/** A 1x1 PNG. */
export const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

const object = { type: 'object' }

/** The tools every test server offers; `operation` decides what the server does. */
export function manifest(name: string, tools?: object[]): object {
  return {
    name,
    description: 'tools for the tests',
    endpoint: '/invoke',
    tools: tools ?? [
      {
        name: 'echo',
        description: 'Echoes its arguments',
        inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'], additionalProperties: false },
      },
      { name: 'image', description: 'Answers with a picture', inputSchema: object },
      { name: 'fail', description: 'Answers with an error', inputSchema: object },
      { name: 'reject', description: 'Refuses the invocation with 400', inputSchema: object },
      { name: 'flaky', description: 'Answers 503 once, then works', inputSchema: object },
      { name: 'slow', description: 'Never answers', inputSchema: object },
      { name: 'delayed', description: 'Answers after a while', inputSchema: object },
      { name: 'subscribe', description: 'Opens a subscription', inputSchema: object },
      { name: 'watch', description: 'Opens a subscription whose events the test posts itself', inputSchema: object },
      { name: 'events', description: 'Sends oauth, a user choice and a view update', inputSchema: object },
      { name: 'eventfirst', description: 'Sends an event before its result', inputSchema: { type: 'object', properties: { topic: { type: 'string' } } } },
      { name: 'twice', description: 'Sends its result again, then a different one', inputSchema: object },
      {
        name: 'big',
        description: 'Answers with a text of `bytes` copies of `fill`',
        inputSchema: { type: 'object', properties: { bytes: { type: 'integer' }, fill: { type: 'string' } } },
      },
    ],
  }
}

async function readBody(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export class ToolServer {
  readonly seen: Seen[] = []
  /** callback_url by invocation id, and by `${group_id}\0${id}` */
  readonly callbacks = new Map<string, string>()
  /** status of every callback POSTed, in order */
  readonly callbackStatus: { type: string; id: string; status: number }[] = []
  #waiters: (() => void)[] = []
  #attempts = new Map<string, number>()
  /** `events` calls waiting for their choice's answer, by `${group}\0${id}` */
  #choices = new Map<string, { callKey: string }>()
  baseUrl = ''

  private constructor(
    private server: Server,
    private toolset: object,
  ) {}

  static async start(toolset: object = manifest('remote')): Promise<ToolServer> {
    const server = createServer()
    const tools = new ToolServer(server, toolset)
    server.on('request', (req, res) => {
      tools.#handle(req).then(
        ([status, body]) => {
          res.writeHead(status, { 'content-type': 'application/json' })
          res.end(body === undefined ? '' : JSON.stringify(body))
        },
        (error) => {
          res.writeHead(500)
          res.end(String(error))
        },
      )
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    tools.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    return tools
  }

  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }

  /** Requests to `path` received so far. */
  requests(path: string): Seen[] {
    return this.seen.filter((s) => s.path === path)
  }

  /** Resolves with the first request matching `test`, now or when it arrives. */
  async waitFor(test: (seen: Seen) => boolean): Promise<Seen> {
    for (;;) {
      const found = this.seen.find(test)
      if (found !== undefined) return found
      await new Promise<void>((resolve) => this.#waiters.push(resolve))
    }
  }

  /**
   * POSTs a callback message to the callback URL of invocation `id`; resolves with the status
   * (0 when the connection failed). The body waits for `100 Continue`, so a callback refused
   * before its body is read (413 on its declared length) gets its answer, not a reset.
   */
  async post(id: string, message: Record<string, unknown>): Promise<number> {
    const url = this.callbacks.get(id)
    if (url === undefined) throw new Error(`no invocation ${id}`)
    const body = Buffer.from(JSON.stringify(message))
    const status = await new Promise<number>((resolve) => {
      const req = request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': body.length, expect: '100-continue' },
      })
      req.on('continue', () => req.end(body))
      req.on('response', (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', () => resolve(res.statusCode ?? 0))
        res.on('close', () => resolve(res.statusCode ?? 0))
        if (!req.writableEnded) req.destroy()
      })
      req.on('error', () => resolve(0))
    })
    this.callbackStatus.push({ type: String(message.type), id, status })
    return status
  }

  #record(seen: Seen) {
    this.seen.push(seen)
    const waiters = this.#waiters
    this.#waiters = []
    for (const wake of waiters) wake()
  }

  async #handle(req: IncomingMessage): Promise<[number, unknown?]> {
    const path = (req.url ?? '/').split('?')[0]
    const body = req.method === 'POST' ? await readBody(req) : null
    this.#record({ method: req.method ?? '', path, body, headers: req.headers })
    if (req.method === 'GET' && path === '/.well-known/rap-toolset') return [200, this.toolset]
    if (req.method === 'GET' && path.startsWith('/callback-of/')) return [200, this.callbacks.get(path.slice('/callback-of/'.length))]
    if (req.method !== 'POST') return [404]
    if (path === '/choice') {
      // The answer to an `events` call's choice: that call (of the thread in the query) sends its result.
      const group = new URL(req.url ?? '/', this.baseUrl).searchParams.get('group')
      const key = `${group}\u0000${body.id}`
      const pending = this.#choices.get(key)
      if (pending !== undefined) {
        this.#choices.delete(key)
        this.#later(pending.callKey, { type: 'tool_result', group_id: group, id: body.id, text: `picked ${body.selected}` })
      }
      return [200, {}]
    }
    if (path !== '/invoke') return [200, {}]
    const { operation, id, group_id, callback_url } = body
    this.callbacks.set(id, callback_url)
    this.callbacks.set(`${group_id}\u0000${id}`, callback_url)
    const result = (fields: object) => ({ type: 'tool_result', group_id, id, call_id: body.call_id, ...fields })
    switch (operation) {
      case 'reject':
        return [400, { error: 'bad request' }]
      case 'flaky': {
        const attempts = (this.#attempts.get(id) ?? 0) + 1
        this.#attempts.set(id, attempts)
        if (attempts === 1) return [503]
        this.#later(id, result({ text: `ok after ${attempts} attempts` }))
        return [200]
      }
      case 'slow':
        return [200]
      case 'echo':
        this.#later(id, result({ text: `echo ${JSON.stringify(body.arguments)}` }))
        return [200]
      case 'twice':
        // The same result twice, then a different one: 200, 200 (idempotent), 409.
        this.#later(id, result({ text: 'once' }), result({ text: 'once' }), result({ text: 'changed' }))
        return [200]
      case 'delayed':
        setTimeout(() => this.#later(id, result({ text: 'finally' })), 200)
        return [200]
      case 'image':
        this.#later(
          id,
          result({
            content: [
              { type: 'text', text: 'a pixel' },
              { type: 'image', data: PIXEL, mediaType: 'image/png' },
            ],
            display_as: [{ type: 'text', content: 'pixel' }],
          }),
        )
        return [200]
      case 'fail':
        this.#later(id, result({ text: 'Error: the tool failed' }))
        return [200]
      case 'subscribe':
        this.#later(id, result({ text: 'subscribed', subscription: true }), {
          type: 'subscription_event',
          group_id,
          tool_call_id: id,
          text: 'the price is 42',
        })
        return [200]
      case 'watch':
        this.#later(id, result({ text: 'watching', subscription: true }))
        return [200]
      case 'eventfirst':
        // An event while the call is still pending, then the result opening the subscription.
        this.#later(
          id,
          { type: 'subscription_event', group_id, tool_call_id: id, text: 'early news' },
          result({ text: 'subscribed', subscription: true }),
        )
        return [200]
      case 'events':
        this.#later(
          `${group_id}\u0000${id}`,
          { type: 'oauth', group_id, id, auth_url: 'https://auth.example/authorize' },
          {
            type: 'user_choice',
            group_id,
            id,
            prompt: 'Which one?',
            choices: ['left', 'right'],
            default: 0,
            response_url: `${this.baseUrl}/choice?group=${encodeURIComponent(group_id)}`,
          },
          { type: 'view_update', group_id, view_type: 'diff', content: { file: 'a.txt' } },
        )
        // The result follows the choice's answer.
        this.#choices.set(`${group_id}\u0000${id}`, { callKey: `${group_id}\u0000${id}` })
        return [200]
      case 'big': {
        const { bytes, fill } = body.arguments as { bytes: number; fill: string }
        this.#later(id, result({ text: fill.repeat(bytes) }))
        return [200]
      }
      default:
        return [404]
    }
  }

  /** POSTs the messages to the call's callback URL one after another, after answering. */
  #later(id: string, ...messages: Record<string, unknown>[]) {
    setImmediate(async () => {
      for (const message of messages) if ((await this.post(id, message)) === 0) break
    })
  }
}
