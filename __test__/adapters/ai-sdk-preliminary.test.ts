// toolwire/ai-sdk with `preliminaryResults: true`: a tool's partial results (its onUpdate) stream
// as the AI SDK's preliminary tool results, in a real streamText with a scripted model, and reach
// the UI message stream as `tool-output-available` chunks with `preliminary: true`.
import { stepCountIs, streamText, type TextStreamPart, type ToolSet, type UIMessageChunk } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'

import { ToolRuntime, type ToolResult } from '../../dist/index.js'
import { toAiSdkTools, type ToolUpdateEvent } from 'toolwire/ai-sdk'

type LanguageModelV3StreamPart =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never

const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: 0 } }

/** A model that calls `calls` in its first turn and answers `done` in its second. */
function scriptedModel(calls: { id: string; name: string; input: string }[]) {
  const toolTurn: LanguageModelV3StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    ...calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.input })),
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ]
  const textTurn: LanguageModelV3StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'done' },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ]
  return new MockLanguageModelV3({ doStream: [{ stream: convertArrayToReadableStream(toolTurn) }, { stream: convertArrayToReadableStream(textTurn) }] })
}

/** A runtime whose `count` sends "step i" for each step before its result, and `fail` one step before failing. */
function runtimeWithProgress() {
  const runtime = new ToolRuntime()
  runtime.register({
    name: 'count',
    parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    async execute(_id: string, p: { n: number }, _signal?: AbortSignal, onUpdate?: (partial: unknown) => void) {
      for (let i = 1; i <= p.n; i++) {
        onUpdate?.({ content: [{ type: 'text', text: `step ${i}` }] })
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      return `counted to ${p.n}`
    },
  })
  runtime.register({
    name: 'fail',
    async execute(_id: string, _p: unknown, _signal?: AbortSignal, onUpdate?: (partial: unknown) => void) {
      onUpdate?.({ content: [{ type: 'text', text: 'trying' }] })
      throw new Error('no luck')
    },
  })
  return runtime
}

/** A tool-result part's output as text: an update event's partial text, or `result:` and the ToolResult's text. */
function described(output: unknown): string {
  const value = output as ToolResult | ToolUpdateEvent
  if ('type' in value && value.type === 'tool_execution_update') return `update ${value.toolCallId}: ${(value.partialResult as { content: { text: string }[] }).content[0].text}`
  const result = value as ToolResult
  return `result ${result.callId}: ${result.content[0].type === 'text' ? result.content[0].text : ''}`
}

describe('toolwire/ai-sdk preliminary tool results', () => {
  it("streams each partial result as a preliminary tool result, then the ToolResult as the tool's result", async () => {
    const model = scriptedModel([{ id: 'c1', name: 'count', input: '{"n":3}' }])
    const result = streamText({ model, tools: toAiSdkTools(runtimeWithProgress(), { preliminaryResults: true }), prompt: 'count', stopWhen: stepCountIs(2) })
    const parts: TextStreamPart<ToolSet>[] = []
    for await (const part of result.fullStream) parts.push(part)
    const results = parts.flatMap((p) => (p.type === 'tool-result' ? [[p.preliminary === true ? 'preliminary' : 'final', described(p.output)]] : []))
    // (the SDK sends an async-iterable tool's last value once as preliminary, then as its result)
    expect(results).toEqual([
      ['preliminary', 'update c1: step 1'],
      ['preliminary', 'update c1: step 2'],
      ['preliminary', 'update c1: step 3'],
      ['preliminary', 'result c1: counted to 3'],
      ['final', 'result c1: counted to 3'],
    ])
    // The model reads the final result only.
    const toolOutputs = model.doStreamCalls[1].prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content)
    expect(toolOutputs).toEqual([expect.objectContaining({ type: 'tool-result', toolCallId: 'c1', output: { type: 'text', value: 'counted to 3' } })])
    expect(await result.text).toBe('done')
  })

  it('a failed result becomes a tool error after its partial results', async () => {
    const model = scriptedModel([{ id: 'f1', name: 'fail', input: '{}' }])
    const result = streamText({ model, tools: toAiSdkTools(runtimeWithProgress(), { preliminaryResults: true }), prompt: 'try', stopWhen: stepCountIs(2) })
    const seen: string[] = []
    for await (const part of result.fullStream) {
      if (part.type === 'tool-result') seen.push(`${part.preliminary === true ? 'preliminary' : 'final'} ${described(part.output)}`)
      if (part.type === 'tool-error') seen.push(`error ${part.toolCallId}: ${(part.error as Error).message}`)
    }
    expect(seen).toEqual(['preliminary update f1: trying', 'error f1: Error: no luck'])
  })

  it('reaches the UI message stream as preliminary tool outputs', async () => {
    const model = scriptedModel([{ id: 'u1', name: 'count', input: '{"n":2}' }])
    const result = streamText({ model, tools: toAiSdkTools(runtimeWithProgress(), { preliminaryResults: true }), prompt: 'count', stopWhen: stepCountIs(2) })
    const chunks: UIMessageChunk[] = []
    for await (const chunk of result.toUIMessageStream()) chunks.push(chunk)
    const outputs = chunks.flatMap((c) => (c.type === 'tool-output-available' ? [[c.preliminary === true, described(c.output)]] : []))
    expect(outputs).toEqual([
      [true, 'update u1: step 1'],
      [true, 'update u1: step 2'],
      [true, 'result u1: counted to 2'],
      [false, 'result u1: counted to 2'],
    ])
  })

  it('without preliminaryResults, execute returns the ToolResult and no preliminary result is sent', async () => {
    const model = scriptedModel([{ id: 'n1', name: 'count', input: '{"n":2}' }])
    const tools = toAiSdkTools(runtimeWithProgress())
    const result = streamText({ model, tools, prompt: 'count', stopWhen: stepCountIs(2) })
    const results: string[] = []
    for await (const part of result.fullStream) if (part.type === 'tool-result') results.push(`${String(part.preliminary)} ${described(part.output)}`)
    expect(results).toEqual(['undefined result n1: counted to 2'])
  })
})
