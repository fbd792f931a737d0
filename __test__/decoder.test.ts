// The StreamDecoder at the JavaScript boundary: inputs it takes, errors it throws, the partial
// object mode, and how a decoded turn goes to dispatch.
import { describe, expect, it } from 'vitest'

import { StreamDecoder, ToolRuntime, ToolwireError, type StreamEvent } from '../index.js'
import { textOf } from './helpers.js'

const chunk = (toolCalls: object[] | null, finish: string | null = null) =>
  JSON.stringify({ id: 'r', choices: [{ index: 0, delta: toolCalls ? { tool_calls: toolCalls } : {}, finish_reason: finish }] })

const sse = (...chunks: string[]) => chunks.map((c) => `data: ${c}\n\n`).join('')

const cutOff = sse(chunk([{ index: 0, id: 'call_1', function: { name: 'wipe', arguments: '{"action":"delete_all"' } }]))

describe('StreamDecoder', () => {
  it('takes bytes, Buffers, ArrayBuffers and text', () => {
    const body = sse(chunk([{ index: 0, id: 'c', function: { name: 'w', arguments: '{}' } }]), chunk(null, 'tool_calls'), '[DONE]')
    const bytes = new TextEncoder().encode(body)
    for (const input of [body, bytes, Buffer.from(body), bytes.buffer.slice(0)]) {
      const decoder = new StreamDecoder('openai-chat')
      const events = decoder.push(input as Uint8Array)
      expect(events.map((e) => e.type)).toEqual(['toolcall_start', 'toolcall_delta', 'toolcall_end', 'done'])
      const turn = decoder.finish()
      expect(turn.toolCalls).toEqual([{ index: 0, id: 'c', name: 'w', arguments: '{}', complete: true }])
      expect(turn.stopReason).toBe('toolUse')
      expect(turn.events).toEqual([])
    }
  })

  it('takes SDK chunk objects and their JSON text through pushEvent', () => {
    const decoder = new StreamDecoder('anthropic')
    decoder.pushEvent({ type: 'message_start', message: { id: 'm', content: [] } })
    decoder.pushEvent({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'n', input: {} } })
    decoder.pushEvent(JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } }))
    decoder.pushEvent({ type: 'content_block_stop', index: 0 })
    decoder.pushEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use' } })
    const done = decoder.pushEvent({ type: 'message_stop' })
    expect(done).toEqual([{ type: 'done', stopReason: 'toolUse' }])
    expect(decoder.finish().toolCalls[0]).toMatchObject({ id: 't', arguments: '{"a":1}', complete: true })
  })

  it('throws typed errors naming the bad value', () => {
    expect(() => new StreamDecoder('openai' as never)).toThrow(/unknown wire string openai/)
    try {
      new StreamDecoder('openai-chat', { partial: 'full' as never })
    } catch (error) {
      expect(error).toBeInstanceOf(ToolwireError)
      expect((error as ToolwireError).code).toBe('PRECONDITION_FAILED')
      expect((error as Error).message).toContain('partial is "full"')
    }
    expect(() => new StreamDecoder('openai-chat', { partials: 'none' } as never)).toThrow(/"partials"/)
    const decoder = new StreamDecoder('gemini')
    expect(() => decoder.push(42 as never)).toThrow(TypeError)
    expect(() => decoder.pushEvent(null as never)).toThrow(TypeError)
  })

  it('reports bad events in the stream instead of throwing', () => {
    const decoder = new StreamDecoder('openai-chat')
    const events = decoder.pushEvent('{not json')
    expect(events).toHaveLength(1)
    expect(events[0]!.type).toBe('error')
    expect(decoder.finish().errors[0]).toContain('event 1')
  })

  it('ends a cut-off stream with incomplete calls and the events that say so', () => {
    const decoder = new StreamDecoder('openai-chat')
    decoder.push(cutOff)
    const turn = decoder.finish()
    expect(turn.stopReason).toBe('error')
    expect(turn.toolCalls[0]).toMatchObject({ complete: false, error: { code: 'INCOMPLETE_ARGUMENTS' } })
    expect(turn.events.map((e) => e.type)).toEqual(['error', 'toolcall_end', 'done'])
    expect(decoder.finish().toolCalls).toEqual(turn.toolCalls)
  })

  it("keeps the partial arguments object up to date with partial: 'object'", () => {
    const decoder = new StreamDecoder('openai-chat', { partial: 'object' })
    const fragments = ['{"path":"src/', 'main.rs","edits":[{"line":', '3,"text":"fn"}', '],"dry":false}']
    const seen: unknown[] = []
    fragments.forEach((fragment, i) => {
      const call = i === 0 ? { index: 0, id: 'c', function: { name: 'edit', arguments: fragment } } : { index: 0, function: { arguments: fragment } }
      for (const event of decoder.pushEvent(chunk([call]))) {
        if (event.type === 'toolcall_delta') seen.push(JSON.parse(JSON.stringify(event.object)))
      }
    })
    expect(seen[0]).toEqual({ path: 'src/' })
    expect(seen.at(-1)).toEqual({ path: 'src/main.rs', edits: [{ line: 3, text: 'fn' }], dry: false })
    decoder.pushEvent(chunk(null, 'tool_calls'))
    const turn = decoder.finish()
    expect(JSON.parse(turn.toolCalls[0]!.arguments)).toEqual(seen.at(-1))
  })

  it("gives partial changes as paths with partial: 'delta' (the default)", () => {
    const decoder = new StreamDecoder('openai-chat')
    const events = decoder.pushEvent(chunk([{ index: 0, id: 'c', function: { name: 'w', arguments: '{"content":"ab' } }]))
    const delta = events.find((e): e is Extract<StreamEvent, { type: 'toolcall_delta' }> => e.type === 'toolcall_delta')
    expect(delta).toEqual({ type: 'toolcall_delta', index: 0, delta: '{"content":"ab', partial: { path: ['content'], append: 'ab' } })
  })
})

describe('dispatch of decoded calls', () => {
  it('never runs a call the decoder marked incomplete', async () => {
    let ran = 0
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'wipe',
      parameters: { type: 'object' },
      execute: async () => {
        ran += 1
        return 'wiped'
      },
    })
    const decoder = new StreamDecoder('openai-chat')
    decoder.push(cutOff)
    const turn = decoder.finish()
    const [result] = await runtime.dispatch(turn.toolCalls)
    expect(ran).toBe(0)
    expect(result!.ok).toBe(false)
    expect(result!.error!.code).toBe('INCOMPLETE_ARGUMENTS')
    expect(textOf(result!)).toContain('Call the tool again with complete arguments')
  })

  it('runs the complete calls of a decoded turn', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async (_id: string, args: unknown) => JSON.stringify(args) })
    const decoder = new StreamDecoder('openai-chat')
    decoder.push(sse(chunk([{ index: 0, id: 'c', function: { name: 'echo', arguments: '{"x":1}' } }]), chunk(null, 'tool_calls')))
    const [result] = await runtime.dispatch(decoder.finish().toolCalls)
    expect(result!.ok).toBe(true)
    expect(textOf(result!)).toBe('{"x":1}')
  })
})
