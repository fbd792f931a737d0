// The README's complete Vitest file (section "Testing an agent: `toolwire/testing`"), run as
// written: run-sdk.test.ts checks that the README holds it exactly.
// --- README: Vitest ---
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ToolRuntime, defineTool, encodeResults } from 'toolwire'
import { scriptedModel } from 'toolwire/testing'
import { z } from 'zod'

/** The agent's tool: a weather API that answers after a second. */
const weather = defineTool({
  name: 'weather',
  parameters: z.object({ city: z.string() }),
  execute: async (_id, { city }, signal) => {
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    signal?.throwIfAborted()
    if (city === 'Atlantis') throw new Error(`no weather station in ${city}`)
    return `sunny in ${city}`
  },
})

function agent() {
  const runtime = new ToolRuntime({ timeoutMs: 5_000 })
  runtime.register(weather)
  return runtime
}

const ask = [{ role: 'user' as const, content: 'Weather in Oslo and Atlantis?' }]

describe('the weather agent', () => {
  afterEach(() => vi.useRealTimers())

  it('runs both calls at once and hands the model their results', async () => {
    vi.useFakeTimers()
    const model = scriptedModel('openai-chat', [
      { calls: [{ name: 'weather', arguments: { city: 'Oslo' } }, { name: 'weather', arguments: { city: 'Atlantis' } }] },
      { text: 'Sunny in Oslo; Atlantis has no station.' },
    ])
    const running = agent().run({ wire: 'openai-chat', model, messages: ask })
    await vi.advanceTimersByTimeAsync(1_000) // one second for both: they ran in parallel
    const outcome = await running
    expect(outcome.stopReason).toBe('stop')
    const [step] = outcome.steps
    expect(step!.results.map((result) => result.status)).toEqual(['ok', 'error'])
    expect(encodeResults(step!.results, 'openai-chat')).toMatchInlineSnapshot(`
      [
        {
          "content": "sunny in Oslo",
          "role": "tool",
          "tool_call_id": "call_1",
        },
        {
          "content": "Error: no weather station in Atlantis",
          "role": "tool",
          "tool_call_id": "call_2",
        },
      ]
    `)
  })

  it('ends a call that outlives its deadline as a TIMEOUT the model reads', async () => {
    vi.useFakeTimers()
    const runtime = new ToolRuntime({ timeoutMs: 500 })
    runtime.register(weather)
    const model = scriptedModel('openai-chat', [{ calls: [{ name: 'weather', arguments: { city: 'Oslo' } }] }, { text: 'It timed out.' }])
    const running = runtime.run({ wire: 'openai-chat', model, messages: ask })
    await vi.advanceTimersByTimeAsync(500)
    const outcome = await running
    expect(outcome.steps[0]!.results[0]!.error?.code).toBe('TIMEOUT')
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
  })

  it('stops when the user aborts, without calling the model again', async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    const model = scriptedModel('openai-chat', [{ calls: [{ name: 'weather', arguments: { city: 'Oslo' } }] }, { text: 'unreachable' }])
    const running = agent().run({ wire: 'openai-chat', model, messages: ask, signal: controller.signal })
    await vi.advanceTimersByTimeAsync(100)
    controller.abort()
    const outcome = await running
    expect(outcome.stopReason).toBe('aborted')
    expect(model.requests).toHaveLength(1)
  })
})
// --- end ---
