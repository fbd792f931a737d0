import { describe, expect, it } from 'vitest'

import { ToolRuntime } from '../index.js'
import type { ToolDefinition, Wire } from '../index.js'
import { scriptedModel } from './scripted.js'
import type { ScriptedTurn } from './scripted.js'
import { stringsSchema } from './helpers.js'

const WIRES: Wire[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mistral']

function runtimeWithRead() {
  const runtime = new ToolRuntime()
  const ran: string[] = []
  const read: ToolDefinition = {
    name: 'read',
    description: 'Read a file',
    parameters: stringsSchema('path'),
    async execute(id: string, params: { path: string }) {
      ran.push(params.path)
      return `contents of ${params.path}`
    },
  }
  runtime.register(read)
  return { runtime, ran }
}

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
      const repaired = (await import('../index.js')).repairHistory(outcome.messages, wire)
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
