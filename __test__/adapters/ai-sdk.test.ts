import { stepCountIs, streamText, type TextStreamPart, type ToolSet } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'

import { ToolRuntime, type ToolResult } from '../../dist/index.js'
import { toAiSdkTools } from 'toolwire/ai-sdk'
import { hangingTool, pngBase64, sleep } from './fixtures.js'

/** The stream parts a LanguageModelV3 emits (the type of @ai-sdk/provider, reached through ai/test). */
type LanguageModelV3StreamPart =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
}

function toolTurn(calls: { id: string; name: string; input: string }[]): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    ...calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.input })),
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ]
}

function textTurn(text: string): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ]
}

function mockModel(...turns: LanguageModelV3StreamPart[][]) {
  return new MockLanguageModelV3({ doStream: turns.map((parts) => ({ stream: convertArrayToReadableStream(parts) })) })
}

describe('toolwire/ai-sdk toAiSdkTools', () => {
  it('streamText with a mocked model runs the tool calls through the runtime with their ids; results and errors reach the next step', async () => {
    const png = await pngBase64()
    const seen: { id: string; signal: boolean }[] = []
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'weather',
      label: 'Weather',
      description: 'Forecast for a city',
      parameters: z.object({ city: z.string() }),
      execute: (id: string, p: { city: string }, signal?: AbortSignal) => {
        seen.push({ id, signal: signal instanceof AbortSignal })
        return `sunny in ${p.city}`
      },
    })
    runtime.register({
      name: 'chart',
      execute: () => ({ content: [{ type: 'text', text: 'the chart' }, { type: 'image', data: png, mimeType: 'image/png' }] }),
    })
    const tools = toAiSdkTools(runtime)
    expect(Object.keys(tools)).toEqual(['weather', 'chart'])
    expect(tools.weather.description).toBe('Forecast for a city')
    expect(tools.weather.title).toBe('Weather')

    const model = mockModel(
      toolTurn([
        { id: 'call_w', name: 'weather', input: '{"city":"Oslo"}' },
        { id: 'call_bad', name: 'weather', input: '{"city":5}' },
        { id: 'call_c', name: 'chart', input: '{}' },
      ]),
      textTurn('done'),
    )
    const result = streamText({ model, tools, prompt: 'weather?', stopWhen: stepCountIs(3) })
    const parts: TextStreamPart<ToolSet>[] = []
    for await (const part of result.fullStream) parts.push(part)

    const toolResults = parts.filter((p) => p.type === 'tool-result')
    const toolErrors = parts.filter((p) => p.type === 'tool-error')
    expect(toolResults.map((p) => p.type === 'tool-result' && p.toolCallId).sort()).toEqual(['call_c', 'call_w'])
    const weather = toolResults.find((p) => p.type === 'tool-result' && p.toolCallId === 'call_w')
    expect(weather?.type === 'tool-result' && (weather.output as ToolResult)).toMatchObject({ callId: 'call_w', ok: true, status: 'ok' })
    expect(toolErrors).toHaveLength(1)
    const error = toolErrors[0].type === 'tool-error' ? toolErrors[0] : undefined
    expect(error?.toolCallId).toBe('call_bad')
    expect(String((error?.error as Error).message)).toContain('/city')
    expect(((error?.error as Error & { code?: string }).code)).toBe('VALIDATION_ERROR')
    expect(seen).toEqual([{ id: 'call_w', signal: true }])
    expect(await result.text).toBe('done')

    // What the model read back in its second call: toModelOutput's text, content with image, error text.
    const prompt = model.doStreamCalls[1].prompt
    const outputs = Object.fromEntries(
      prompt
        .filter((m) => m.role === 'tool')
        .flatMap((m) => m.content)
        .map((part) => [part.type === 'tool-result' ? part.toolCallId : '?', part.type === 'tool-result' ? part.output : undefined]),
    )
    expect(outputs.call_w).toEqual({ type: 'text', value: 'sunny in Oslo' })
    expect(outputs.call_c).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'the chart' },
        { type: 'image-data', data: png, mediaType: 'image/png' },
      ],
    })
    expect(outputs.call_bad).toMatchObject({ type: 'error-text' })
    expect(JSON.stringify(outputs.call_bad)).toContain('/city')
    // The SDK sends an error-text as a plain tool output to OpenAI and Mistral: it reads as a
    // failure by its text (r9 user review, 17-error-text).
    expect((outputs.call_bad as { value: string }).value).toMatch(/^Error: /)
    // The definitions the model was given carry the runtime's JSON Schema.
    const given = model.doStreamCalls[0].tools ?? []
    expect(given.find((t) => t.name === 'weather')).toMatchObject({
      type: 'function',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    })
  })

  it("streamText's abortSignal reaches the running tool through the runtime", async () => {
    const controller = new AbortController()
    const hang = hangingTool(() => controller.abort(new Error('stop it')))
    const runtime = new ToolRuntime()
    runtime.register({ name: 'hang', execute: hang.execute })
    const result = streamText({
      model: mockModel(toolTurn([{ id: 'h1', name: 'hang', input: '{}' }]), textTurn('never')),
      tools: toAiSdkTools(runtime),
      prompt: 'x',
      abortSignal: controller.signal,
      stopWhen: stepCountIs(2),
    })
    const parts: string[] = []
    for await (const part of result.fullStream) parts.push(part.type)
    expect(((await hang.stopped) as Error).message).toBe('stop it')
    expect(parts).toContain('abort')
  })

  it('only the named tools, and a timeout result becomes a tool error', async () => {
    const runtime = new ToolRuntime({ timeoutMs: 40 })
    runtime.register({ name: 'slow', execute: () => sleep(1000).then(() => 'late') })
    runtime.register({ name: 'other', execute: () => 'x' })
    const tools = toAiSdkTools(runtime, { tools: ['slow'] })
    expect(Object.keys(tools)).toEqual(['slow'])
    const result = streamText({ model: mockModel(toolTurn([{ id: 's', name: 'slow', input: '{}' }]), textTurn('ok')), tools, prompt: 'x', stopWhen: stepCountIs(2) })
    const errors: unknown[] = []
    for await (const part of result.fullStream) if (part.type === 'tool-error') errors.push(part.error)
    expect(errors).toHaveLength(1)
    expect((errors[0] as Error & { status?: string }).status).toBe('timeout')
  })
})
