// run() hands nothing raw: every value it hands out (the events onEvent gets, the outcome's steps
// and error) is scrubbed of secrets as the audit log's copy is, with the runtime's `sanitize`
// settings, deltas included when a secret is split across them. The tool gets its arguments as
// the model wrote them, and so does the model, in the history (attack review, finding 06).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { ToolRuntime, type RunEvent } from '../dist/index.js'

// A made-up key, split where a streaming model may split it.
const SECRET = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0'
const [HEAD, TAIL] = [SECRET.slice(0, 14), SECRET.slice(14)]
const LABEL = '[redacted:openai-key]'

const root = mkdtempSync(join(tmpdir(), 'toolwire-run-secrets-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The parts of `secret` (8 characters or more) that `value`'s JSON text holds. */
function leaks(value: unknown, secret = SECRET): string[] {
  const text = JSON.stringify(value) ?? ''
  const found: string[] = []
  for (let at = 0; at + 8 <= secret.length; at++) if (text.includes(secret.slice(at, at + 8))) found.push(secret.slice(at, at + 8))
  return found
}

const sse = (events: object[]) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')
const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })
/** An OpenAI Chat answer whose text and one call's arguments arrive in the pieces given. */
function chatAnswer(text: string[], args: string[], name = 'login'): string {
  const events: object[] = text.map((content) => chunk({ content }))
  if (args.length > 0) {
    events.push(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: '' } }] }))
    for (const part of args) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }))
  }
  events.push(chunk({}, args.length > 0 ? 'tool_calls' : 'stop'))
  return `${sse(events)}data: [DONE]\n\n`
}

function loginRuntime(options: ConstructorParameters<typeof ToolRuntime>[0] = {}) {
  const runtime = new ToolRuntime(options)
  const given: unknown[] = []
  runtime.register({
    name: 'login',
    description: 'Logs in',
    parameters: { type: 'object', properties: { key: { type: 'string' } } },
    execute: async (_id: string, params: unknown) => {
      given.push(params)
      return 'logged in'
    },
  })
  return { runtime, given }
}

const deltas = (events: RunEvent[], type: 'text_delta' | 'thinking_delta' | 'toolcall_delta') =>
  events.flatMap((event) => (event.type === type ? [event.delta] : [])).join('')

describe('run: no secret in what it hands out', () => {
  it('text and call arguments split across deltas, a call, its result, and the provider error quoting the key', async () => {
    const dir = join(root, 'audit')
    const { runtime, given } = loginRuntime({ audit: { dir } })
    const requests: any[] = []
    let turn = 0
    const events: RunEvent[] = []
    const outcome = await runtime.run({
      wire: 'openai-chat',
      runId: 'secrets',
      model: async (request) => {
        requests.push(structuredClone(request))
        if (turn++ === 0) return chatAnswer([`I will log in with ${HEAD}`, `${TAIL} now.`], [`{"key":"${HEAD}`, `${TAIL}"}`])
        return new Response(JSON.stringify({ error: { message: `Invalid Authorization: Bearer ${SECRET}` } }), { status: 401 })
      },
      onEvent: (event) => events.push(event),
    })
    // every place the secret could surface
    expect(outcome.stopReason).toBe('error')
    for (const event of events) expect(leaks(event), event.type).toEqual([])
    expect(leaks(outcome.steps)).toEqual([])
    expect(leaks(outcome.error)).toEqual([])
    expect(outcome.error).toContain(`Bearer ${LABEL}`)
    const done = events.at(-1)!
    expect(done).toMatchObject({ type: 'done', stopReason: 'error', error: outcome.error })
    // what was sent is the text with the key replaced, whole: no part of it went out first
    expect(deltas(events, 'text_delta')).toBe(`I will log in with ${LABEL} now.`)
    expect(deltas(events, 'toolcall_delta')).toBe(`{"key":"${LABEL}"}`)
    const appended = events.flatMap((e) => (e.type === 'toolcall_delta' && e.partial !== undefined && 'append' in e.partial ? [e.partial.append] : [])).join('')
    expect(appended).toBe(LABEL)
    const end = events.find((e) => e.type === 'toolcall_end')
    expect(end?.type === 'toolcall_end' && end.toolCall.arguments).toBe(`{"key":"${LABEL}"}`)
    expect(outcome.steps[0]!.text).toBe(`I will log in with ${LABEL} now.`)
    expect(outcome.steps[0]!.calls[0]!.arguments).toBe(`{"key":"${LABEL}"}`)
    expect(outcome.steps[0]!.results[0]!.args).toEqual({ key: LABEL })
    // the tool got the key as the model wrote it
    expect(given).toEqual([{ key: SECRET }])
    // the history is the model's: its own call comes back to it exactly (the provider pairs
    // results with calls, and the model would otherwise read a label as what it sent)
    expect(JSON.stringify(requests[1].messages)).toContain(`{\\"key\\":\\"${SECRET}\\"}`)
    expect(JSON.stringify(outcome.messages)).toContain(SECRET)
    // as the audit log's copy (scrubbed there too)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const logged = readdirSync(dir).flatMap((run) => readdirSync(join(dir, run)).map((file) => readFileSync(join(dir, run, file), 'utf8')))
    expect(leaks(logged)).toEqual([])
  })

  it("a decoder error quoting the key: the error event, the step's errors and the run's error", async () => {
    const { runtime } = loginRuntime()
    const events: RunEvent[] = []
    const answer = sse([chunk({ content: 'done' }, 'stop'), { error: { message: `upstream said: invalid key ${SECRET}` } }]) + 'data: [DONE]\n\n'
    const outcome = await runtime.run({ wire: 'openai-chat', model: async () => answer, onEvent: (event) => events.push(event) })
    const errors = events.filter((e) => e.type === 'error')
    expect(errors.length).toBeGreaterThan(0)
    expect(leaks(errors)).toEqual([])
    expect(JSON.stringify(errors)).toContain(LABEL)
    expect(leaks(outcome.steps)).toEqual([])
    expect(outcome.steps.flatMap((step) => step.errors ?? []).join(' ')).toContain(LABEL)
    expect(leaks(outcome.error)).toEqual([])
    expect(leaks(events)).toEqual([])
  })

  it('thinking split across deltas (Anthropic), and a kind of the runtime\'s own patterns', async () => {
    const token = 'acme_' + '12345678'
    const { runtime } = loginRuntime({ sanitize: { secrets: { patterns: [{ kind: 'acme', pattern: 'acme_[0-9]{8}' }] } } })
    const named = (events: [string, object][]) => events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).join('')
    const answer = named([
      ['message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }],
      ['content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }],
      ['content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: `The key is ${HEAD}` } }],
      ['content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: `${TAIL}, the token acme_1234` } }],
      ['content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: '5678.' } }],
      ['content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'c2lnbmF0dXJl' } }],
      ['content_block_stop', { index: 0 }],
      ['content_block_start', { index: 1, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Nothing to do with acme_12' } }],
      ['content_block_delta', { index: 1, delta: { type: 'text_delta', text: '345678 here.' } }],
      ['content_block_stop', { index: 1 }],
      ['message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }],
      ['message_stop', {}],
    ])
    const events: RunEvent[] = []
    const outcome = await runtime.run({ wire: 'anthropic', model: async () => answer, onEvent: (event) => events.push(event) })
    expect(outcome.stopReason).toBe('stop')
    expect(deltas(events, 'thinking_delta')).toBe(`The key is ${LABEL}, the token [redacted:acme].`)
    expect(deltas(events, 'text_delta')).toBe('Nothing to do with [redacted:acme] here.')
    // the thinking ended before the text began
    const types = events.map((e) => e.type)
    expect(types.lastIndexOf('thinking_delta')).toBeLessThan(types.indexOf('text_delta'))
    expect(leaks(events)).toEqual([])
    expect(leaks(events, token)).toEqual([])
    expect(leaks(outcome.steps, token)).toEqual([])
  })

  it("follows the runtime's settings: with secret scrubbing off, nothing is replaced", async () => {
    const { runtime } = loginRuntime({ sanitize: { secrets: { enabled: false } } })
    const events: RunEvent[] = []
    let turn = 0
    await runtime.run({
      wire: 'openai-chat',
      model: async () => (turn++ === 0 ? chatAnswer([`key ${HEAD}`, TAIL], [`{"key":"${SECRET}"}`]) : chatAnswer(['ok'], [])),
      onEvent: (event) => events.push(event),
    })
    expect(deltas(events, 'text_delta')).toBe(`key ${SECRET}ok`)
  })
})
