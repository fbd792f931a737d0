import { describe, expect, it } from 'vitest'

import { StreamDecoder, ToolRuntime } from '../dist/index.js'
import type { Wire } from '../dist/index.js'
import { faultyStream, scriptedBody, scriptedModel as scriptedToolkitModel } from '../dist/testing/index.js'
import type { ScriptedTurn as ScriptedToolkitTurn } from '../dist/testing/index.js'
import { body, scriptedModel } from './scripted.js'
import type { AnswerForm, ScriptedTurn } from './scripted.js'
import { runtimeWithRead, sleep, stringsSchema, userMessage } from './helpers.js'

const WIRES: Wire[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mistral']

/** Every event type the run emitted, in order, with tool events collapsed to their type. */
function typesOf(events: any[]) {
  return events.map((e) => e.type)
}

describe('run: the agent loop on each wire', () => {
  for (const wire of WIRES) {
    it(`${wire}: parallel calls, a bad call fed back, a truncated turn, then the answer`, async () => {
      const { runtime, ran } = runtimeWithRead()
      const script: ScriptedTurn[] = [
        {
          text: 'Let me look.',
          calls: [
            { id: 'c1aaaaaaa', name: 'read', args: '{"path":"a.txt"}' },
            { id: 'c2aaaaaaa', name: 'read', args: '{"path":"b.txt"}' },
          ],
        },
        // Gemini sends arguments as objects, so it cannot send invalid JSON: a wrong type instead.
        wire === 'gemini'
          ? { calls: [{ id: 'c3aaaaaaa', name: 'read', args: '{"path":7}' }] }
          : { calls: [{ id: 'c3aaaaaaa', name: 'read', args: '{"path": "c.txt",' }] },
        { calls: [{ id: 'c4aaaaaaa', name: 'read', args: '{"path":"d.txt"}' }], stop: 'length' },
        { text: 'All done.' },
      ]
      const { model, requests } = scriptedModel(wire, script)
      const events: any[] = []
      const outcome = await runtime.run({
        wire,
        model,
        messages: [wire === 'gemini' ? { role: 'user', parts: [{ text: 'read them' }] } : { role: 'user', content: 'read them' }],
        onEvent: (event) => events.push(event),
      })

      expect(outcome.stopReason).toBe('stop')
      expect(requests).toHaveLength(4)
      expect(ran.sort()).toEqual(['a.txt', 'b.txt'])
      expect(outcome.steps.map((s) => s.results.map((r) => r.error?.code ?? r.status))).toEqual([
        ['ok', 'ok'],
        [wire === 'gemini' ? 'VALIDATION_ERROR' : 'INVALID_JSON'],
        ['INCOMPLETE_ARGUMENTS'],
        [],
      ])
      expect(outcome.steps[2].results[0].content[0]).toMatchObject({ text: expect.stringContaining('complete arguments') })
      // Every request carries the tools and the whole history so far; the history only grows.
      const sizes = requests.map((r) => (r.messages ?? r.input ?? r.contents).length)
      expect(sizes).toEqual([...sizes].sort((a, b) => a - b))
      expect(new Set(sizes).size).toBe(4)
      for (const request of requests) expect(JSON.stringify(request.tools)).toContain('read')
      expect(outcome.messages.length).toBeGreaterThan(sizes[3])
      expect(JSON.stringify(outcome.messages)).toContain('contents of b.txt')
      expect(JSON.stringify(outcome.messages)).toContain('All done.')
      // The history needs no repair: every call has its result.
      const repaired = (await import('../dist/index.js')).repairHistory(outcome.messages, wire)
      expect(repaired.report).toEqual({ renamed: [], synthesized: [], removed: [] })
      expect(outcome.usage).toEqual({ inputTokens: 40, outputTokens: 20 })

      const types = typesOf(events)
      expect(types.filter((t) => t === 'turn_start')).toHaveLength(4)
      expect(types.filter((t) => t === 'turn_end')).toHaveLength(4)
      expect(types.filter((t) => t === 'done')).toHaveLength(1)
      expect(types[types.length - 1]).toBe('done')
      expect(events[events.length - 1]).toMatchObject({ type: 'done', stopReason: 'stop' })
      expect(types.filter((t) => t === 'tool_execution_end')).toHaveLength(4)
      expect(types).toContain('toolcall_start')
    })
  }
})

describe('run: stopping', () => {
  const call = (id: string, path = 'a.txt') => ({ id, name: 'read', args: JSON.stringify({ path }) })

  it('stops at maxSteps model calls', async () => {
    const { runtime } = runtimeWithRead()
    const { model, requests } = scriptedModel('openai-chat', [{ calls: [call('c1')] }, { calls: [call('c2', 'b')] }, { text: 'x' }])
    const outcome = await runtime.run({ wire: 'openai-chat', model, maxSteps: 2 })
    expect(outcome.stopReason).toBe('maxSteps')
    expect(requests).toHaveLength(2)
    expect(outcome.steps).toHaveLength(2)
  })

  it('resolves aborted when the signal aborts, with exactly one done', async () => {
    const { runtime } = runtimeWithRead()
    const controller = new AbortController()
    const events: string[] = []
    const outcome = await runtime.run({
      wire: 'openai-chat',
      signal: controller.signal,
      onEvent: (e) => events.push(e.type),
      model: async () => {
        controller.abort()
        throw new DOMException('aborted', 'AbortError')
      },
    })
    expect(outcome.stopReason).toBe('aborted')
    expect(events.filter((t) => t === 'done')).toHaveLength(1)
  })

  it('stops when every result of a batch asks to terminate', async () => {
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'finish',
      parameters: { type: 'object' },
      execute: async () => ({ content: [{ type: 'text', text: 'bye' }], effects: { modified: ['notes.md'] }, terminate: true }),
    })
    const { model, requests } = scriptedModel('anthropic', [
      { calls: [{ id: 't1', name: 'finish', args: '{}' }] },
      { text: 'never asked' },
    ])
    const outcome = await runtime.run({ wire: 'anthropic', model })
    expect(outcome.stopReason).toBe('terminated')
    expect(requests).toHaveLength(1)
    expect(outcome.steps[0].results[0]).toMatchObject({ ok: true, terminate: true, effects: { modified: ['notes.md'] } })
  })

  it('ends with error (not a rejection) when the model fails, and rejects only misuse', async () => {
    const { runtime } = runtimeWithRead()
    const events: any[] = []
    const outcome = await runtime.run({
      wire: 'openai-chat',
      model: async () => new Response('rate limited', { status: 429 }),
      onEvent: (e) => events.push(e),
    })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toContain('HTTP 429')
    expect(events.filter((e) => e.type === 'done')).toEqual([{ type: 'done', runId: outcome.runId, stopReason: 'error', error: outcome.error }])
    await expect(runtime.run({ wire: 'nope' as any, model: async () => [] })).rejects.toThrow(/unknown wire/)
    await expect(runtime.run({ wire: 'openai-chat', model: 5 as any })).rejects.toThrow(TypeError)
    await expect(runtime.run({ wire: 'openai-chat', model: async () => [], maxSteps: 0 })).rejects.toThrow(/maxSteps/)
  })
})

describe('run: steering, follow-ups and SDK chunks', () => {
  it('injects steering messages before the next model call and runs follow-ups when it would stop', async () => {
    const { runtime } = runtimeWithRead()
    const { model, requests } = scriptedModel('openai-chat', [
      { calls: [{ id: 'c1', name: 'read', args: '{"path":"a"}' }] },
      { text: 'first answer' },
      { text: 'second answer' },
    ])
    let steered = false
    let followed = false
    const outcome = await runtime.run({
      wire: 'openai-chat',
      model,
      messages: [{ role: 'user', content: 'go' }],
      getSteeringMessages: () => {
        if (requests.length !== 1 || steered) return []
        steered = true
        return [{ role: 'user', content: 'also be brief' }]
      },
      getFollowUpMessages: () => {
        if (followed) return []
        followed = true
        return [{ role: 'user', content: 'one more thing' }]
      },
    })
    expect(outcome.stopReason).toBe('stop')
    expect(requests).toHaveLength(3)
    const second = requests[1].messages
    expect(second[second.length - 1]).toEqual({ role: 'user', content: 'also be brief' })
    const third = requests[2].messages
    expect(third[third.length - 1]).toEqual({ role: 'user', content: 'one more thing' })
  })

  it('accepts SDK chunk objects from an async iterable', async () => {
    const { runtime, ran } = runtimeWithRead()
    let turn = 0
    const model = async function* () {
      turn += 1
      const delta = (d: object, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] })
      if (turn === 1) {
        yield delta({ tool_calls: [{ index: 0, id: 'k1', type: 'function', function: { name: 'read', arguments: '{"path":"z"}' } }] })
        yield delta({}, 'tool_calls')
      } else {
        yield delta({ content: 'ok' })
        yield delta({}, 'stop')
      }
    }
    const outcome = await runtime.run({ wire: 'openai-chat', model: async (request) => model() })
    expect(outcome.stopReason).toBe('stop')
    expect(ran).toEqual(['z'])
  })
})


describe('run: the forms of a model answer', () => {
  const forms: AnswerForm[] = ['stream', 'strings', 'chunks', 'whole']
  const described: Record<string, string> = {
    stream: 'a bare ReadableStream',
    strings: 'string items',
    chunks: 'an async iterable of SDK chunk objects',
    whole: 'the whole JSON response of a server that ignores stream: true',
  }
  for (const wire of WIRES) {
    for (const form of forms) {
      it(`${wire}: ${described[form]}`, async () => {
        const { runtime, ran } = runtimeWithRead()
        const { model, requests } = scriptedModel(
          wire,
          [{ text: 'Looking.', calls: [{ id: 'f1aaaaaaa', name: 'read', args: '{"path":"a.txt"}' }] }, { text: 'Done.' }],
          form,
        )
        const outcome = await runtime.run({ wire, model, messages: [userMessage(wire, 'go')] })
        expect(outcome.stopReason).toBe('stop')
        expect(requests).toHaveLength(2)
        expect(ran).toEqual(['a.txt'])
        expect(outcome.steps.map((s) => s.text)).toEqual(['Looking.', 'Done.'])
        expect(outcome.steps.map((s) => s.stopReason)).toEqual(['toolUse', 'stop'])
        expect(outcome.error).toBeUndefined()
        expect(outcome.usage).toEqual({ inputTokens: 20, outputTokens: 10 })
      })
    }
  }
})

describe('run: toolChoice', () => {
  for (const wire of WIRES) {
    it(`${wire}: reaches the request body as the wire names it`, async () => {
      const { runtime } = runtimeWithRead()
      const choice = wire === 'gemini' ? { functionCallingConfig: { mode: 'ANY' } } : wire === 'anthropic' ? { type: 'any' } : 'required'
      const { model, requests } = scriptedModel(wire, [{ text: 'ok' }])
      await runtime.run({ wire, model, messages: [userMessage(wire, 'go')], toolChoice: choice })
      const [request] = requests
      if (wire === 'gemini') {
        expect(request.toolConfig).toEqual(choice)
        expect(request.tool_choice).toBeUndefined()
      } else {
        expect(request.tool_choice).toEqual(choice)
        expect(request.stream).toBe(true)
      }
      // Without the option, nothing is sent.
      const plain = scriptedModel(wire, [{ text: 'ok' }])
      await runtime.run({ wire, model: plain.model, messages: [userMessage(wire, 'go')] })
      expect(plain.requests[0]).not.toHaveProperty('tool_choice')
      expect(plain.requests[0]).not.toHaveProperty('toolConfig')
    })
  }
})

describe('run: more ways to stop, or not', () => {
  const readCall = (id: string, path: string) => ({ id, name: 'read', args: JSON.stringify({ path }) })

  it('stops after 20 model calls by default', async () => {
    const { runtime } = runtimeWithRead()
    const script = Array.from({ length: 25 }, (_, i) => ({ calls: [readCall(`m${i}`, `f${i}.txt`)] }))
    const { model, requests } = scriptedModel('openai-chat', script)
    const outcome = await runtime.run({ wire: 'openai-chat', model })
    expect(outcome.stopReason).toBe('maxSteps')
    expect(requests).toHaveLength(20)
    expect(outcome.steps).toHaveLength(20)
  })

  it('takes no steering messages once maxSteps is reached (they would never be sent)', async () => {
    const { runtime } = runtimeWithRead()
    const { model, requests } = scriptedModel('openai-chat', [{ calls: [readCall('s1', 'a')] }, { calls: [readCall('s2', 'b')] }])
    let asked = 0
    const outcome = await runtime.run({
      wire: 'openai-chat',
      model,
      maxSteps: 2,
      getSteeringMessages: () => {
        asked += 1
        return [{ role: 'user', content: `steer ${asked}` }]
      },
    })
    expect(outcome.stopReason).toBe('maxSteps')
    expect(requests).toHaveLength(2)
    // One message before each model call, none after the last.
    expect(asked).toBe(2)
    expect(requests[1].messages.at(-1)).toEqual({ role: 'user', content: 'steer 2' })
    expect(JSON.stringify(outcome.messages)).not.toContain('steer 3')
    expect(outcome.messages.at(-1)).toMatchObject({ role: 'tool' })
  })

  it('goes on when only some results of a batch ask to terminate', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'finish', parameters: { type: 'object' }, execute: async () => ({ content: [{ type: 'text', text: 'bye' }], terminate: true }) })
    runtime.register({ name: 'note', parameters: { type: 'object' }, execute: async () => 'noted' })
    const { model, requests } = scriptedModel('anthropic', [
      {
        calls: [
          { id: 'p1', name: 'finish', args: '{}' },
          { id: 'p2', name: 'note', args: '{}' },
        ],
      },
      { text: 'carried on' },
    ])
    const outcome = await runtime.run({ wire: 'anthropic', model })
    expect(outcome.steps[0].results.map((r) => r.terminate === true)).toEqual([true, false])
    expect(outcome.stopReason).toBe('stop')
    expect(requests).toHaveLength(2)
  })

  it('aborts while a tool is running: the tool sees the abort, the run resolves aborted with one done', async () => {
    const runtime = new ToolRuntime()
    const controller = new AbortController()
    let toolSignal: AbortSignal | undefined
    runtime.register({
      name: 'wait',
      parameters: { type: 'object' },
      execute: (_id, _args, signal) =>
        new Promise((_resolve, reject) => {
          toolSignal = signal
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
          controller.abort()
        }),
    })
    const { model, requests } = scriptedModel('openai-chat', [{ calls: [{ id: 'w1', name: 'wait', args: '{}' }] }, { text: 'never' }])
    const events: any[] = []
    const outcome = await runtime.run({ wire: 'openai-chat', model, signal: controller.signal, onEvent: (e) => events.push(e) })
    expect(outcome.stopReason).toBe('aborted')
    expect(toolSignal?.aborted).toBe(true)
    expect(requests).toHaveLength(1)
    expect(outcome.steps[0].results[0].ok).toBe(false)
    expect(events.filter((e) => e.type === 'done')).toEqual([{ type: 'done', runId: outcome.runId, stopReason: 'aborted' }])
  })
})

describe('run: a model body that stalls', () => {
  // The events up to the text's last delta: all but the finish chunk, the usage chunk and [DONE].
  const firstChunk = body('openai-chat', { text: 'thinking' }).split('\n\n').slice(0, -4).join('\n\n') + '\n\n'

  it('an async iterable that yields one chunk then never resolves: abort ends the run', async () => {
    const { runtime } = runtimeWithRead()
    const controller = new AbortController()
    let returned = false
    const stalled: AsyncIterable<string> = {
      [Symbol.asyncIterator]() {
        let sent = false
        return {
          next: () => {
            if (sent) return new Promise<IteratorResult<string>>(() => {})
            sent = true
            return Promise.resolve({ done: false, value: firstChunk })
          },
          return: () => {
            returned = true
            return Promise.resolve({ done: true, value: undefined })
          },
        }
      },
    }
    const events: any[] = []
    setTimeout(() => controller.abort(), 50)
    const outcome = await runtime.run({ wire: 'openai-chat', model: async () => stalled, signal: controller.signal, onEvent: (e) => events.push(e) })
    expect(outcome.stopReason).toBe('aborted')
    expect(events.filter((e) => e.type === 'done')).toHaveLength(1)
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'aborted' })
    // The text that did arrive was decoded before the stall.
    expect(events.some((e) => e.type === 'text_delta' && e.delta === 'thinking')).toBe(true)
    expect(returned).toBe(true)
  })

  it('a ReadableStream that stalls is cancelled on abort', async () => {
    const { runtime } = runtimeWithRead()
    const controller = new AbortController()
    let cancelled = false
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(firstChunk))
      },
      cancel() {
        cancelled = true
      },
    })
    const events: string[] = []
    setTimeout(() => controller.abort(), 50)
    const outcome = await runtime.run({ wire: 'openai-chat', model: async () => stream, signal: controller.signal, onEvent: (e) => events.push(e.type) })
    expect(outcome.stopReason).toBe('aborted')
    expect(events.filter((t) => t === 'done')).toHaveLength(1)
    expect(cancelled).toBe(true)
  })

  it('a model call that never answers: abort ends the run', async () => {
    const { runtime } = runtimeWithRead()
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const events: string[] = []
    const outcome = await runtime.run({ wire: 'anthropic', model: () => new Promise(() => {}), signal: controller.signal, onEvent: (e) => events.push(e.type) })
    expect(outcome.stopReason).toBe('aborted')
    expect(events.filter((t) => t === 'done')).toHaveLength(1)
  })
})

describe('run: turns cut for length, and repairs', () => {
  const cut: ScriptedToolkitTurn = { calls: [{ name: 'read', arguments: '{"path":"very-long' }], stop: 'length' }

  it.each(WIRES.filter((wire) => wire !== 'gemini'))('%s: a second cut in a row ends the run with an error saying what to raise, after two model calls, running nothing', async (wire) => {
    const { runtime, ran } = runtimeWithRead()
    const model = scriptedToolkitModel(wire, [cut, cut, cut, { text: 'never asked' }])
    const outcome = await runtime.run({ wire, model, messages: [userMessage(wire, 'read it')] })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toBe(
      "run: the model's turn was cut at its output token limit inside its tool calls twice in a row (their calls were not run): raise the limit (max_tokens; models.anthropic's maxTokens) or ask for smaller arguments",
    )
    expect(model.requests).toHaveLength(2)
    expect(ran).toEqual([])
    expect(outcome.steps.map((step) => step.results.map((result) => result.error?.code))).toEqual([['INCOMPLETE_ARGUMENTS'], ['INCOMPLETE_ARGUMENTS']])
  })

  it('one cut, then a whole call: the run goes on as the model meant', async () => {
    const { runtime, ran } = runtimeWithRead()
    const model = scriptedToolkitModel('anthropic', [cut, { calls: [{ name: 'read', arguments: { path: 'a' } }] }, cut, { text: 'done' }])
    const outcome = await runtime.run({ wire: 'anthropic', model, messages: [userMessage('anthropic', 'read it')] })
    expect(outcome.stopReason).toBe('stop')
    expect(ran).toEqual(['a'])
  })

  it("a step keeps the provider quirks the decoder repaired for its turn, and none when it repaired none", async () => {
    const { runtime } = runtimeWithRead()
    // Mistral's calls come without an index: the decoder numbers them (missing-index)
    const model = scriptedToolkitModel('mistral', [{ calls: [{ name: 'read', arguments: { path: 'a' } }] }, { text: 'done' }])
    const outcome = await runtime.run({ wire: 'mistral', model, messages: [userMessage('mistral', 'read it')] })
    expect(outcome.steps[0]!.repairs?.map((repair) => repair.kind)).toContain('missing-index')
    expect(outcome.steps[1]).not.toHaveProperty('repairs')
  })
})

describe('run: a model answer without end', () => {
  /** A body that sends `first`, then `each` forever (a macrotask apart), counting what was sent; cancelled, it stops. */
  function endless(first: string, each: string) {
    const sent = { chunks: 0, cancelled: false }
    const encoder = new TextEncoder()
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(first))
      },
      async pull(controller) {
        await new Promise((resolve) => setImmediate(resolve))
        sent.chunks += 1
        controller.enqueue(encoder.encode(each))
      },
      cancel() {
        sent.cancelled = true
      },
    })
    return { stream, sent }
  }
  const chunk = (delta: object) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta }] })}\n\n`

  it('keep-alive comments only: answerTimeoutMs ends the run with an error naming it; the model saw the signal abort', async () => {
    const { runtime, ran } = runtimeWithRead()
    const { stream, sent } = endless(': ping\n\n', ': ping\n\n')
    let modelSignal: AbortSignal | undefined
    const events: any[] = []
    const outcome = await runtime.run({
      wire: 'openai-chat',
      model: (_request, { signal }) => {
        modelSignal = signal
        return new Response(stream)
      },
      answerTimeoutMs: 100,
      onEvent: (event) => events.push(event),
    })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toMatch(/^run: the model's answer did not end within answerTimeoutMs \(100 ms\)/)
    expect(modelSignal?.aborted).toBe(true)
    expect(sent.cancelled).toBe(true)
    expect(ran).toEqual([])
    expect(events.filter((event) => event.type === 'done')).toEqual([{ type: 'done', runId: outcome.runId, stopReason: 'error', error: outcome.error }])
  })

  it("a tool call's arguments without end: maxAnswerBytes stops the reading and the run, running nothing", async () => {
    const { runtime, ran } = runtimeWithRead()
    const open = chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"' } }] })
    const { stream, sent } = endless(open, chunk({ tool_calls: [{ index: 0, function: { arguments: 'x'.repeat(1000) } }] }))
    const outcome = await runtime.run({ wire: 'openai-chat', model: () => new Response(stream), maxAnswerBytes: 64 * 1024 })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toMatch(/^run: the model's answer passed maxAnswerBytes \(65536 bytes; its reading was stopped\)/)
    expect(sent.cancelled).toBe(true)
    expect(sent.chunks).toBeLessThan(70)
    expect(ran).toEqual([])
  })

  it('items that never yield to the event loop (empty chunks forever) cannot hold an abort or the deadline off', async () => {
    const { runtime } = runtimeWithRead()
    const empty = async function* () {
      for (;;) yield ''
    }
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const aborted = await runtime.run({ wire: 'openai-chat', model: async () => empty(), signal: controller.signal })
    expect(aborted.stopReason).toBe('aborted')
    const starved = await runtime.run({ wire: 'openai-chat', model: async () => ({ [Symbol.asyncIterator]: () => ({ next: async () => ({ done: false, value: { choices: [] } }) }) }), answerTimeoutMs: 80 })
    expect(starved.stopReason).toBe('error')
    expect(starved.error).toMatch(/answerTimeoutMs \(80 ms\)/)
  })

  it("an SDK's chunk objects count toward maxAnswerBytes by their JSON, and the limit ends the turn as the deadline does (turn_end, then done)", async () => {
    const { runtime } = runtimeWithRead()
    const chunks = async function* () {
      for (;;) yield { id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'x'.repeat(1000) } }] }
    }
    const events: string[] = []
    const outcome = await runtime.run({ wire: 'openai-chat', model: async () => chunks(), maxAnswerBytes: 100_000, onEvent: (event) => events.push(event.type) })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toMatch(/^run: the model's answer passed maxAnswerBytes \(100000 bytes/)
    expect(events.slice(-2)).toEqual(['turn_end', 'done'])
    expect(events.filter((type) => type === 'text_delta').length).toBeLessThan(100)
  })

  it('an answer whose end arrived, its connection left open, is whole: the run goes on without waiting out the deadline', async () => {
    const { runtime, ran } = runtimeWithRead()
    const bodies = [scriptedBody('anthropic', { calls: [{ name: 'read', arguments: { path: 'a' } }] }), scriptedBody('anthropic', { text: 'done' })]
    let call = 0
    const model = () => {
      const text = bodies[call++]!
      // the whole answer, then a connection that never closes
      return new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode(text)) }))
    }
    const started = performance.now()
    const outcome = await runtime.run({ wire: 'anthropic', model, answerTimeoutMs: 60_000 })
    expect(outcome.stopReason).toBe('stop')
    expect(ran).toEqual(['a'])
    expect(outcome.steps.at(-1)!.text).toBe('done')
    // (each answer's open tail is given up after 2 s, not 60)
    expect(performance.now() - started).toBeLessThan(30_000)
  })

  it('a model that ignores its signal and answers after the deadline has its body cancelled', async () => {
    const { runtime } = runtimeWithRead()
    let cancelled = false
    const late = new Response(new ReadableStream({ cancel: () => void (cancelled = true) }))
    const outcome = await runtime.run({ wire: 'openai-chat', model: () => sleep(150).then(() => late), answerTimeoutMs: 50 })
    expect(outcome.stopReason).toBe('error')
    await sleep(200)
    expect(cancelled).toBe(true)
  })

  it('the deadline is per answer: a run of quick answers outlasting it ends as the model meant', async () => {
    const { runtime } = runtimeWithRead()
    const turns: ScriptedToolkitTurn[] = [{ calls: [{ name: 'read', arguments: { path: 'a' } }] }, { calls: [{ name: 'read', arguments: { path: 'b' } }] }, { text: 'done' }]
    const bodies = turns.map((turn) => scriptedBody('openai-chat', turn))
    let call = 0
    const model = async () => {
      await sleep(60)
      return new Response(bodies[call++])
    }
    const outcome = await runtime.run({ wire: 'openai-chat', model, answerTimeoutMs: 150 })
    expect(outcome.stopReason).toBe('stop')
    expect(outcome.steps.at(-1)!.text).toBe('done')
  })

  it('refuses limits that are not whole numbers from 1, naming them', async () => {
    const { runtime } = runtimeWithRead()
    const model = async () => new Response('')
    await expect(runtime.run({ wire: 'openai-chat', model, answerTimeoutMs: 0 })).rejects.toThrow(
      new TypeError('run: options.answerTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, got number 0'),
    )
    await expect(runtime.run({ wire: 'openai-chat', model, maxAnswerBytes: 1.5 })).rejects.toThrow(/^run: options\.maxAnswerBytes must be a whole number of bytes from 1 to 9007199254740991, got number 1\.5$/)
  })
})

describe('run: loop detection', () => {
  const same = (id: string) => ({ id, name: 'read', args: '{"path":"same.txt"}' })

  it('one run counts the same call across turns: a warning, then BLOCKED; the next run starts again', async () => {
    const runtime = new ToolRuntime({ loopDetection: { warnAt: 2, blockAt: 3 } })
    const ran: string[] = []
    runtime.register({ name: 'read', parameters: stringsSchema('path'), execute: async (_id, { path }: { path: string }) => (ran.push(path), 'x') })
    const { model } = scriptedModel('openai-chat', [{ calls: [same('l1')] }, { calls: [same('l2')] }, { calls: [same('l3')] }, { text: 'gave up' }])
    const events: any[] = []
    const outcome = await runtime.run({ wire: 'openai-chat', model, onEvent: (e) => events.push(e) })
    expect(outcome.stopReason).toBe('stop')
    expect(outcome.steps.slice(0, 3).map((s) => s.results[0].error?.code ?? s.results[0].status)).toEqual(['ok', 'ok', 'BLOCKED'])
    expect(ran).toHaveLength(2)
    expect(events.filter((e) => e.type === 'loop_warning')).toEqual([{ type: 'loop_warning', toolCallId: 'l2', toolName: 'read', count: 2 }])
    const next = scriptedModel('openai-chat', [{ calls: [same('n1')] }, { text: 'ok' }])
    const fresh = await runtime.run({ wire: 'openai-chat', model: next.model })
    expect(fresh.steps[0].results[0].ok).toBe(true)
  })

  it('with the defaults, ten identical calls in one batch: a warning at 5, the tenth BLOCKED', async () => {
    const { runtime, ran } = runtimeWithRead()
    const batch = Array.from({ length: 10 }, (_, i) => same(`b${i}`))
    const { model } = scriptedModel('anthropic', [{ calls: batch }, { text: 'ok' }])
    const events: any[] = []
    const outcome = await runtime.run({ wire: 'anthropic', model, onEvent: (e) => events.push(e) })
    expect(outcome.steps[0].results.map((r) => r.status)).toEqual([...Array(9).fill('ok'), 'blocked'])
    expect(outcome.steps[0].results[9].error?.code).toBe('BLOCKED')
    expect(ran).toHaveLength(9)
    expect(events.filter((e) => e.type === 'loop_warning').map((e) => [e.toolName, e.count])).toEqual([['read', 5]])
  })
})

// A turn whose stream broke (truncated, the provider's error event) may already hold a call the
// wire sealed (Anthropic's content_block_stop, a Responses output_item.done, a whole Gemini part):
// it was run and the loop went on, the break seen only in step.errors. A turn that did not end
// runs none of its calls, as a turn cut for length does, and the run stops with the error.
describe('run: a turn whose stream broke runs none of its calls', () => {
  const TURN: ScriptedToolkitTurn = {
    text: 'Reading both.',
    calls: [
      { id: 'c1aaaaaaa', name: 'read', arguments: { path: 'a.txt' } },
      { id: 'c2aaaaaaa', name: 'read', arguments: { path: 'b.txt' } },
    ],
  }

  /** The fewest events of `body` that decode to a broken turn holding a complete call. */
  const sealedCut = (wire: Wire, body: string): number => {
    for (let events = 1; ; events++) {
      const text = cutText(body, wire, events)
      if (text === undefined) throw new Error(`${wire}: no cut of the body holds a sealed call`)
      const decoder = new StreamDecoder(wire)
      decoder.push(text)
      const turn = decoder.finish()
      if (turn.stopReason === 'error' && turn.toolCalls.some((call) => call.complete)) return events
    }
  }

  /** The first `events` events of an SSE `body` (undefined past its end). */
  const cutText = (body: string, wire: Wire, events: number): string | undefined => {
    const separator = wire === 'gemini' ? '\r\n\r\n' : '\n\n'
    const parts = body.split(separator).filter((part) => part.trim() !== '')
    return events > parts.length ? undefined : parts.slice(0, events).map((part) => part + separator).join('')
  }

  for (const wire of ['anthropic', 'openai-responses', 'gemini'] as const) {
    it(`${wire}: a stream cut after a sealed call stops the run with the truncation, the call not run`, async () => {
      const { runtime, ran } = runtimeWithRead()
      // (Gemini sends each call whole, here in the last chunk with the finishReason: a stream
      // that breaks before it is the chunk without it)
      const body = scriptedBody(wire, TURN).replace('"finishReason": "STOP",', '')
      const head = cutText(body, wire, sealedCut(wire, body))!
      let calls = 0
      const outcome = await runtime.run({
        wire,
        messages: [userMessage(wire, 'read them')],
        model: () => {
          calls += 1
          return faultyStream(head, { split: 'byte' })
        },
      })
      expect(ran, wire).toEqual([])
      expect(calls, wire).toBe(1)
      expect(outcome.stopReason, wire).toBe('error')
      expect(outcome.error, wire).toContain('the stream ended before its terminal event')
      expect(outcome.error, wire).toContain('(its tool calls were not run)')
      const [step] = outcome.steps
      expect(step.stopReason, wire).toBe('error')
      expect(step.errorKinds, wire).toContain('stream-truncated')
      expect(step.calls.some((call) => call.complete), wire).toBe(true)
      expect(step.results.map((result) => result.error?.code), wire).toEqual(step.calls.map(() => 'INCOMPLETE_ARGUMENTS'))
      // The history holds the broken turn with a result for each of its calls: it can go on.
      const { repairHistory } = await import('../dist/index.js')
      expect(repairHistory(outcome.messages, wire).report, wire).toEqual({ renamed: [], synthesized: [], removed: [] })
    })
  }

  it("anthropic: the provider's error event after a sealed call stops the run, naming the error", async () => {
    const { runtime, ran } = runtimeWithRead()
    const body = scriptedBody('anthropic', TURN)
    const head = cutText(body, 'anthropic', sealedCut('anthropic', body))!
    const overloaded = 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    const outcome = await runtime.run({ wire: 'anthropic', messages: [userMessage('anthropic', 'go')], model: () => faultyStream(head + overloaded) })
    expect(ran).toEqual([])
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toContain('overloaded_error')
    expect(outcome.steps[0].results.every((result) => result.error?.code === 'INCOMPLETE_ARGUMENTS')).toBe(true)
  })
})

describe('run: answers that are not the stream asked for', () => {
  it('asks openai-chat for usage (stream_options.include_usage), and no other wire', async () => {
    for (const wire of WIRES) {
      const { runtime } = runtimeWithRead()
      const { model, requests } = scriptedModel(wire, [{ text: 'ok' }])
      await runtime.run({ wire, model, messages: [userMessage(wire, 'go')] })
      if (wire === 'openai-chat') expect(requests[0].stream_options, wire).toEqual({ include_usage: true })
      else expect(requests[0], wire).not.toHaveProperty('stream_options')
    }
  })

  it('a body that is not the wire (an HTML login page) ends the run with an error naming its content type and first bytes', async () => {
    for (const wire of WIRES) {
      const { runtime, ran } = runtimeWithRead()
      const page = `<!DOCTYPE html>\n<html><head><title>Sign in to the gateway</title></head><body>${'<div>x</div>'.repeat(5000)}</body></html>`
      const model = async () => new Response(page, { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } })
      const outcome = await runtime.run({ wire, model, messages: [userMessage(wire, 'go')] })
      expect(outcome.stopReason, wire).toBe('error')
      expect(ran).toEqual([])
      expect(outcome.error, wire).toContain(`the body (content type "text/html; charset=utf-8") is not a response of the ${wire} wire`)
      expect(outcome.error, wire).toContain('it begins with "<!DOCTYPE html>\\n<html><head><title>Sign in to the gateway</title>')
      expect(outcome.error!.length, wire).toBeLessThan(400)
    }
    // The same page behind an HTTP error status: named the same way, escaped and bounded.
    const { runtime } = runtimeWithRead()
    const page = `<!DOCTYPE html>\n<title>Sign in</title>${'<div>x</div>'.repeat(5000)}`
    const outcome = await runtime.run({
      wire: 'anthropic',
      model: async () => new Response(page, { status: 401, headers: { 'content-type': 'text/html' } }),
    })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toMatch(/^the model answered HTTP 401 \(content type "text\/html"\): "<!DOCTYPE html>\\n<title>Sign in<\/title><div>x.*"… \(60038 characters\)$/)
    expect(outcome.error!.length).toBeLessThan(500)
  })

  // A model's error body was read whole (answer.text()) before 300 characters of it were
  // quoted: a gigabyte of error page (or one that never ends) was buffered. Only its first
  // 64 KiB are read; the rest is cancelled, never pulled.
  it('an error body of a gigabyte is read no further than 64 KiB', async () => {
    const { runtime } = runtimeWithRead()
    let pulled = 0
    let cancelled = false
    const chunk = new TextEncoder().encode('<p>busy</p>'.repeat(1000))
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 2 ** 30) return controller.close()
        pulled += chunk.byteLength
        controller.enqueue(chunk)
      },
      cancel() {
        cancelled = true
      },
    }, { highWaterMark: 0 })
    const outcome = await runtime.run({
      wire: 'openai-chat',
      model: async () => new Response(body, { status: 503, headers: { 'content-type': 'text/html' } }),
    })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toMatch(/^the model answered HTTP 503 \(content type "text\/html"\): "<p>busy<\/p>.*"… \(over 65536 bytes, not read further\)$/)
    expect(pulled).toBeLessThan(1 << 20)
    expect(cancelled).toBe(true)
  })
})

// Every user callback the run awaits is raced with the signal and, for steering and follow-ups,
// a deadline: one that never answers can neither hang run() nor outlive an abort.
describe('run: callbacks that never answer', () => {
  const never = () => new Promise<object[]>(() => {})
  const cases = [
    { name: 'getSteeringMessages', options: { getSteeringMessages: never } },
    { name: 'getFollowUpMessages', options: { getFollowUpMessages: never } },
  ]

  it.each(cases)('$name: the signal aborting stops the run as aborted', async ({ options }) => {
    const { runtime } = runtimeWithRead()
    const { model } = scriptedModel('openai-chat', [{ text: 'hello' }, { text: 'again' }])
    const ac = new AbortController()
    const running = runtime.run({ wire: 'openai-chat', model, messages: [{ role: 'user', content: 'go' }], signal: ac.signal, ...options })
    await sleep(5)
    ac.abort()
    const outcome = await running
    expect(outcome.stopReason).toBe('aborted')
  })

  it.each(cases)('$name: past callbackTimeoutMs the run stops with an error naming it', async ({ name, options }) => {
    const { runtime } = runtimeWithRead()
    const { model } = scriptedModel('openai-chat', [{ text: 'hello' }, { text: 'again' }])
    const outcome = await runtime.run({ wire: 'openai-chat', model, messages: [{ role: 'user', content: 'go' }], callbackTimeoutMs: 10, ...options })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toContain(`${name}() did not answer within 10 ms`)
  })

  it('a model error response whose body never arrives: the signal aborting stops the run as aborted', async () => {
    const { runtime } = runtimeWithRead()
    const ac = new AbortController()
    const stalled = { ok: false, status: 500, headers: new Headers(), body: null, arrayBuffer: () => new Promise(() => {}), text: () => new Promise(() => {}) }
    const running = runtime.run({ wire: 'openai-chat', model: async () => stalled as any, messages: [{ role: 'user', content: 'go' }], signal: ac.signal })
    await sleep(5)
    ac.abort()
    expect((await running).stopReason).toBe('aborted')
  })
})

// Seen by a new user (issue 19): run() refused the `tools` option that dispatch, serveMcp and
// createToolNode take, so an agent limited to read-only tools needed a policy layer.
describe('run and executePlan: the tools option', () => {
  function twoTools() {
    const runtime = new ToolRuntime()
    const ran: string[] = []
    for (const name of ['read_file', 'delete_file']) {
      runtime.register({ name, parameters: { type: 'object' }, execute: async () => { ran.push(name); return `${name} ran` } })
    }
    return { runtime, ran }
  }

  it('offers only the listed tools on every wire and runs only them', async () => {
    for (const wire of WIRES) {
      const { runtime, ran } = twoTools()
      const { model, requests } = scriptedModel(wire, [
        { calls: [{ id: 'c1', name: 'read_file', args: '{}' }, { id: 'c2', name: 'delete_file', args: '{}' }] },
        { text: 'done' },
      ])
      const outcome = await runtime.run({ wire, model, tools: ['read_file'] })
      expect(outcome.stopReason, wire).toBe('stop')
      expect(ran, wire).toEqual(['read_file'])
      const results = outcome.steps[0]!.results
      expect(results.map((r) => r.status), wire).toEqual(['ok', 'error'])
      expect(results[1]!.error?.code, wire).toBe('NOT_FOUND')
      for (const request of requests) {
        const offered = JSON.stringify((request as any).tools)
        expect(offered, wire).toContain('read_file')
        expect(offered, wire).not.toContain('delete_file')
      }
      // Without the option, both are offered.
      const all = scriptedModel(wire, [{ text: 'done' }])
      await runtime.run({ wire, model: all.model })
      expect(JSON.stringify((all.requests[0] as any).tools), wire).toContain('delete_file')
    }
  })

  it('names a tool that is not registered (VALIDATION_ERROR), in run and definitions', async () => {
    const { runtime } = twoTools()
    const { model } = scriptedModel('openai-chat', [{ text: 'x' }])
    await expect(runtime.run({ wire: 'openai-chat', model, tools: ['read_fil'] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/"read_fil".*did you mean "read_file"/),
    })
    expect(runtime.definitions('anthropic', { tools: ['delete_file'] }).tools).toHaveLength(1)
    expect(() => runtime.definitions('anthropic', { tools: ['nope'] })).toThrow(/definitions: options\.tools names a tool that is not registered: "nope"/)
  })

  it('executePlan runs only the listed tools', async () => {
    const { runtime, ran } = twoTools()
    const outcome = await runtime.executePlan(
      { steps: [{ id: 'a', tool: 'read_file', args: {} }, { id: 'b', tool: 'delete_file', args: {} }] },
      { tools: ['read_file'] },
    )
    expect(ran).toEqual(['read_file'])
    expect(JSON.stringify(outcome)).toContain('NOT_FOUND')
  })
})
