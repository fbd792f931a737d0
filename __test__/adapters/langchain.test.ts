import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import type { StructuredToolInterface } from '@langchain/core/tools'
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'

import { ToolRuntime, type ToolExecutionEvent, type ToolResult } from '../../dist/index.js'
import { createToolNode, toLangChainTools } from 'toolwire/langchain'
import { hangingTool, pngBase64, sleep } from './fixtures.js'

function runtimeWithTools() {
  const seen: { id: string; signal: boolean }[] = []
  const hang = hangingTool()
  let running = 0
  let maxRunning = 0
  const runtime = new ToolRuntime()
  runtime.register({
    name: 'add',
    description: 'Adds two numbers',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async (id: string, p: { a: number; b: number }, signal?: AbortSignal) => {
      seen.push({ id, signal: signal instanceof AbortSignal })
      running += 1
      maxRunning = Math.max(maxRunning, running)
      await sleep(30)
      running -= 1
      return String(p.a + p.b)
    },
  })
  runtime.register({
    name: 'fail',
    description: 'Always fails',
    parameters: { type: 'object', properties: {} },
    execute: () => {
      throw new Error('disk on fire')
    },
  })
  runtime.register({
    name: 'hang',
    description: 'Waits for its signal',
    parameters: { type: 'object', properties: {} },
    execute: hang.execute,
  })
  return { runtime, seen, hang, stats: () => ({ maxRunning }) }
}

const byName = (tools: StructuredToolInterface[], name: string) => tools.find((t) => t.name === name)!

describe('toolwire/langchain toLangChainTools', () => {
  it('gives LangChain tools with the JSON Schema; a tool call runs in the runtime under its id and returns a ToolMessage', async () => {
    const { runtime, seen } = runtimeWithTools()
    const tools = toLangChainTools(runtime)
    expect(tools.map((t) => t.name)).toEqual(['add', 'fail', 'hang'])
    const add = byName(tools, 'add')
    expect(add.description).toBe('Adds two numbers')
    expect(add.schema).toMatchObject({ type: 'object', required: ['a', 'b'] })

    const message = await add.invoke({ id: 'call_7', name: 'add', args: { a: 2, b: 3 }, type: 'tool_call' })
    expect(message).toBeInstanceOf(ToolMessage)
    expect(message).toMatchObject({ tool_call_id: 'call_7', name: 'add', status: 'success', content: '5' })
    expect((message.artifact as ToolResult).callId).toBe('call_7')
    expect(seen).toEqual([{ id: 'call_7', signal: true }])

    const failed = await byName(tools, 'fail').invoke({ id: 'call_8', name: 'fail', args: {}, type: 'tool_call' })
    // LangChain's OpenAI and Mistral converters drop `status`: the text says it failed.
    expect(failed).toMatchObject({ tool_call_id: 'call_8', status: 'error', content: 'Error: disk on fire' })
    expect((failed.artifact as ToolResult).error?.code).toBe('EXECUTION_ERROR')
  })

  it('invoked with plain arguments: the content, or a thrown error for a failed result', async () => {
    const { runtime } = runtimeWithTools()
    const tools = toLangChainTools(runtime, { tools: ['add', 'fail'] })
    expect(tools.map((t) => t.name)).toEqual(['add', 'fail'])
    expect(await byName(tools, 'add').invoke({ a: 1, b: 1 })).toBe('2')
    await expect(byName(tools, 'fail').invoke({})).rejects.toThrow('disk on fire')
  })

  it("the config's abort signal reaches the runtime and aborts the running tool", async () => {
    const { runtime, hang } = runtimeWithTools()
    const tool = byName(toLangChainTools(runtime), 'hang')
    const controller = new AbortController()
    hang.onStart(() => controller.abort(new Error('user stop')))
    await expect(tool.invoke({ id: 'h1', name: 'hang', args: {}, type: 'tool_call' }, { signal: controller.signal })).rejects.toThrow()
    expect(((await hang.stopped) as Error).message).toBe('user stop')
  })

  it('image blocks become LangChain standard image blocks', async () => {
    const png = await pngBase64()
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'shot',
      execute: () => ({ content: [{ type: 'text', text: 'a screenshot' }, { type: 'image', data: png, mimeType: 'image/png' }] }),
    })
    const [shot] = toLangChainTools(runtime)
    const message = await shot.invoke({ id: 's1', name: 'shot', args: {}, type: 'tool_call' })
    expect(message.content).toEqual([
      { type: 'text', text: 'a screenshot' },
      { type: 'image', data: png, mimeType: 'image/png' },
    ])
  })
})

describe('toolwire/langchain createToolNode', () => {
  it("runs an AIMessage's tool_calls in one dispatch and returns ToolMessages in order with status", async () => {
    const { runtime, stats } = runtimeWithTools()
    const node = createToolNode(runtime)
    const ai = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'a1', name: 'add', args: { a: 1, b: 2 } },
        { id: 'a2', name: 'add', args: { a: 'x', b: 2 } },
        { id: 'a3', name: 'add', args: { a: 10, b: 20 } },
        { id: 'a4', name: 'nope', args: {} },
      ],
    })
    const out = await node({ messages: [new HumanMessage('hi'), ai] })
    expect(out.messages.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['a1', 'success'],
      ['a2', 'error'],
      ['a3', 'success'],
      ['a4', 'error'],
    ])
    expect(out.messages[0].content).toBe('3')
    expect(String(out.messages[1].content)).toContain('/a')
    expect((out.messages[3].artifact as ToolResult).error?.code).toBe('NOT_FOUND')
    expect(stats().maxRunning).toBe(2)
    const asArray = await node([ai])
    expect(Array.isArray(asArray)).toBe(true)
    await expect(node({ messages: [new HumanMessage('no calls')] })).rejects.toThrow(/last message must be an AIMessage/)
  })

  it('answers the calls LangChain could not parse (invalid_tool_calls) too, in the message order', async () => {
    const runtime = new ToolRuntime()
    const ran: string[] = []
    runtime.register({
      name: 'ping',
      parameters: { type: 'object', properties: { a: { type: 'number' } } },
      execute: (id: string) => {
        ran.push(id)
        return 'pong'
      },
    })
    const node = createToolNode(runtime)
    const broken = new AIMessage({
      content: '',
      additional_kwargs: { tool_calls: [{ id: 'c3', type: 'function', function: { name: 'ping', arguments: '{"a":' } }] },
    })
    expect(broken.invalid_tool_calls).toHaveLength(1)
    const [only] = await node([broken])
    expect(only).toMatchObject({ tool_call_id: 'c3', name: 'ping', status: 'error' })
    expect(String(only.content)).toMatch(/not valid JSON/)
    expect((only.artifact as ToolResult).error?.code).toBe('INVALID_JSON')

    const mixed = new AIMessage({
      content: '',
      additional_kwargs: {
        tool_calls: [
          { id: 'm1', type: 'function', function: { name: 'ping', arguments: '{}' } },
          { id: 'm2', type: 'function', function: { name: 'ping', arguments: '{"a":' } },
          { id: 'm3', type: 'function', function: { name: 'ping', arguments: '{"a":1}' } },
        ],
      },
    })
    const out = await node({ messages: [mixed] })
    expect(out.messages.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['m1', 'success'],
      ['m2', 'error'],
      ['m3', 'success'],
    ])
    expect(ran.sort()).toEqual(['m1', 'm3'])
  })

  it('with options.tools, a call to a tool not listed is answered NOT_FOUND and never runs', async () => {
    const { runtime, seen } = runtimeWithTools()
    expect(() => createToolNode(runtime, { tools: ['missing'] })).toThrow(/not registered/)
    const events: ToolExecutionEvent[] = []
    const node = createToolNode(runtime, { tools: ['fail'], dispatch: { runId: 'node-run', onEvent: (e) => events.push(e) } })
    const ai = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'o1', name: 'add', args: { a: 1, b: 2 } },
        { id: 'o2', name: 'fail', args: {} },
        { id: 'o3', name: 'fial', args: {} },
      ],
    })
    const before = Date.now()
    const out = await node([ai])
    expect(out.map((m) => [m.tool_call_id, m.name, m.status])).toEqual([
      ['o1', 'add', 'error'],
      ['o2', 'fail', 'error'],
      ['o3', 'fial', 'error'],
    ])
    expect(String(out[0].content)).toBe('Error: Tool "add" not found. Available tools: fail.')
    expect(String(out[1].content)).toBe('Error: disk on fire')
    // The engine's own NOT_FOUND: suggestions among the listed tools, a real result of the run.
    expect(String(out[2].content)).toBe('Error: Tool "fial" not found. Did you mean "fail"? Available tools: fail.')
    for (const i of [0, 2]) {
      const result = out[i].artifact as ToolResult
      expect(result).toMatchObject({ runId: 'node-run', status: 'error', error: { code: 'NOT_FOUND', retryable: false } })
      expect(result.startedAt).toBeGreaterThanOrEqual(before)
    }
    expect((out[0].artifact as ToolResult).error?.details).toEqual({ suggestions: [] })
    expect(events.filter((e) => e.type === 'tool_execution_end').map((e) => e.toolCallId).sort()).toEqual(['o1', 'o2', 'o3'])
    expect(events.filter((e) => e.type === 'tool_execution_start').map((e) => e.toolCallId)).toEqual(['o1', 'o2', 'o3'])
    expect(seen).toEqual([])
  })

  it('is a node of a real LangGraph StateGraph: model node -> tools -> model until no calls', async () => {
    const { runtime, seen } = runtimeWithTools()
    let turn = 0
    const model = async (state: typeof MessagesAnnotation.State) => {
      turn += 1
      if (turn === 1) {
        return {
          messages: [
            new AIMessage({
              content: '',
              tool_calls: [
                { id: 't1', name: 'add', args: { a: 2, b: 2 } },
                { id: 't2', name: 'fail', args: {} },
              ],
            }),
          ],
        }
      }
      const results = state.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m))
      return { messages: [new AIMessage(`saw ${results.map((m) => `${m.tool_call_id}:${m.status}:${m.content}`).join(', ')}`)] }
    }
    const route = (state: typeof MessagesAnnotation.State) => {
      const last = state.messages[state.messages.length - 1] as AIMessage
      return last.tool_calls && last.tool_calls.length > 0 ? 'tools' : END
    }
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('model', model)
      .addNode('tools', createToolNode(runtime))
      .addEdge(START, 'model')
      .addConditionalEdges('model', route, ['tools', END])
      .addEdge('tools', 'model')
      .compile()
    const final = await graph.invoke({ messages: [new HumanMessage('add 2 and 2')] })
    const contents = final.messages.map((m: BaseMessage) => m.content)
    expect(contents.at(-1)).toBe('saw t1:success:4, t2:error:Error: disk on fire')
    expect(seen.map((s) => s.id)).toEqual(['t1'])
    expect(final.messages.filter((m: BaseMessage) => ToolMessage.isInstance(m))).toHaveLength(2)
  })

  it("the graph's abort signal cancels the calls the node is running", async () => {
    const { runtime, hang } = runtimeWithTools()
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('model', () => ({ messages: [new AIMessage({ content: '', tool_calls: [{ id: 'h', name: 'hang', args: {} }] })] }))
      .addNode('tools', createToolNode(runtime))
      .addEdge(START, 'model')
      .addEdge('model', 'tools')
      .addEdge('tools', END)
      .compile()
    const controller = new AbortController()
    hang.onStart(() => controller.abort(new Error('graph stop')))
    await expect(graph.invoke({ messages: [new HumanMessage('x')] }, { signal: controller.signal })).rejects.toThrow()
    expect(((await hang.stopped) as Error).message).toBe('graph stop')
  })
})
