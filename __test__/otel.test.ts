import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import { ToolRuntime, type ToolExecutionEvent } from '../dist/index.js'
import { sleep, stringsSchema } from './helpers.js'
import { scriptedModel } from './scripted.js'

// Each test file runs in a process of its own (vitest's forks pool), so the global provider and
// context manager registered here are seen by this file only.
const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const contextManager = new AsyncLocalStorageContextManager()

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable())
  trace.setGlobalTracerProvider(provider)
})

afterAll(async () => {
  await provider.shutdown()
  context.disable()
})

beforeEach(() => exporter.reset())

function runtimeWithTools(options = {}) {
  const runtime = new ToolRuntime(options)
  runtime.register({
    name: 'echo',
    description: 'Echoes its text',
    parameters: stringsSchema('text'),
    async execute(_id: string, params: any) {
      return params.text
    },
  })
  runtime.register({
    name: 'fail',
    parameters: { type: 'object' },
    async execute() {
      throw new Error('disk on fire')
    },
  })
  runtime.register({
    name: 'hang',
    parameters: { type: 'object' },
    timeoutMs: 30,
    execute: (_id: string, _params: unknown, signal?: AbortSignal) =>
      new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')))),
  })
  runtime.register({
    name: 'nested',
    parameters: { type: 'object' },
    async execute() {
      // one span created before the first await, one after: both under the tool's span
      trace.getTracer('user-tool').startSpan('inner.sync').end()
      await sleep(5)
      return trace.getTracer('user-tool').startActiveSpan('inner.async', async (span) => {
        await sleep(1)
        span.end()
        return 'done'
      })
    },
  })
  return runtime
}

const toolSpans = () => exporter.getFinishedSpans().filter((span) => span.name.startsWith('execute_tool '))
const spanOf = (callId: string) => {
  const found = toolSpans().filter((span) => span.attributes['gen_ai.tool.call.id'] === callId)
  expect(found).toHaveLength(1)
  return found[0]
}

describe('OpenTelemetry spans (GenAI semantic conventions, execute_tool)', () => {
  it('gives a successful call an INTERNAL span named after its tool, with the GenAI attributes and no error', async () => {
    const runtime = runtimeWithTools()
    const [result] = await runtime.dispatch([{ id: 'call_ok', name: 'echo', arguments: '{"text":"hi"}' }], { runId: 'run-1' })
    expect(result.ok).toBe(true)
    const span = spanOf('call_ok')
    expect(span.name).toBe('execute_tool echo')
    expect(span.kind).toBe(SpanKind.INTERNAL)
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'call_ok',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Echoes its text',
      'toolwire.run.id': 'run-1',
      'toolwire.result.status': 'ok',
    })
    expect(span.status.code).toBe(SpanStatusCode.UNSET)
    expect(span.instrumentationScope.name).toBe('toolwire')
    expect(span.ended).toBe(true)
    // arguments and results are opt-in in the conventions (sensitive): not recorded
    expect(JSON.stringify(span.attributes)).not.toContain('hi')
  })

  it('marks a tool that threw: error.type EXECUTION_ERROR, status ERROR with the message', async () => {
    const runtime = runtimeWithTools()
    const [result] = await runtime.dispatch([{ id: 'call_fail', name: 'fail', arguments: '{}' }])
    expect(result.error?.code).toBe('EXECUTION_ERROR')
    const span = spanOf('call_fail')
    expect(span.name).toBe('execute_tool fail')
    expect(span.attributes['error.type']).toBe('EXECUTION_ERROR')
    expect(span.attributes['toolwire.result.status']).toBe('error')
    expect(span.status.code).toBe(SpanStatusCode.ERROR)
    expect(span.status.message).toBe(result.error?.message)
    expect(span.status.message).toContain('disk on fire')
  })

  it('marks a call that timed out: error.type TIMEOUT, and the span lasts until the deadline', async () => {
    const runtime = runtimeWithTools()
    const [result] = await runtime.dispatch([{ id: 'call_slow', name: 'hang', arguments: '{}' }])
    expect(result.status).toBe('timeout')
    const span = spanOf('call_slow')
    expect(span.attributes['error.type']).toBe('TIMEOUT')
    expect(span.attributes['toolwire.result.status']).toBe('timeout')
    expect(span.status.code).toBe(SpanStatusCode.ERROR)
    const durationMs = span.duration[0] * 1e3 + span.duration[1] / 1e6
    expect(durationMs).toBeGreaterThanOrEqual(25)
  })

  it('gives calls that never ran a span too: invalid arguments, an unknown tool, a policy refusal', async () => {
    const runtime = runtimeWithTools({ policy: { deny: ['fail'] } })
    const results = await runtime.dispatch([
      { id: 'call_invalid', name: 'echo', arguments: '{"text": 3}' },
      { id: 'call_json', name: 'echo', arguments: '{"text": ' },
      { id: 'call_unknown', name: 'nope', arguments: '{}' },
      { id: 'call_denied', name: 'fail', arguments: '{}' },
    ])
    expect(results.map((r) => r.error?.code)).toEqual(['VALIDATION_ERROR', 'INVALID_JSON', 'NOT_FOUND', 'POLICY_DENIED'])
    expect(toolSpans()).toHaveLength(4)
    for (const result of results) {
      const span = spanOf(result.callId)
      expect(span.attributes['error.type']).toBe(result.error?.code)
      expect(span.attributes['toolwire.result.status']).toBe(result.status)
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: result.error?.message })
    }
    expect(spanOf('call_unknown').name).toBe('execute_tool nope')
    expect(spanOf('call_denied').attributes['toolwire.result.status']).toBe('blocked')
  })

  it("is a child of the span active when dispatch was called (a user's agent span)", async () => {
    const runtime = runtimeWithTools()
    const tracer = trace.getTracer('agent')
    const agentSpanId = await tracer.startActiveSpan('invoke_agent demo', async (agent) => {
      await sleep(1)
      await runtime.dispatch([
        { id: 'call_a', name: 'echo', arguments: '{"text":"a"}' },
        { id: 'call_b', name: 'fail', arguments: '{}' },
      ])
      agent.end()
      return agent.spanContext().spanId
    })
    const agent = exporter.getFinishedSpans().find((span) => span.name === 'invoke_agent demo')!
    for (const id of ['call_a', 'call_b']) {
      const span = spanOf(id)
      expect(span.parentSpanContext?.spanId).toBe(agentSpanId)
      expect(span.spanContext().traceId).toBe(agent.spanContext().traceId)
    }
    // outside any span: a root span
    await runtime.dispatch([{ id: 'call_root', name: 'echo', arguments: '{"text":"r"}' }])
    expect(spanOf('call_root').parentSpanContext).toBeUndefined()
  })

  it("runs the tool's execute in its span's context: spans the tool creates nest under it, before and after an await", async () => {
    const runtime = runtimeWithTools()
    const [result] = await runtime.dispatch([{ id: 'call_nested', name: 'nested', arguments: '{}' }])
    expect(result.ok).toBe(true)
    const toolSpan = spanOf('call_nested')
    const inner = exporter.getFinishedSpans().filter((span) => span.name.startsWith('inner.'))
    expect(inner.map((span) => span.name).sort()).toEqual(['inner.async', 'inner.sync'])
    for (const span of inner) expect(span.parentSpanContext?.spanId).toBe(toolSpan.spanContext().spanId)
    // the tool span ends after its children (spans are exported as they end)
    const finished = exporter.getFinishedSpans()
    for (const span of inner) expect(finished.indexOf(toolSpan)).toBeGreaterThan(finished.indexOf(span))
  })

  it('starts at tool_execution_start and ends with the final result; events are unchanged by tracing', async () => {
    const runtime = runtimeWithTools()
    const events: ToolExecutionEvent[] = []
    let openAtStart = 0
    const [result] = await runtime.dispatch([{ id: 'call_ev', name: 'echo', arguments: '{"text":"e"}' }], {
      onEvent: (event) => {
        events.push(event)
        if (event.type === 'tool_execution_start') openAtStart = toolSpans().length
      },
      afterToolCall: async () => {
        await sleep(15)
        return undefined
      },
    })
    expect(result.ok).toBe(true)
    expect(events.map((e) => e.type)).toEqual(['tool_execution_start', 'tool_execution_end'])
    expect(openAtStart).toBe(0)
    const span = spanOf('call_ev')
    // the afterToolCall hook is part of the call: the span covers it
    const durationMs = span.duration[0] * 1e3 + span.duration[1] / 1e6
    expect(durationMs).toBeGreaterThanOrEqual(14)
  })

  it('traces a run() loop: each turn’s calls under the span active when run was called', async () => {
    const runtime = runtimeWithTools()
    const { model } = scriptedModel('openai-chat', [
      { calls: [{ id: 'call_run', name: 'echo', args: '{"text":"x"}' }] },
      { text: 'done' },
    ])
    const parentId = await trace.getTracer('agent').startActiveSpan('invoke_agent run', async (agent) => {
      const outcome = await runtime.run({ wire: 'openai-chat', model, messages: [{ role: 'user', content: 'go' }] })
      expect(outcome.steps).toHaveLength(2)
      agent.end()
      return agent.spanContext().spanId
    })
    expect(spanOf('call_run').parentSpanContext?.spanId).toBe(parentId)
  })

  it('a call pending approval ends its span without error; resolveApproval runs it in a span of its own', async () => {
    const runtime = new ToolRuntime({ approvals: { ask: 'always' } })
    let ranInside: string | undefined
    runtime.register({
      name: 'write',
      parameters: { type: 'object' },
      async execute() {
        ranInside = trace.getActiveSpan()?.spanContext().spanId
        return 'written'
      },
    })
    const [pending] = await runtime.dispatch([{ id: 'call_ask', name: 'write', arguments: '{}' }])
    expect([pending.status, pending.error?.code]).toEqual(['pending', 'APPROVAL_REQUIRED'])
    const first = spanOf('call_ask')
    expect(first.attributes['toolwire.result.status']).toBe('pending')
    expect(first.attributes['error.type']).toBeUndefined()
    expect(first.status.code).toBe(SpanStatusCode.UNSET)
    exporter.reset()
    const parentId = await trace.getTracer('agent').startActiveSpan('approve', async (approve) => {
      const ran = await runtime.resolveApproval((pending.details as any).approvalId, 'allow-once')
      expect(ran.status).toBe('ok')
      approve.end()
      return approve.spanContext().spanId
    })
    const second = spanOf('call_ask')
    expect(second.attributes['toolwire.result.status']).toBe('ok')
    expect(second.parentSpanContext?.spanId).toBe(parentId)
    expect(ranInside).toBe(second.spanContext().spanId)
  })

  it('records nothing, and dispatches alike, once no tracer provider is registered', async () => {
    trace.disable()
    try {
      const runtime = runtimeWithTools()
      const results = await runtime.dispatch([
        { id: 'x1', name: 'echo', arguments: '{"text":"x"}' },
        { id: 'x2', name: 'fail', arguments: '{}' },
        { id: 'x3', name: 'nested', arguments: '{}' },
      ])
      expect(results.map((r) => r.status)).toEqual(['ok', 'error', 'ok'])
      expect(exporter.getFinishedSpans()).toEqual([])
    } finally {
      trace.setGlobalTracerProvider(provider)
    }
    // registered again: traced again
    await runtimeWithTools().dispatch([{ id: 'again', name: 'echo', arguments: '{"text":"y"}' }])
    expect(spanOf('again').name).toBe('execute_tool echo')
  })
})

describe('without @opentelemetry/api', () => {
  it('loads and dispatches when the package cannot be resolved (a child process where requiring it fails)', () => {
    const root = join(__dirname, '..')
    // The preload makes '@opentelemetry/api' unresolvable, as in a project that does not install it.
    const preload = `
      const Module = require('node:module')
      const resolve = Module._resolveFilename
      Module._resolveFilename = function (request, ...rest) {
        if (request === '@opentelemetry/api' || request.startsWith('@opentelemetry/api/')) {
          const error = new Error("Cannot find module '" + request + "'")
          error.code = 'MODULE_NOT_FOUND'
          throw error
        }
        return resolve.call(this, request, ...rest)
      }`
    const script = `
      let missing = false
      try { require('@opentelemetry/api') } catch (error) { missing = error.code === 'MODULE_NOT_FOUND' }
      const { ToolRuntime } = require(${JSON.stringify(join(root, 'dist', 'index.js'))})
      const runtime = new ToolRuntime()
      runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async (_id, p) => p })
      runtime.register({ name: 'fail', parameters: { type: 'object' }, execute: async () => { throw new Error('no') } })
      const events = []
      runtime
        .dispatch(
          [{ id: 'a', name: 'echo', arguments: '{"k":1}' }, { id: 'b', name: 'fail', arguments: '{}' }, { id: 'c', name: 'nope', arguments: '{}' }],
          { onEvent: (e) => events.push(e.type) },
        )
        .then((results) => console.log(JSON.stringify({ missing, statuses: results.map((r) => r.status), events })))`
    const child = spawnSync(process.execPath, ['-e', `${preload}\n${script}`], { encoding: 'utf8', cwd: root, timeout: 20_000 })
    expect(child.stderr).toBe('')
    expect(child.status).toBe(0)
    const out = JSON.parse(child.stdout)
    expect(out.missing).toBe(true)
    expect(out.statuses).toEqual(['ok', 'error', 'error'])
    expect(out.events.filter((t: string) => t === 'tool_execution_start')).toHaveLength(3)
    expect(out.events.filter((t: string) => t === 'tool_execution_end')).toHaveLength(3)
  })
})
