// toolwire/langchain in LangGraph as its users write it: createToolNode as a StateGraph node after
// a chat model node and LangGraph's toolsCondition, as a Runnable (invoke, batch, stream, pipe,
// with a config), and a tool's partial results in the graph's custom stream
// (`streamMode: 'custom'`, through the `config.writer` LangGraph gives each node and tool).
import { AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { Runnable, RunnableLambda } from '@langchain/core/runnables'
import { MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt'
import { describe, expect, it } from 'vitest'

import { ToolRuntime, type ToolResult } from '../../dist/index.js'
import { createToolNode, toLangChainTools, type ToolUpdateEvent } from 'toolwire/langchain'
import { ScriptedChatModel } from './scripted-chat-model.js'

/** A runtime with `add` and `count`, which sends a partial result per step before its result. */
function runtimeWithTools() {
  const runtime = new ToolRuntime()
  runtime.register({
    name: 'add',
    description: 'Adds two numbers',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    execute: (_id: string, p: { a: number; b: number }) => String(p.a + p.b),
  })
  runtime.register({
    name: 'count',
    description: 'Counts to n, reporting each step',
    parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    async execute(_id: string, p: { n: number }, _signal?: AbortSignal, onUpdate?: (partial: unknown) => void) {
      for (let i = 1; i <= p.n; i++) onUpdate?.({ content: [{ type: 'text', text: `step ${i}` }], details: { step: i } })
      return `counted to ${p.n}`
    },
  })
  return runtime
}

const callsOf = (calls: { id: string; name: string; args: Record<string, unknown> }[]) => new AIMessageChunk({ content: '', tool_calls: calls })

/** The agent graph of LangGraph's docs: a model node bound to the tools, toolsCondition, the tool node. */
function agentGraph(model: ScriptedChatModel, tools: Runnable | ((...args: never[]) => unknown), runtime: ToolRuntime) {
  const bound = model.bindTools(toLangChainTools(runtime))
  const callModel = async (state: typeof MessagesAnnotation.State) => ({ messages: [await bound.invoke(state.messages)] })
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', callModel)
    .addNode('tools', tools as Runnable)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', '__end__'])
    .addEdge('tools', 'agent')
    .compile()
}

describe('toolwire/langchain createToolNode in a LangGraph StateGraph', () => {
  it('runs after a chat model node and toolsCondition until the model answers, under the config the graph was invoked with', async () => {
    const runtime = runtimeWithTools()
    const model = new ScriptedChatModel([
      callsOf([
        { id: 'c1', name: 'add', args: { a: 2, b: 3 } },
        { id: 'c2', name: 'add', args: { a: 'x', b: 3 } },
      ]),
      callsOf([{ id: 'c3', name: 'count', args: { n: 2 } }]),
      new AIMessageChunk('2 + 3 is 5'),
    ])
    const graph = agentGraph(model, createToolNode(runtime), runtime)
    const controller = new AbortController()
    const final = await graph.invoke({ messages: [new HumanMessage('add 2 and 3')] }, { signal: controller.signal, recursionLimit: 10, runName: 'agent-run' })
    expect(model.boundTools).toEqual(['add', 'count'])
    expect(final.messages.map((m: BaseMessage) => [m.getType(), m.content])).toEqual([
      ['human', 'add 2 and 3'],
      ['ai', ''],
      ['tool', '5'],
      ['tool', expect.stringMatching(/^Error: Validation failed[\s\S]*\/a/)],
      ['ai', ''],
      ['tool', 'counted to 2'],
      ['ai', '2 + 3 is 5'],
    ])
    const toolMessages = final.messages.filter((m: BaseMessage): m is ToolMessage => ToolMessage.isInstance(m))
    expect(toolMessages.map((m: ToolMessage) => [m.tool_call_id, m.status, (m.artifact as ToolResult).callId])).toEqual([
      ['c1', 'success', 'c1'],
      ['c2', 'error', 'c2'],
      ['c3', 'success', 'c3'],
    ])
    // The model's second and third calls read the tool messages.
    expect(model.received[1].map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'tool'])
  })

  it("writes the tools' partial results to the custom stream (streamMode 'custom'), between the agent's and the tools' updates", async () => {
    const runtime = runtimeWithTools()
    const model = new ScriptedChatModel([callsOf([{ id: 'k1', name: 'count', args: { n: 3 } }]), new AIMessageChunk('done')])
    const graph = agentGraph(model, createToolNode(runtime), runtime)
    const seen: [string, unknown][] = []
    for await (const [mode, chunk] of await graph.stream({ messages: [new HumanMessage('count')] }, { streamMode: ['updates', 'custom'] })) {
      seen.push([mode, mode === 'updates' ? Object.keys(chunk as object) : chunk])
    }
    // (the partial result as the runtime's update event carries it: its details withheld unless
    // the tool declares them shown)
    const update = (step: number): ToolUpdateEvent => ({
      type: 'tool_execution_update',
      toolCallId: 'k1',
      toolName: 'count',
      partialResult: expect.objectContaining({ content: [{ type: 'text', text: `step ${step}` }] }),
    })
    expect(seen).toEqual([
      ['updates', ['agent']],
      ['custom', update(1)],
      ['custom', update(2)],
      ['custom', update(3)],
      ['updates', ['tools']],
      ['updates', ['agent']],
    ])
    // Without 'custom' in the stream mode, nothing is written.
    const modes: string[] = []
    const quiet = agentGraph(new ScriptedChatModel([callsOf([{ id: 'k2', name: 'count', args: { n: 2 } }]), new AIMessageChunk('done')]), createToolNode(runtime), runtime)
    for await (const [mode] of await quiet.stream({ messages: [new HumanMessage('count')] }, { streamMode: ['updates'] })) modes.push(mode)
    expect(modes).toEqual(['updates', 'updates', 'updates'])
  })

  it("toLangChainTools in LangGraph's own ToolNode write their partial results to the custom stream too", async () => {
    const runtime = runtimeWithTools()
    const model = new ScriptedChatModel([
      callsOf([
        { id: 'p1', name: 'count', args: { n: 1 } },
        { id: 'p2', name: 'count', args: { n: 2 } },
      ]),
      new AIMessageChunk('done'),
    ])
    const graph = agentGraph(model, new ToolNode(toLangChainTools(runtime)), runtime)
    const custom: unknown[] = []
    for await (const chunk of await graph.stream({ messages: [new HumanMessage('count')] }, { streamMode: 'custom' })) custom.push(chunk)
    expect(custom).toHaveLength(3)
    expect(custom.map((c) => [(c as ToolUpdateEvent).toolCallId, (c as ToolUpdateEvent).toolName]).sort()).toEqual([
      ['p1', 'count'],
      ['p2', 'count'],
      ['p2', 'count'],
    ])
  })
})

describe('toolwire/langchain createToolNode as a Runnable', () => {
  const state = (id: string, a: number) => ({ messages: [new HumanMessage('x'), callsOf([{ id, name: 'add', args: { a, b: 1 } }])] })
  const texts = (out: { messages: ToolMessage[] }) => out.messages.map((m) => `${m.tool_call_id}=${String(m.content)}`)

  it('is a Runnable: invoke with a config, batch, stream', async () => {
    const node = createToolNode(runtimeWithTools())
    expect(node).toBeInstanceOf(Runnable)
    expect(Runnable.isRunnable(node)).toBe(true)
    expect(texts(await node.invoke(state('i1', 1), { runName: 'tools', tags: ['t'] }) as { messages: ToolMessage[] })).toEqual(['i1=2'])
    const batch = (await node.batch([state('b1', 1), state('b2', 2)])) as { messages: ToolMessage[] }[]
    expect(batch.map(texts)).toEqual([['b1=2'], ['b2=3']])
    const chunks: unknown[] = []
    for await (const chunk of await node.stream(state('s1', 5))) chunks.push(chunk)
    expect(chunks.map((c) => texts(c as { messages: ToolMessage[] }))).toEqual([['s1=6']])
    // The config's abort signal reaches the runtime: an aborted signal cancels the call.
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(node.invoke(state('a1', 1), { signal: controller.signal })).rejects.toThrow()
  })

  it('composes with pipe on either side, and still answers a direct call', async () => {
    const node = createToolNode(runtimeWithTools())
    const before = RunnableLambda.from((a: number) => state('p1', a)).pipe(node)
    expect(texts((await before.invoke(41)) as { messages: ToolMessage[] })).toEqual(['p1=42'])
    const after = node.pipe(RunnableLambda.from((out) => texts(out as { messages: ToolMessage[] })))
    expect(await after.invoke(state('p2', 9))).toEqual(['p2=10'])
    const named = node.withConfig({ runName: 'toolwire-tools' })
    expect(texts((await named.invoke(state('w1', 0))) as { messages: ToolMessage[] })).toEqual(['w1=1'])
    expect(texts(await node(state('d1', 2)))).toEqual(['d1=3'])
    expect((await node([callsOf([{ id: 'd2', name: 'add', args: { a: 1, b: 1 } }])])).map((m) => m.content)).toEqual(['2'])
    // Still a function to code that calls it through Function.prototype's methods.
    expect(texts(await node.call(undefined, state('d3', 3)))).toEqual(['d3=4'])
    expect(texts(await node.apply(undefined, [state('d4', 4)]))).toEqual(['d4=5'])
  })
})
