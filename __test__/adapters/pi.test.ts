import { Agent, type AgentEvent, type AgentTool, type AgentToolResult } from '@mariozechner/pi-agent-core'
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider, type ToolResultMessage } from '@mariozechner/pi-ai'
import { Type } from 'typebox'
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'

import { ToolRuntime, type ToolExecutionEvent } from '../../dist/index.js'
import { piEvents, registerPiTools, toPiTools, type PiToolExecutionEvent } from 'toolwire/pi'
import { aborted, sleep } from './fixtures.js'

const readSchema = Type.Object({ path: Type.String({ description: 'File to read' }) })

/** A pi-agent-core AgentTool exactly as pi users write one (typebox 1.x schema, typed by pi). */
const readTool: AgentTool<typeof readSchema, { bytes: number }> = {
  name: 'read',
  label: 'Read file',
  description: 'Read a file',
  parameters: readSchema,
  async execute(toolCallId, params, _signal, onUpdate) {
    onUpdate?.({ content: [{ type: 'text', text: `opening ${params.path}` }], details: { bytes: 0 } })
    await sleep(5)
    return { content: [{ type: 'text', text: `${toolCallId}: contents of ${params.path}` }], details: { bytes: 11 } }
  },
}

const waitSchema = Type.Object({ ms: Type.Number() })
const waits: { reason: unknown }[] = []
const waitTool: AgentTool<typeof waitSchema, undefined> = {
  name: 'wait',
  label: 'Wait',
  description: 'Waits until aborted',
  parameters: waitSchema,
  async execute(_id, params, signal) {
    const reason = await Promise.race([aborted(signal!), sleep(params.ms).then(() => 'finished')])
    waits.push({ reason })
    return { content: [{ type: 'text', text: String(reason) }], details: undefined }
  },
}

let faux: ReturnType<typeof registerFauxProvider> | undefined
afterEach(() => {
  faux?.unregister()
  faux = undefined
  waits.length = 0
})

function piEventsOf(agent: Agent) {
  const events: AgentEvent[] = []
  agent.subscribe((event) => {
    if (event.type.startsWith('tool_execution_')) events.push(event)
  })
  return events
}

function toolResults(agent: Agent): ToolResultMessage[] {
  return agent.state.messages.filter((m): m is ToolResultMessage => (m as { role?: string }).role === 'toolResult')
}

describe('toolwire/pi', () => {
  it("types: toolwire/pi is typed with pi-agent-core's own AgentTool and events", () => {
    expectTypeOf(toPiTools).returns.toEqualTypeOf<AgentTool<any, unknown>[]>()
    expectTypeOf(registerPiTools).parameter(1).toEqualTypeOf<readonly AgentTool<any, any>[]>()
    expectTypeOf<PiToolExecutionEvent>().toEqualTypeOf<Extract<AgentEvent, { type: `tool_execution_${string}` }>>()
    expectTypeOf(piEvents).parameter(0).toEqualTypeOf<(event: PiToolExecutionEvent) => void>()
    // An AgentTool list is what pi's Agent takes, and toPiTools' tools are AgentTools.
    expectTypeOf(toPiTools).returns.toMatchTypeOf<Agent['state']['tools']>()
  })

  it('registerPiTools registers AgentTools unchanged: the runtime validates with their typebox schema and calls their execute', async () => {
    const runtime = new ToolRuntime()
    expect(registerPiTools(runtime, [readTool, waitTool])).toEqual(['read', 'wait'])
    expect(runtime.list().map((t) => [t.name, t.label])).toEqual([
      ['read', 'Read file'],
      ['wait', 'Wait'],
    ])
    const updates: unknown[] = []
    const [ok, bad] = await runtime.dispatch(
      [
        { id: 'c1', name: 'read', arguments: '{"path":"a.txt"}' },
        { id: 'c2', name: 'read', arguments: '{"path":7}' },
      ],
      { onEvent: (e) => e.type === 'tool_execution_update' && updates.push(e.partialResult) },
    )
    expect(ok).toMatchObject({ ok: true, content: [{ type: 'text', text: 'c1: contents of a.txt' }], details: { bytes: 11 } })
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } })
    expect(updates).toHaveLength(1)
    expect(updates[0]).toMatchObject({ content: [{ type: 'text', text: 'opening a.txt' }] })
  })

  it('registerPiTools is all or none', () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'wait', execute: () => 'x' })
    expect(() => registerPiTools(runtime, [readTool, waitTool])).toThrow(/"wait" is already registered/)
    expect(runtime.list().map((t) => t.name)).toEqual(['wait'])
  })

  it('a pi Agent runs its tool calls through the runtime: results, updates and pi tool_execution_* events agree with the runtime', async () => {
    faux = registerFauxProvider()
    faux.setResponses([
      fauxAssistantMessage(
        [fauxToolCall('read', { path: 'notes.md' }, { id: 'call_read' }), fauxToolCall('echo', { text: 'hi' }, { id: 'call_echo' })],
        { stopReason: 'toolUse' },
      ),
      fauxAssistantMessage('all done'),
    ])
    const runtimeEvents: AgentEvent[] = []
    const raw: { type: string; toolCallId?: string }[] = []
    const mapped = piEvents((e) => runtimeEvents.push(e as AgentEvent))
    const runtime = new ToolRuntime({ onEvent: (e) => (raw.push(e), mapped(e)) })
    registerPiTools(runtime, [readTool])
    runtime.register({
      name: 'echo',
      description: 'Echo text',
      parameters: z.object({ text: z.string() }),
      execute: (_id: string, p: { text: string }) => ({ echoed: p.text }),
    })
    const tools = toPiTools(runtime)
    expect(tools.map((t) => [t.name, t.label])).toEqual([
      ['read', 'Read file'],
      ['echo', 'echo'],
    ])
    expect(tools[1].parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })

    const agent = new Agent({ initialState: { model: faux.getModel(), systemPrompt: 'test', tools } })
    const events = piEventsOf(agent)
    await agent.prompt('read my notes')

    const results = toolResults(agent)
    expect(results.map((r) => [r.toolCallId, r.toolName, r.isError])).toEqual([
      ['call_read', 'read', false],
      ['call_echo', 'echo', false],
    ])
    expect(results[0].content).toEqual([{ type: 'text', text: 'call_read: contents of notes.md' }])
    expect(results[0].details).toEqual({ bytes: 11 })
    expect(results[1].content).toEqual([{ type: 'text', text: '{"echoed":"hi"}' }])
    expect(results[1].details).toEqual({ echoed: 'hi' })
    expect(agent.state.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'all done' }] })

    // The runtime ran both calls, under pi's ids.
    expect(raw.filter((e) => e.type === 'tool_execution_end').map((e) => e.toolCallId).sort()).toEqual(['call_echo', 'call_read'])
    // pi's own events and the runtime's events mapped by piEvents tell the same story.
    const summary = (list: AgentEvent[]) =>
      list
        .map((e) => {
          if (e.type === 'tool_execution_start') return `start ${e.toolCallId} ${e.toolName} ${JSON.stringify(e.args)}`
          if (e.type === 'tool_execution_update') return `update ${e.toolCallId} ${JSON.stringify(e.args)} ${JSON.stringify(e.partialResult.content)}`
          if (e.type === 'tool_execution_end') return `end ${e.toolCallId} ${e.isError} ${JSON.stringify(e.result.content)}`
          return e.type
        })
        .sort()
    expect(summary(runtimeEvents)).toEqual(summary(events))
    // Events carry results as the runtime shows them to UIs: details pass only through a tool's
    // redaction allowlist (read has none), JSON data is not details.
    const endOf = (list: AgentEvent[], id: string) => list.find((e) => e.type === 'tool_execution_end' && e.toolCallId === id)
    expect(endOf(events, 'call_read')).toMatchObject({ result: { details: { bytes: 11 } } })
    expect(endOf(runtimeEvents, 'call_read')).toMatchObject({ result: { details: undefined } })
    expect(summary(events)).toContain('update call_read {"path":"notes.md"} [{"type":"text","text":"opening notes.md"}]')
  })

  it('failed runtime results reach pi as error tool results: validation, policy, timeout', async () => {
    faux = registerFauxProvider()
    faux.setResponses([
      fauxAssistantMessage(
        [
          fauxToolCall('wait', { ms: 5000 }, { id: 'slow' }),
          fauxToolCall('secret', {}, { id: 'denied' }),
          fauxToolCall('count', {}, { id: 'invalid' }),
        ],
        { stopReason: 'toolUse' },
      ),
      fauxAssistantMessage('ok'),
    ])
    const runtime = new ToolRuntime({ policy: { deny: ['secret'] } })
    runtime.register({ ...waitTool, timeoutMs: 50 })
    runtime.register({ name: 'secret', execute: () => 'leaked' })
    // pi's own check passes ({} matches the schema); the runtime's required group refuses it.
    runtime.register({ name: 'count', parameters: { type: 'object', properties: { n: { type: 'string' } } }, requiredGroups: ['n'], execute: () => 'x' })
    const agent = new Agent({ initialState: { model: faux.getModel(), systemPrompt: '', tools: toPiTools(runtime) } })
    const events = piEventsOf(agent)
    await agent.prompt('go')
    const byId = Object.fromEntries(toolResults(agent).map((r) => [r.toolCallId, r]))
    expect(byId.slow.isError).toBe(true)
    expect(JSON.stringify(byId.slow.content)).toMatch(/did not finish within 50 ms/)
    expect(waits).toHaveLength(1)
    expect(String((waits[0].reason as DOMException).name)).toBe('TimeoutError')
    expect(byId.denied.isError).toBe(true)
    expect(JSON.stringify(byId.denied.content)).toMatch(/polic|denied/i)
    expect(byId.invalid.isError).toBe(true)
    expect(JSON.stringify(byId.invalid.content)).toContain('n: required but absent')
    const ends = events.filter((e) => e.type === 'tool_execution_end')
    expect(ends.every((e) => e.type === 'tool_execution_end' && e.isError)).toBe(true)
  })

  it("aborting the pi agent cancels the runtime's call and aborts the tool's signal", async () => {
    faux = registerFauxProvider()
    faux.setResponses([fauxAssistantMessage([fauxToolCall('wait', { ms: 10_000 }, { id: 'w1' })], { stopReason: 'toolUse' })])
    const runtime = new ToolRuntime()
    registerPiTools(runtime, [waitTool])
    const ends: ToolExecutionEvent[] = []
    const agent = new Agent({
      initialState: { model: faux.getModel(), systemPrompt: '', tools: toPiTools(runtime, { dispatch: { onEvent: (e) => e.type === 'tool_execution_end' && ends.push(e) } }) },
    })
    agent.subscribe((event) => {
      if (event.type === 'tool_execution_start') setTimeout(() => agent.abort(), 20)
    })
    const started = Date.now()
    await agent.prompt('wait')
    expect(Date.now() - started).toBeLessThan(5000)
    expect(waits).toHaveLength(1)
    expect(ends).toHaveLength(1)
    expect(ends[0].type === 'tool_execution_end' && ends[0].result.status).toBe('cancelled')
    const [result] = toolResults(agent)
    expect(result).toMatchObject({ toolCallId: 'w1', isError: true })
  })

  it('toPiTools: a result asking to terminate carries terminate to pi, and only the named tools are exposed', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'finish', execute: () => ({ content: [{ type: 'text', text: 'bye' }], terminate: true }) })
    runtime.register({ name: 'other', execute: () => 'x' })
    const tools = toPiTools(runtime, { tools: ['finish'] })
    expect(tools.map((t) => t.name)).toEqual(['finish'])
    const output: AgentToolResult<unknown> = await tools[0].execute('t1', {})
    expect(output).toEqual({ content: [{ type: 'text', text: 'bye' }], details: undefined, terminate: true })
    expect(() => toPiTools(runtime, { tools: ['missing'] })).toThrow(/"missing", which is not registered/)
  })
})
