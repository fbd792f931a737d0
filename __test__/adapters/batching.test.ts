// The pi, AI SDK and LangChain adapters hand the calls a framework starts together to one dispatch (issue 20:
// one dispatch per call made those frameworks 1.5-2.4x slower with toolwire than without). Each
// caller still gets its own result, updates, abort signal and errors.

import { Agent } from '@mariozechner/pi-agent-core'
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from '@mariozechner/pi-ai'
import { AIMessage, ToolMessage } from '@langchain/core/messages'
import { ToolNode } from '@langchain/langgraph/prebuilt'
import { generateText, stepCountIs } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'

import { ToolRuntime, type DispatchOptions, type ModelToolCall, type ToolResult } from '../../dist/index.js'
import { toAiSdkTools } from 'toolwire/ai-sdk'
import { createToolNode, toLangChainTools, type ToolUpdateEvent } from 'toolwire/langchain'
import { toPiTools } from 'toolwire/pi'
import { aborted, sleep } from './fixtures.js'

const params = { type: 'object', properties: { n: { type: 'number' }, ms: { type: 'number' } }, required: ['n'], additionalProperties: false }

/** A runtime whose `dispatch` is counted: each entry is the ids of one dispatch's calls. */
function countedRuntime() {
  const rt = new ToolRuntime()
  rt.register({
    name: 'echo',
    parameters: params,
    async execute(id: string, args: { n: number; ms?: number }, signal?: AbortSignal, onUpdate?: (partial: unknown) => void) {
      onUpdate?.({ content: [{ type: 'text', text: `update of ${id}` }] })
      if (args.ms !== undefined) {
        const reason = await Promise.race([aborted(signal!), sleep(args.ms).then(() => 'finished')])
        return { content: [{ type: 'text', text: `${id}:${String(reason)}` }] }
      }
      return { content: [{ type: 'text', text: `${id}:${args.n * 2}` }] }
    },
  })
  rt.register({
    name: 'fail',
    parameters: params,
    async execute() {
      throw new Error('the tool broke')
    },
  })
  const dispatches: string[][] = []
  const runtime = {
    list: () => rt.list(),
    register: (tool: Parameters<ToolRuntime['register']>[0]) => rt.register(tool),
    dispatch: (calls: ModelToolCall[], options?: DispatchOptions) => {
      dispatches.push(calls.map((c) => c.id))
      return rt.dispatch(calls, options)
    },
  } as unknown as ToolRuntime
  return { runtime, dispatches }
}

type Outcome = { text: string } | { error: string; code?: string; status?: string }

/** One adapter, driven as its framework drives it: each call through the tool's own execute. */
interface AdapterCase {
  name: string
  start(runtime: ToolRuntime): (tool: string, id: unknown, args: object, signal?: AbortSignal, onUpdate?: (partial: unknown) => void) => Promise<Outcome>
}

const textOf = (content: { type: string; text?: string }[]) => content.map((b) => b.text ?? '').join('\n')
const failure = (error: { message: string; result?: ToolResult }): Outcome => ({ error: error.message, code: error.result?.error?.code, status: error.result?.status })

const adapters: AdapterCase[] = [
  {
    name: 'toPiTools',
    start(runtime) {
      const tools = new Map(toPiTools(runtime).map((t) => [t.name, t]))
      return (tool, id, args, signal, onUpdate) =>
        tools
          .get(tool)!
          .execute(id as string, args as never, signal, onUpdate as never)
          .then((r) => ({ text: textOf(r.content as never) }), failure)
    },
  },
  {
    name: 'toAiSdkTools',
    start(runtime) {
      const tools = toAiSdkTools(runtime)
      return (tool, id, args, signal) =>
        Promise.resolve(tools[tool].execute!(args, { toolCallId: id as string, abortSignal: signal, messages: [] }) as Promise<ToolResult>).then(
          (r) => ({ text: textOf(r.content as never) }),
          failure,
        )
    },
  },
]

describe.each(adapters)('$name: calls started together share one dispatch', ({ start }) => {
  it('N calls started in one tick make one dispatch, each result back to its caller', async () => {
    for (const n of [1, 2, 16, 100]) {
      const { runtime, dispatches } = countedRuntime()
      const call = start(runtime)
      const outcomes = await Promise.all(Array.from({ length: n }, (_, i) => call('echo', `c${i}`, { n: i })))
      expect(dispatches).toEqual([Array.from({ length: n }, (_, i) => `c${i}`)])
      expect(outcomes).toEqual(Array.from({ length: n }, (_, i) => ({ text: `c${i}:${i * 2}` })))
    }
  })

  it('calls a few awaits apart still share the dispatch; calls of a later tick get their own', async () => {
    const { runtime, dispatches } = countedRuntime()
    const call = start(runtime)
    const late = async (i: number, hops: number) => {
      for (let h = 0; h < hops; h++) await null
      return call('echo', `c${i}`, { n: i })
    }
    const first = await Promise.all([late(0, 0), late(1, 1), late(2, 3)])
    const second = await call('echo', 'c3', { n: 3 })
    expect(dispatches).toEqual([['c0', 'c1', 'c2'], ['c3']])
    expect([...first, second]).toEqual([0, 1, 2, 3].map((i) => ({ text: `c${i}:${i * 2}` })))
  })

  it('a failing tool costs only its own call', async () => {
    const { runtime, dispatches } = countedRuntime()
    const call = start(runtime)
    const outcomes = await Promise.all([call('echo', 'a', { n: 1 }), call('fail', 'b', { n: 2 }), call('echo', 'c', { n: 3 }), call('echo', 'd', { n: 'x' })])
    expect(dispatches).toHaveLength(1)
    expect(outcomes[0]).toEqual({ text: 'a:2' })
    expect(outcomes[1]).toMatchObject({ code: 'EXECUTION_ERROR', status: 'error' })
    expect((outcomes[1] as { error: string }).error).toContain('the tool broke')
    expect(outcomes[2]).toEqual({ text: 'c:6' })
    expect(outcomes[3]).toMatchObject({ code: 'VALIDATION_ERROR', status: 'error' })
  })

  it("a call the dispatch refuses (an id that is not a string) fails alone, the others run", async () => {
    const { runtime } = countedRuntime()
    const call = start(runtime)
    const outcomes = await Promise.all([call('echo', 'a', { n: 1 }), call('echo', 42, { n: 2 }), call('echo', 'c', { n: 3 })])
    expect(outcomes).toEqual([{ text: 'a:2' }, { error: 'dispatch: calls[0].id must be a string, got number 42', code: undefined, status: undefined }, { text: 'c:6' }])
  })

  it('the same id twice in one tick: both run (in two dispatches), each with its own result', async () => {
    const { runtime, dispatches } = countedRuntime()
    const call = start(runtime)
    const outcomes = await Promise.all([call('echo', 'same', { n: 1 }), call('echo', 'same', { n: 2 }), call('echo', 'other', { n: 3 })])
    expect(outcomes).toEqual([{ text: 'same:2' }, { text: 'same:4' }, { text: 'other:6' }])
    expect(dispatches.flat().sort()).toEqual(['other', 'same', 'same'])
    expect(dispatches).toHaveLength(2)
  })

  it("aborting one caller's signal cancels its call only", async () => {
    const { runtime } = countedRuntime()
    const call = start(runtime)
    const controllers = [new AbortController(), new AbortController(), new AbortController()]
    const running = controllers.map((c, i) => call('echo', `c${i}`, { n: i, ms: 150 }, c.signal))
    await sleep(20)
    controllers[1].abort(new Error('stop c1'))
    const outcomes = await Promise.all(running)
    expect(outcomes[0]).toEqual({ text: 'c0:finished' })
    expect(outcomes[1]).toMatchObject({ status: 'cancelled', code: 'CANCELLED' })
    expect(outcomes[2]).toEqual({ text: 'c2:finished' })
  })

  it('calls sharing one signal share the dispatch, and its abort cancels each of them', async () => {
    const { runtime, dispatches } = countedRuntime()
    const call = start(runtime)
    const controller = new AbortController()
    const running = [0, 1].map((i) => call('echo', `c${i}`, { n: i, ms: 5_000 }, controller.signal))
    const other = call('echo', 'free', { n: 9, ms: 30 })
    await sleep(20)
    controller.abort()
    const outcomes = await Promise.all([...running, other])
    expect(dispatches.map((ids) => ids.sort())).toEqual([['c0', 'c1'], ['free']])
    expect(outcomes[0]).toMatchObject({ status: 'cancelled' })
    expect(outcomes[1]).toMatchObject({ status: 'cancelled' })
    expect(outcomes[2]).toEqual({ text: 'free:finished' })
  })
})

describe('toPiTools: each call gets its own updates', () => {
  it("a call's onUpdate receives its own partial results, not its batch-mates'", async () => {
    const { runtime, dispatches } = countedRuntime()
    const tools = toPiTools(runtime)
    const echo = tools.find((t) => t.name === 'echo')!
    const seen: Record<string, string[]> = { a: [], b: [] }
    const update = (id: string) => (partial: { content: { text?: string }[] }) => seen[id].push(partial.content[0].text ?? '')
    await Promise.all(['a', 'b'].map((id) => echo.execute(id, { n: 1 } as never, undefined, update(id) as never)))
    expect(dispatches).toHaveLength(1)
    expect(seen).toEqual({ a: ['update of a'], b: ['update of b'] })
  })
})

describe('inside the frameworks: one assistant turn of calls is one dispatch', () => {
  let faux: ReturnType<typeof registerFauxProvider> | undefined
  afterEach(() => {
    faux?.unregister()
    faux = undefined
  })

  it('pi-agent-core: an assistant message with 5 calls runs as one dispatch', async () => {
    const { runtime, dispatches } = countedRuntime()
    faux = registerFauxProvider()
    faux.setResponses([
      fauxAssistantMessage([0, 1, 2, 3, 4].map((i) => fauxToolCall('echo', { n: i }, { id: `pi_${i}` })), { stopReason: 'toolUse' }),
      fauxAssistantMessage('done'),
    ])
    const agent = new Agent({ initialState: { model: faux.getModel(), tools: toPiTools(runtime) } })
    await agent.prompt('go')
    expect(dispatches).toEqual([['pi_0', 'pi_1', 'pi_2', 'pi_3', 'pi_4']])
    const results = agent.state.messages.filter((m) => (m as { role?: string }).role === 'toolResult') as unknown as { toolCallId: string; content: { text: string }[] }[]
    expect(results.map((r) => [r.toolCallId, r.content[0].text])).toEqual([0, 1, 2, 3, 4].map((i) => [`pi_${i}`, `pi_${i}:${i * 2}`]))
  })

  it("the AI SDK: a step's 5 calls run as one dispatch", async () => {
    const { runtime, dispatches } = countedRuntime()
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
    let step = 0
    const model = {
      specificationVersion: 'v3' as const,
      provider: 'test',
      modelId: 'test',
      supportedUrls: {},
      doGenerate: async () =>
        step++ === 0
          ? {
              content: [0, 1, 2, 3, 4].map((i) => ({ type: 'tool-call' as const, toolCallId: `ai_${i}`, toolName: 'echo', input: JSON.stringify({ n: i }) })),
              finishReason: { unified: 'tool-calls' as const, raw: undefined },
              usage,
              warnings: [],
            }
          : { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] },
      doStream: async () => {
        throw new Error('not streamed')
      },
    }
    const result = await generateText({ model, tools: toAiSdkTools(runtime), prompt: 'go', stopWhen: stepCountIs(2) })
    expect(dispatches).toEqual([['ai_0', 'ai_1', 'ai_2', 'ai_3', 'ai_4']])
    const outputs = result.steps[0].toolResults.map((r) => [r.toolCallId, textOf((r.output as ToolResult).content as never)])
    expect(outputs).toEqual([0, 1, 2, 3, 4].map((i) => [`ai_${i}`, `ai_${i}:${i * 2}`]))
  })

  it("LangGraph's ToolNode over toLangChainTools: a message's 5 calls run as one dispatch", async () => {
    const { runtime, dispatches } = countedRuntime()
    const node = new ToolNode(toLangChainTools(runtime))
    const message = new AIMessage({ content: '', tool_calls: [0, 1, 2, 3, 4].map((i) => ({ id: `lc_${i}`, name: 'echo', args: { n: i }, type: 'tool_call' as const })) })
    const { messages } = (await node.invoke({ messages: [message] })) as { messages: ToolMessage[] }
    expect(dispatches).toEqual([['lc_0', 'lc_1', 'lc_2', 'lc_3', 'lc_4']])
    expect(messages.map((m) => [m.tool_call_id, m.content])).toEqual([0, 1, 2, 3, 4].map((i) => [`lc_${i}`, `lc_${i}:${i * 2}`]))
  })
})

describe('toLangChainTools: calls invoked together share one dispatch, each keeps its own signal', () => {
  it("aborting one invocation's signal cancels its call only", async () => {
    const { runtime, dispatches } = countedRuntime()
    const echo = toLangChainTools(runtime).find((t) => t.name === 'echo')!
    const controllers = [new AbortController(), new AbortController()]
    const invoke = (id: string, signal: AbortSignal) =>
      echo.invoke({ n: 1, ms: 150 }, { toolCall: { id, name: 'echo', args: { n: 1, ms: 150 }, type: 'tool_call' }, signal }) as Promise<ToolMessage>
    const running = [invoke('a', controllers[0].signal), invoke('b', controllers[1].signal)]
    await sleep(20)
    controllers[1].abort(new Error('stop b'))
    // LangChain rejects an invocation whose signal aborts with the reason; the other runs on
    await expect(running[1]).rejects.toThrow('stop b')
    const a = await running[0]
    // one dispatch per signal: calls are grouped by the signal that cancels them
    expect(dispatches).toEqual([['a'], ['b']])
    expect([a.status, (a.artifact as ToolResult).status, a.content]).toEqual(['success', 'ok', 'a:finished'])
  })

  it('invocations without a signal started in one tick make one dispatch', async () => {
    const { runtime, dispatches } = countedRuntime()
    const echo = toLangChainTools(runtime).find((t) => t.name === 'echo')!
    const out = await Promise.all([0, 1, 2].map((i) => echo.invoke({ n: i }, { toolCall: { id: `t${i}`, name: 'echo', args: { n: i }, type: 'tool_call' } }) as Promise<ToolMessage>))
    expect(dispatches).toEqual([['t0', 't1', 't2']])
    expect(out.map((m) => m.content)).toEqual(['t0:0', 't1:2', 't2:4'])
  })
})

// Events show a call id holding a secret with the secret replaced, and one with a lone surrogate
// repaired, each marked with a digest (`[redacted:github-token]~3f0c...`): partial results routed
// by the event's toolCallId never reached such a call (attack review 21, a1). They are routed by
// the call's position in the dispatch.
describe('partial results reach their own call whatever its id', () => {
  const IDS = ['call_plain', `ghp_${'A1b2C3d4E5'.repeat(3)}F6g7H8`, `sk-proj-${'abcdefghij'.repeat(3)}ABCDEF0123`, 'toolu_\ud800x']
  expect(IDS.map((id) => id.length)).toEqual([10, 40, 48, 8])

  /** A runtime whose `step` sends one partial result naming its `n` (the id may be redacted in it), then answers. */
  function stepRuntime(seen?: string[]): ToolRuntime {
    const runtime = new ToolRuntime({ onEvent: (event) => 'toolCallId' in event && seen?.push(event.toolCallId) })
    runtime.register({
      name: 'step',
      parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      async execute(_id: string, { n }: { n: number }, _signal?: AbortSignal, onUpdate?: (partial: unknown) => void) {
        onUpdate?.({ content: [{ type: 'text', text: `half of ${n}` }] })
        await sleep(1)
        return `done ${n}`
      },
    })
    return runtime
  }
  const partialText = (partial: unknown) => (partial as { content: { text: string }[] }).content[0]!.text

  it('toPiTools: each onUpdate gets its call\'s one partial result, the calls in one dispatch or alone', async () => {
    const seen: string[] = []
    const step = toPiTools(stepRuntime(seen))[0]!
    for (const together of [true, false]) {
      const updates = IDS.map(() => [] as string[])
      const run = (id: string, n: number) => step.execute(id, { n } as never, undefined, ((partial: unknown) => updates[n]!.push(partialText(partial))) as never)
      const results = together ? await Promise.all(IDS.map(run)) : await IDS.reduce<Promise<unknown[]>>(async (done, id, n) => [...(await done), await run(id, n)], Promise.resolve([]))
      expect((results as { content: { text: string }[] }[]).map((r) => r.content[0]!.text)).toEqual(['done 0', 'done 1', 'done 2', 'done 3'])
      expect(updates).toEqual([['half of 0'], ['half of 1'], ['half of 2'], ['half of 3']])
    }
    // (the events did show three of the ids changed: what made routing by them lose the updates)
    expect(seen.filter((id) => IDS.includes(id)).length).toBeLessThan(seen.length)
    expect(seen.some((id) => id.startsWith('[redacted:github-token]~'))).toBe(true)
  })

  it('toAiSdkTools with preliminaryResults: each call streams its own partial result, with its own id', async () => {
    const step = toAiSdkTools(stepRuntime(), { preliminaryResults: true }).step
    const streams = IDS.map((id, n) => step.execute!({ n }, { toolCallId: id, messages: [] }) as AsyncIterable<ToolUpdateEvent | ToolResult>)
    const outputs = await Promise.all(
      streams.map(async (stream) => {
        const all: (ToolUpdateEvent | ToolResult)[] = []
        for await (const value of stream) all.push(value)
        return all
      }),
    )
    outputs.forEach((all, n) => {
      const updates = all.filter((value): value is ToolUpdateEvent => 'type' in value && value.type === 'tool_execution_update')
      expect(updates.map((u) => [u.toolCallId, partialText(u.partialResult)])).toEqual([[IDS[n], `half of ${n}`]])
      expect((all.at(-1) as ToolResult).callId).toBe(IDS[n])
    })
  })

  it('toLangChainTools and createToolNode: each call writes its own partial result to the custom stream, with its own id', async () => {
    const runtime = stepRuntime()
    const step = toLangChainTools(runtime)[0]!
    const written: ToolUpdateEvent[] = []
    const writer = (chunk: ToolUpdateEvent) => written.push(chunk)
    const messages = (await Promise.all(
      IDS.map((id, n) => step.invoke({ n }, { toolCall: { id, name: 'step', args: { n }, type: 'tool_call' }, writer } as never)),
    )) as ToolMessage[]
    expect(messages.map((m) => [m.tool_call_id, m.content])).toEqual(IDS.map((id, n) => [id, `done ${n}`]))
    expect(written.map((u) => [u.toolCallId, partialText(u.partialResult)]).sort()).toEqual(IDS.map((id, n) => [id, `half of ${n}`]).sort())

    written.length = 0
    const node = createToolNode(runtime)
    const out = await node([new AIMessage({ content: '', tool_calls: IDS.map((id, n) => ({ id, name: 'step', args: { n }, type: 'tool_call' as const })) })], { writer } as never)
    expect(out.map((m) => m.tool_call_id)).toEqual(IDS)
    expect(written.map((u) => [u.toolCallId, u.toolName, partialText(u.partialResult)]).sort()).toEqual(IDS.map((id, n) => [id, 'step', `half of ${n}`]).sort())
  })
})
