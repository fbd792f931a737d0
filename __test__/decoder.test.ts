// The StreamDecoder at the JavaScript boundary: inputs it takes, errors it throws, the partial
// object mode, and how a decoded turn goes to dispatch.
import { describe, expect, it } from 'vitest'

import { StreamDecoder, ToolRuntime, ToolwireError, type StreamEvent } from '../dist/index.js'
import { textOf } from './helpers.js'
import { body, whole } from './scripted.js'

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
    try {
      new StreamDecoder('openai-chat', { partial: 'full' as never })
    } catch (error) {
      expect(error).toBeInstanceOf(ToolwireError)
      expect((error as ToolwireError).code).toBe('VALIDATION_ERROR')
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

describe('names that are not a wire', () => {
  it('are refused naming the name, the wires and the closest one, at every entry point', async () => {
    const { encodeResults, encodeToolCalls, repairHistory } = await import('../dist/index.js')
    const runtime = new ToolRuntime()
    const entries: [string, () => unknown][] = [
      ['StreamDecoder', () => new StreamDecoder('openai' as never)],
      ['encodeResults', () => encodeResults([], 'openai' as never)],
      ['encodeToolCalls', () => encodeToolCalls({ toolCalls: [] } as never, 'openai' as never)],
      ['repairHistory', () => repairHistory([], 'openai' as never)],
      ['run', () => runtime.run({ wire: 'openai' as never, model: async () => [] })],
    ]
    for (const [where, call] of entries) {
      let error: unknown
      try {
        await call()
      } catch (thrown) {
        error = thrown
      }
      expect(error, where).toBeInstanceOf(ToolwireError)
      expect((error as Error).message, where).toBe(
        `${where}: unknown wire "openai": expected one of "openai-chat", "openai-responses", "anthropic", "gemini", "mistral"; did you mean "openai-chat"?`,
      )
    }
    expect(() => new StreamDecoder('Anthropic' as never)).toThrow(/did you mean "anthropic"\?$/)
    expect(() => new StreamDecoder('cohere' as never)).toThrow(/unknown wire "cohere": expected one of [^;]*$/)
    expect(() => new StreamDecoder(3 as never)).toThrow(/unknown wire number 3/)
    // A huge name is quoted bounded.
    expect(() => new StreamDecoder('x'.repeat(1_000_000) as never)).toThrow(/^StreamDecoder: unknown wire "x{100}"…: expected one of /)
  })
})

describe('a whole (non-streamed) response', () => {
  const turn = {
    text: 'Reading.',
    calls: [
      { id: 'call_1', name: 'read', args: '{"path":"a.txt"}' },
      { id: 'call_2', name: 'list', args: '{}' },
    ],
  }

  it('decodes to the calls of its stream through push and pushEvent, on every wire', () => {
    for (const wire of ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mistral'] as const) {
      const streamed = new StreamDecoder(wire)
      streamed.push(body(wire, turn))
      const expected = streamed.finish()
      expect(expected.toolCalls.map((c) => [c.id, c.name, c.arguments, c.complete]), wire).toEqual([
        ['call_1', 'read', '{"path":"a.txt"}', true],
        ['call_2', 'list', '{}', true],
      ])
      for (const feed of ['push', 'pushEvent'] as const) {
        const decoder = new StreamDecoder(wire)
        if (feed === 'push') decoder.push(JSON.stringify(whole(wire, turn), null, 2))
        else decoder.pushEvent(whole(wire, turn))
        const got = decoder.finish()
        expect(got.errors, `${wire} ${feed}`).toEqual([])
        expect(got.toolCalls, `${wire} ${feed}`).toEqual(expected.toolCalls)
        expect([got.text, got.stopReason, got.rawStopReason], `${wire} ${feed}`).toEqual([expected.text, 'toolUse', expected.rawStopReason])
        expect(got.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 })
      }
    }
  })

  it('whose stop reason says tool calls but that holds none is an error', () => {
    const decoder = new StreamDecoder('openai-chat')
    decoder.pushEvent({ ...whole('openai-chat', { text: 'done' }), choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'tool_calls' }] })
    const turn = decoder.finish()
    expect(turn.stopReason).toBe('error')
    expect(turn.errors).toEqual([
      'the stop reason "tool_calls" says the turn holds tool calls, but none arrived: they were lost before reaching the decoder',
    ])
  })

  it('that is not the wire at all is an error naming its content type and first bytes', () => {
    const decoder = new StreamDecoder('openai-chat', { contentType: 'text/html; charset=utf-8' })
    decoder.push('<!DOCTYPE html>\n<html><title>Sign in</title>' + '<p>x</p>'.repeat(10_000))
    const turn = decoder.finish()
    expect(turn.stopReason).toBe('error')
    expect(turn.errors).toHaveLength(1)
    expect(turn.errors[0]).toMatch(
      /^the body \(content type "text\/html; charset=utf-8"\) is not a response of the openai-chat wire: nothing in it was understood; it begins with "<!DOCTYPE html>\\n<html><title>Sign in<\/title><p>x<\/p>.*"… \(80\d\d\d bytes in all\)$/,
    )
    expect(turn.errors[0]!.length).toBeLessThan(400)
    expect(() => new StreamDecoder('openai-chat', { contentType: 3 } as never)).toThrow(/contentType is 3: expected a string/)
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
