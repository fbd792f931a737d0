// run() with the official openai and @anthropic-ai/sdk clients (r10 user review #5,
// 23-run-openai-sdk and 24-sdk-whole-object), as the README shows it: __test__/consumer/sdk-run.ts
// is type-checked under strict nodenext (tsconfig.strict.json) and run here against a local server
// that answers as the providers do, streamed or whole. A model function may return the SDK's
// stream, its whole response object, or the body as text or bytes.
import { readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { ToolRuntime, type Wire } from '../dist/index.js'
import { addRuntime, runWithAnthropic, runWithOpenAI, runWithOpenAIWhole } from './consumer/sdk-run'

const sse = (data: object, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`
const chunk = (delta: object, finish: string | null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })
const toolCall = { id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } }
const whole = (first: boolean) => ({
  id: 'x', object: 'chat.completion', created: 1, model: 'm',
  choices: [{ index: 0, finish_reason: first ? 'tool_calls' : 'stop', message: first ? { role: 'assistant', content: null, tool_calls: [toolCall] } : { role: 'assistant', content: 'two' } }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
})

let server: http.Server
let base = ''

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    let text = ''
    for await (const part of req) text += part
    const body = JSON.parse(text)
    // the first turn of a conversation calls `add`; once its result is in the history, it answers
    const first = !JSON.stringify(body.messages).includes('tool')
    if (req.url!.endsWith('/chat/completions') && body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(whole(first)))
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    if (req.url!.endsWith('/chat/completions')) {
      res.write(sse(first ? chunk({ role: 'assistant', tool_calls: [{ index: 0, ...toolCall }] }, null) : chunk({ role: 'assistant', content: 'two' }, null)))
      res.write(sse(chunk({}, first ? 'tool_calls' : 'stop')))
      res.end('data: [DONE]\n\n')
      return
    }
    res.write(sse({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'x', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 0 } } }, 'message_start'))
    if (first) {
      res.write(sse({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'add', input: {} } }, 'content_block_start'))
      res.write(sse({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } }, 'content_block_delta'))
    } else {
      res.write(sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'))
      res.write(sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'two' } }, 'content_block_delta'))
    }
    res.write(sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'))
    res.write(sse({ type: 'message_delta', delta: { stop_reason: first ? 'tool_use' : 'end_turn' }, usage: { output_tokens: 3 } }, 'message_delta'))
    res.end(sse({ type: 'message_stop' }, 'message_stop'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => server?.close())

describe('run() with the official SDKs', () => {
  it('openai: the SDK stream, as the README shows it', async () => {
    const outcome = await runWithOpenAI(`${base}/v1`)
    expect(outcome.error).toBeUndefined()
    expect(outcome.stopReason).toBe('stop')
    expect(outcome.steps.map((s) => s.results.map((r) => r.content))).toEqual([[[{ type: 'text', text: '2' }]], []])
    expect(outcome.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'two' })
  })

  it('anthropic: the SDK stream', async () => {
    const outcome = await runWithAnthropic(base)
    expect(outcome.error).toBeUndefined()
    expect(outcome.stopReason).toBe('stop')
    expect(outcome.steps[0]!.results[0]).toMatchObject({ callId: 'toolu_1', status: 'ok' })
  })

  it("openai: the SDK's whole (non-streamed) response object is decoded as the whole response it is", async () => {
    const outcome = await runWithOpenAIWhole(`${base}/v1`)
    expect(outcome.error).toBeUndefined()
    expect(outcome.stopReason).toBe('stop')
    expect(outcome.steps[0]!.results[0]).toMatchObject({ callId: 'call_1', status: 'ok' })
    expect(outcome.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'two' })
    expect(outcome.usage).toEqual({ inputTokens: 6, outputTokens: 4 })
  })
})

describe('a whole answer in one value', () => {
  // what each form of a whole chat.completion is, returned by the model function
  const forms: [label: string, make: (first: boolean) => unknown][] = [
    ['an object', (first) => whole(first)],
    ['the body as text', (first) => JSON.stringify(whole(first))],
    ['the body as bytes', (first) => new TextEncoder().encode(JSON.stringify(whole(first)))],
    ['an array of the object (as before)', (first) => [whole(first)]],
  ]
  for (const [label, make] of forms) {
    it(label, async () => {
      const runtime = addRuntime()
      let turn = 0
      const outcome = await runtime.run({ wire: 'openai-chat', messages: [{ role: 'user', content: 'x' }], model: async () => make(turn++ === 0) as never })
      expect(outcome.error, label).toBeUndefined()
      expect(outcome.stopReason, label).toBe('stop')
      expect(outcome.steps[0]!.results.map((r) => r.status), label).toEqual(['ok'])
    })
  }

  // Seen in the issue 19 round 5 attack review (r1.mjs): a chat.completion asked with n: 2 ran
  // choice 0's calls and dropped choice 1's without a word.
  it('a response of two choices runs the first and says the others were left, in its step', async () => {
    const runtime = addRuntime()
    let turn = 0
    const two = (first: boolean) => {
      const body = whole(first)
      return { ...body, choices: [...body.choices, { ...body.choices[0]!, index: 1 }] }
    }
    const outcome = await runtime.run({ wire: 'openai-chat', messages: [{ role: 'user', content: 'x' }], model: async () => two(turn++ === 0) as never })
    expect(outcome.stopReason).toBe('stop')
    expect(outcome.steps[0]!.results.map((r) => r.status)).toEqual(['ok'])
    for (const step of outcome.steps) {
      expect(step.errors).toEqual([expect.stringContaining('more than one choice (`n` > 1): only choice 0 was read')])
      expect(step.errorKinds).toEqual(['several-choices'])
    }
  })

  // each wire's whole (non-streamed) response object, as its SDK returns it with streaming off
  const wholeByWire: [wire: Wire, first: object, last: object][] = [
    ['openai-chat', whole(true), whole(false)],
    ['mistral', whole(true), whole(false)],
    [
      'anthropic',
      { id: 'msg_1', type: 'message', role: 'assistant', model: 'c', content: [{ type: 'tool_use', id: 'toolu_1', name: 'add', input: { a: 1 } }], stop_reason: 'tool_use', usage: { input_tokens: 1, output_tokens: 1 } },
      { id: 'msg_2', type: 'message', role: 'assistant', model: 'c', content: [{ type: 'text', text: 'two' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } },
    ],
    [
      'openai-responses',
      { id: 'resp_1', object: 'response', status: 'completed', output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'add', arguments: '{"a":1}', status: 'completed' }] },
      { id: 'resp_2', object: 'response', status: 'completed', output: [{ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'two' }] }] },
    ],
    [
      'gemini',
      { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'add', args: { a: 1 } } }] }, finishReason: 'STOP' }] },
      { candidates: [{ content: { role: 'model', parts: [{ text: 'two' }] }, finishReason: 'STOP' }] },
    ],
  ]
  for (const [wire, first, last] of wholeByWire) {
    it(`${wire}: the SDK's whole response object`, async () => {
      let turn = 0
      const outcome = await addRuntime().run({ wire, messages: [], model: async () => (turn++ === 0 ? first : last) })
      expect(outcome.error, wire).toBeUndefined()
      expect(outcome.stopReason, wire).toBe('stop')
      expect(outcome.steps.map((step) => step.results.map((r) => [r.tool, r.status])), wire).toEqual([[['add', 'ok']], []])
    })
  }

  it('what is no answer at all is refused saying what to return', async () => {
    for (const wrong of [undefined, null, 42, true]) {
      const outcome = await new ToolRuntime().run({ wire: 'openai-chat' as Wire, model: async () => wrong as never })
      expect(outcome.stopReason).toBe('error')
      expect(outcome.error).toMatch(/must resolve to a fetch Response, a ReadableStream, an \(async\) iterable of chunks or a whole response \(an SDK's response object, or the body as text or bytes\), got /)
    }
  })
})

describe('the README shows the examples the strict type test compiles', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

  it('the LangGraph graph (__test__/consumer/langgraph.ts)', () => {
    const source = readFileSync(new URL('./consumer/langgraph.ts', import.meta.url), 'utf8')
    const block = /\/\/ --- README: toolwire\/langchain ---\n([\s\S]*?)\n\s*\/\/ --- end ---/.exec(source)![1]!
    const lines = block.split('\n').map((line) => line.replace(/^ {2}/, ''))
    expect(readme).toContain(lines.join('\n'))
  })

  it('the Use examples, whole (__test__/consumer/use.mts): the agent the section opens with, then dispatch', () => {
    const source = readFileSync(new URL('./consumer/use.mts', import.meta.url), 'utf8')
    const agent = /\/\/ --- README: Use ---\n([\s\S]*?)\n\/\/ --- end ---/.exec(source)![1]!
    const dispatch = /\/\/ --- README: Use, dispatch ---\n([\s\S]*?)\n\/\/ --- end ---/.exec(source)![1]!
    expect(readme).toContain(`## Use\n\n\`\`\`ts\n${agent}\n\`\`\`\n`)
    // the issue's measure: an agent in fifteen lines of code (imports and blank lines aside)
    expect(agent.split('\n').filter((line) => line !== '' && !line.startsWith('import ')).length).toBeLessThanOrEqual(15)
    expect(readme).toContain(`\`\`\`ts\n${dispatch}\n\`\`\`\n`)
  })

  it('the Vitest file for an agent, whole (__test__/readme-agent.test.ts)', () => {
    const source = readFileSync(new URL('./readme-agent.test.ts', import.meta.url), 'utf8')
    const file = /\/\/ --- README: Vitest ---\n([\s\S]*?)\n\/\/ --- end ---/.exec(source)![1]!
    expect(readme).toContain(`\`\`\`ts\n${file}\n\`\`\`\n`)
  })

  it("the OpenAI SDK's model function (__test__/consumer/sdk-run.ts)", () => {
    const source = readFileSync(new URL('./consumer/sdk-run.ts', import.meta.url), 'utf8')
    const line = /\n\s*(model: \(request, \{ signal \}\) => openai\.chat\.completions\.create\(\{ \.\.\.request, model: 'gpt-4o-mini', stream: true \}, \{ signal \}\),)\n/.exec(source)![1]!
    expect(readme).toContain(`\n  ${line}\n`)
  })
})
