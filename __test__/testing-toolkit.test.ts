// toolwire/testing's scripted model: real runs through ToolRuntime.run() on every wire, the
// property that every scripted turn decodes back to what it was written with (every wire, every
// answer format), the bytes each provider's own framing has, and the errors of misuse.

import { readFileSync } from 'node:fs'

import { describe, expect, it } from 'vitest'

import { StreamDecoder, ToolRuntime, ToolwireError } from '../dist/index.js'
import type { Wire } from '../dist/index.js'
import { scriptedBodies, scriptedBody, scriptedModel } from '../dist/testing/index.js'
import type { ScriptedTurn } from '../dist/testing/index.js'
import { WIRES, runtimeWithRead, userMessage } from './helpers.js'
import { FORMATS, expectDecodedAsWritten, turnGenerator } from './scripted-turns.js'


/** The history of a request body, whatever the wire calls it. */
function historyOf(request: any): any[] {
  return request.messages ?? request.input ?? request.contents
}

describe('scriptedModel drives run() on every wire', () => {
  for (const wire of WIRES) {
    it(`${wire}: thinking, parallel calls, a bad call fed back, a length cut, then the answer`, async () => {
      const { runtime, ran } = runtimeWithRead()
      const turns: ScriptedTurn[] = [
        {
          ...(wire === 'mistral' ? {} : { thinking: 'Two files: read both at once.' }),
          text: 'Let me look.',
          calls: [
            { name: 'read', arguments: { path: 'a.txt' } },
            { name: 'read', arguments: '{"path": "b.txt"}' },
          ],
          usage: { inputTokens: 100, outputTokens: 20 },
        },
        // Gemini carries arguments as objects, so it cannot send invalid JSON: a wrong type instead.
        { calls: [{ name: 'read', arguments: wire === 'gemini' ? { path: 7 } : '{"path": "c.txt",' }] },
        { calls: [{ name: 'read', arguments: '{"path":"d.txt"}' }], stop: 'length' },
        { text: 'All done.' },
      ]
      const model = scriptedModel(wire, turns)
      const outcome = await runtime.run({ wire, model, messages: [userMessage(wire, 'read them')] })

      expect(outcome.error).toBeUndefined()
      expect(outcome.stopReason).toBe('stop')
      expect(ran).toEqual(['a.txt', 'b.txt'])
      expect(outcome.steps.map((step) => step.results.map((result) => result.error?.code ?? result.status))).toEqual([
        ['ok', 'ok'],
        [wire === 'gemini' ? 'VALIDATION_ERROR' : 'INVALID_JSON'],
        ['INCOMPLETE_ARGUMENTS'],
        [],
      ])
      // A turn whose only call is not one JSON object has no call to run: the decoder says `stop`.
      expect(outcome.steps.map((step) => step.stopReason)).toEqual(['toolUse', wire === 'gemini' ? 'toolUse' : 'stop', 'length', 'stop'])
      expect(outcome.steps[0]!.text).toBe('Let me look.')
      expect(outcome.usage).toEqual({ inputTokens: 130, outputTokens: 35 })
      // Default ids are the wire's own, numbered through the script (Gemini sends none: made by the decoder).
      const ids = outcome.steps.flatMap((step) => step.calls.map((call) => call.id))
      const expectedIds = { 'openai-chat': 'call_', 'openai-responses': 'call_', anthropic: 'toolu_', mistral: 'call0000' }
      if (wire === 'gemini') expect(new Set(ids).size).toBe(4)
      else expect(ids).toEqual([1, 2, 3, 4].map((n) => `${expectedIds[wire]}${n}`))

      // The model got four requests, each a copy taken when it was asked: the history only grows.
      expect(model.requests).toHaveLength(4)
      const sizes = model.requests.map((request) => historyOf(request).length)
      expect(sizes).toEqual([...new Set(sizes)].sort((a, b) => a - b))
      expect(JSON.stringify(model.requests[0]!.tools)).toContain('read')
      const second = JSON.stringify(historyOf(model.requests[1]))
      expect(second).toContain('contents of b.txt')
      // The thinking goes back to the model as the wire needs it (Anthropic with its signature).
      if (wire === 'anthropic') expect(historyOf(model.requests[1])[1].content[0]).toMatchObject({ type: 'thinking', thinking: 'Two files: read both at once.', signature: expect.any(String) })
    })

    for (const format of FORMATS) {
      it(`${wire}: answers framed as ${format} run the same`, async () => {
        const { runtime, ran } = runtimeWithRead()
        const model = scriptedModel(wire, [{ text: 'Looking.', calls: [{ name: 'read', arguments: { path: 'x.txt' } }] }, { text: 'Done.' }], { format })
        const outcome = await runtime.run({ wire, model, messages: [userMessage(wire, 'go')] })
        expect(outcome.error).toBeUndefined()
        expect(outcome.stopReason).toBe('stop')
        expect(ran).toEqual(['x.txt'])
        expect(outcome.steps.map((step) => [step.text, step.stopReason])).toEqual([['Looking.', 'toolUse'], ['Done.', 'stop']])
      })
    }
  }
})

describe('every scripted turn decodes to what it was written with', () => {
  for (const wire of WIRES) {
    for (const format of FORMATS) {
      it(`${wire} as ${format}: 60 generated turns`, () => {
        const next = turnGenerator(WIRES.indexOf(wire) * 100 + FORMATS.indexOf(format) + 1, wire, format)
        for (let i = 0; i < 60; i++) {
          const turn = next()
          const decoder = new StreamDecoder(wire)
          decoder.push(scriptedBody(wire, turn, { format }))
          expectDecodedAsWritten(decoder.finish(), turn, wire, format, `${wire} ${format} turn ${i}: ${JSON.stringify(turn)}`)
        }
      })
    }
  }
})

describe('scriptedBodies', () => {
  const turns: ScriptedTurn[] = [{ calls: [{ name: 'read', arguments: { path: 'a' } }] }, { calls: [{ name: 'read', arguments: { path: 'b' } }] }, { text: 'done' }]

  it.each(['openai-chat', 'openai-responses', 'anthropic', 'mistral'] as const)('%s: the bodies of one conversation share no response id and no call id, as scriptedModel answers them', async (wire) => {
    const bodies = scriptedBodies(wire, turns)
    const model = scriptedModel(wire, turns)
    const answered = []
    for (const _ of turns) answered.push(await (await model({} as never)).text())
    expect(bodies).toEqual(answered)
    const responseIds = bodies.map((body) => /"id":"([^"]+)"/.exec(body)![1])
    expect(new Set(responseIds).size).toBe(3)
    // (each call's id, once a body, however often its events repeat it)
    const callIds = bodies.flatMap((body) => [...new Set([...body.matchAll(/"(?:call_)?id":"((?:call|toolu)[^"]*)"/g)].map((match) => match[1]))])
    expect(callIds).toHaveLength(2)
    expect(new Set(callIds).size).toBe(callIds.length)
  })

  it('names itself in its errors', () => {
    expect(() => scriptedBodies('anthropic', [{ stop: 'end' as never }])).toThrow(/^scriptedBodies: turns\[0\]\.stop: must be 'stop' or 'length'/)
  })
})

describe('the bytes are the provider’s own', () => {
  const turn: ScriptedTurn = { text: 'Hi', calls: [{ id: 'abcDEF123', name: 'read', arguments: { path: 'a' } }] }

  it('OpenAI Chat: data-only SSE, the call opened with its id and type, a usage chunk, [DONE]', () => {
    const text = scriptedBody('openai-chat', turn)
    expect(text).not.toContain('event:')
    expect(text).toContain('"tool_calls":[{"index":0,"id":"abcDEF123","type":"function","function":{"name":"read","arguments":""}}]')
    expect(text).toMatch(/"choices":\[\],"usage":\{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15\}\}\n\ndata: \[DONE\]\n\n$/)
  })

  it('Mistral: every call whole in the last chunk, without index or type, with the finish reason and usage', () => {
    const text = scriptedBody('mistral', turn)
    expect(text).toContain('"delta":{"content":null,"tool_calls":[{"id":"abcDEF123","function":{"name":"read","arguments":"{\\"path\\":\\"a\\"}"}}]},"finish_reason":"tool_calls"')
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
  })

  it('Responses: named events numbered by sequence_number, ending response.completed', () => {
    const events = scriptedBody('openai-responses', turn).split('\n\n').filter(Boolean)
    expect(events[0]).toMatch(/^event: response\.created\ndata: \{"type":"response\.created","sequence_number":0,/)
    events.forEach((event, i) => expect(event).toContain(`"sequence_number":${i},`))
    expect(events.at(-1)).toMatch(/^event: response\.completed\n/)
  })

  it('Anthropic: named events padded before their closing brace, a ping after the first block starts', () => {
    const text = scriptedBody('anthropic', turn)
    expect(text).toMatch(/^event: message_start\ndata: \{"type":"message_start",/)
    expect(text).toContain('event: ping\ndata: {"type": "ping"}\n\n')
    expect(text).toMatch(/"index":0 +\}/)
    expect(text).toContain('"partial_json":""')
    expect(text).toMatch(/event: message_stop\ndata: \{"type":"message_stop" *\}\n\n$/)
  })

  it('Gemini: SSE in Google’s JSON style with CRLF, and the JSON-array stream pretty-printed', () => {
    const sse = scriptedBody('gemini', turn)
    expect(sse).toMatch(/^data: \{"candidates": \[\{"content": \{"parts": \[\{"text": "Hi"\}\],"role": "model"\},"index": 0\}\],/)
    expect(sse.endsWith('}\r\n\r\n')).toBe(true)
    const array = scriptedBody('gemini', turn, { format: 'json-array' })
    expect(array.startsWith('[{\n  "candidates": [')).toBe(true)
    expect(array).toContain('\n}\n,\r\n{\n')
    expect(array.endsWith('\n}\n]')).toBe(true)
    expect(JSON.parse(array)).toHaveLength(2)
  })

  it('answers with the content type of each format, one event per body chunk', async () => {
    const types: Record<string, string> = {}
    for (const format of FORMATS) {
      const response = await scriptedModel('anthropic', [turn], { format })({ messages: [], stream: true })
      types[format] = response.headers.get('content-type')!
      let chunks = 0
      for await (const _ of response.body as unknown as AsyncIterable<Uint8Array>) chunks++
      const events = format === 'sse' ? scriptedBody('anthropic', turn).split('\n\n') : scriptedBody('anthropic', turn, { format: 'ndjson' }).split('\n')
      expect(chunks, format).toBe(format === 'whole' ? 1 : events.filter(Boolean).length)
    }
    expect(types).toEqual({
      sse: 'text/event-stream; charset=utf-8',
      ndjson: 'application/x-ndjson',
      'json-array': 'application/json; charset=UTF-8',
      whole: 'application/json',
    })
  })
})

describe('a long text streams in a bounded number of pieces', () => {
  /** The text deltas of an OpenAI Chat body, in order. */
  function chatDeltas(body: string): string[] {
    return body.split('\n\n').filter((event) => event.startsWith('data: {')).map((event) => JSON.parse(event.slice(6)).choices[0]?.delta?.content).filter((text) => typeof text === 'string' && text !== '')
  }

  it('a short text keeps its 6-character deltas; past 1000 pieces the pieces grow, never splitting a surrogate pair', () => {
    expect(chatDeltas(scriptedBody('openai-chat', { text: 'Hello there, world' }))).toEqual(['Hello ', 'there,', ' world'])
    // 6000 code points are 1000 pieces of 6; one more and the pieces are 7 long (858 of them).
    expect(chatDeltas(scriptedBody('openai-chat', { text: 'x'.repeat(6000) })).map((piece) => piece.length)).toEqual(Array(1000).fill(6))
    const grown = chatDeltas(scriptedBody('openai-chat', { text: 'x'.repeat(6001) }))
    expect([grown.length, grown[0]!.length, grown.at(-1)!.length]).toEqual([858, 7, 6001 - 857 * 7])
    // 9000 emoji (18000 UTF-16 units): 1000 pieces of 9 code points, each a whole character.
    const emoji = chatDeltas(scriptedBody('openai-chat', { text: '🙂'.repeat(9000) }))
    expect(emoji).toHaveLength(1000)
    expect(emoji.every((piece) => piece === '🙂'.repeat(9))).toBe(true)
  })

  it('a 5 MB text on every wire: a body near its size, in at most 1000 deltas, that decodes back exactly', () => {
    const text = 'Grüße, 世界 🙂 and a plain run of words. '.repeat(125_000).slice(0, 5_000_000)
    for (const wire of WIRES) {
      const body = scriptedBody(wire, { text })
      // The deltas' events are the constant. Responses sends the text again whole in four events
      // (output_text.done, content_part.done, output_item.done, response.completed), as OpenAI does.
      const copies = wire === 'openai-responses' ? 5 : 1
      expect(body.length, wire).toBeLessThan(copies * 1.2 * text.length + 400_000)
      expect(body.split(/\r?\n\r?\n/).length, wire).toBeLessThan(1010)
      const decoder = new StreamDecoder(wire)
      decoder.push(body)
      const decoded = decoder.finish()
      expect(decoded.text === text, wire).toBe(true)
      expect([decoded.stopReason, decoded.errors], wire).toEqual(['stop', []])
    }
  })

  it('long thinking and arguments too: each in at most 1000 pieces, decoding back exactly', () => {
    const long = JSON.stringify({ path: 'ä/b\\c "🙂" '.repeat(30_000) })
    for (const wire of WIRES) {
      const turn: ScriptedTurn = { ...(wire === 'mistral' ? {} : { thinking: long }), calls: [{ name: 'read', arguments: long }] }
      const body = scriptedBody(wire, turn)
      expect(body.split(/\r?\n\r?\n/).length, wire).toBeLessThan(2020)
      const decoder = new StreamDecoder(wire)
      decoder.push(body)
      expectDecodedAsWritten(decoder.finish(), turn, wire, 'sse', wire)
    }
  })
})

describe('misuse is a clear error naming the value', () => {
  /** The ToolwireError `run` throws: its code and message. */
  function thrown(run: () => unknown): { code: string; message: string } {
    try {
      run()
    } catch (error) {
      expect(error).toBeInstanceOf(ToolwireError)
      return { code: (error as ToolwireError).code, message: (error as Error).message }
    }
    throw new Error('nothing was thrown')
  }

  it('an unknown wire, with the closest one', () => {
    expect(thrown(() => scriptedModel('openai' as Wire, []))).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'scriptedModel: unknown wire "openai": expected one of "openai-chat", "openai-responses", "anthropic", "gemini", "mistral"; did you mean "openai-chat"?',
    })
    expect(thrown(() => scriptedBody('cohere' as Wire, {})).message).toMatch(/^scriptedBody: unknown wire "cohere"/)
  })

  it('bad turns, naming the turn, the key and the value', () => {
    const bad = (wire: Wire, turns: unknown, options?: object) => thrown(() => scriptedModel(wire, turns as ScriptedTurn[], options)).message
    expect(bad('openai-chat', 'hello')).toBe('scriptedModel: turns must be an array of turns, got string hello')
    expect(bad('openai-chat', [{ text: 'ok' }, null])).toBe('scriptedModel: turns[1]: must be an object { text?, thinking?, calls?, stop?, usage? }, got null')
    expect(bad('openai-chat', [{ txt: 'ok' }])).toMatch(/^scriptedModel: turns\[0\] has unknown key "txt".*did you mean "text"\?/)
    expect(bad('anthropic', [{ calls: [{ name: 'read', args: '{}' }] }])).toBe('scriptedModel: turns[0].calls[0] has unknown key "args" (expected one of: id, name, arguments)')
    expect(bad('anthropic', [{ calls: [{ arguments: {} }] }])).toBe('scriptedModel: turns[0].calls[0].name: must be a non-empty string, got undefined')
    expect(bad('anthropic', [{ calls: [{ name: 'read', arguments: 42 }] }])).toBe('scriptedModel: turns[0].calls[0].arguments: must be an object or JSON text, got number 42')
    expect(bad('openai-chat', [{ stop: 'max_tokens' }])).toBe("scriptedModel: turns[0].stop: must be 'stop' or 'length', got string max_tokens")
    expect(bad('openai-chat', [{ usage: { inputTokens: -1 } }])).toBe('scriptedModel: turns[0].usage.inputTokens: must be a whole number of at least 0, got number -1')
    expect(bad('gemini', [{}, { calls: [{ name: 'read', arguments: '{"path": "a' }] }])).toBe(
      'scriptedModel: turns[1].calls[0].arguments: gemini sends arguments as a JSON object (functionCall.args), so it cannot carry the text "{\\"path\\": \\"a": give an object, or JSON text of one',
    )
    expect(bad('anthropic', [{ calls: [{ name: 'read', arguments: 'nope' }] }], { format: 'whole' })).toMatch(/anthropic's whole response holds arguments as a JSON object \(tool_use\.input\)/)
    expect(bad('mistral', [{ thinking: 'hmm' }])).toMatch(/^scriptedModel: turns\[0\]\.thinking: the mistral wire has no thinking toolwire reads/)
    expect(bad('openai-chat', [{ thinking: { text: 'hmm', signature: 's' } }])).toBe("scriptedModel: turns[0].thinking.signature: openai-chat's reasoning_content has no signature: leave it out")
    expect(bad('openai-chat', [], { format: 'xml' })).toBe("scriptedModel: options.format must be one of 'sse', 'ndjson', 'json-array', 'whole', got string xml")
    expect(bad('openai-chat', [], { fromat: 'sse' })).toMatch(/^scriptedModel: options has unknown key "fromat".*did you mean "format"\?/)
  })

  it('a call past the last turn names the count, and ends the run with that error', async () => {
    const { runtime } = runtimeWithRead()
    const model = scriptedModel('openai-chat', [{ calls: [{ name: 'read', arguments: { path: 'a' } }] }])
    const outcome = await runtime.run({ wire: 'openai-chat', model })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toContain('scriptedModel: the script has 1 turn, and this is model call 2')
    expect(model.requests).toHaveLength(2)
    await expect(model({ messages: [], stream: true, stream_options: { include_usage: true } })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: expect.stringMatching(/^scriptedModel: the script has 1 turn, and this is model call 3: /),
    })
  })
})

describe('the README', () => {
  it('shows the example the strict type test compiles (__test__/consumer/testing.mts)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const source = readFileSync(new URL('./consumer/testing.mts', import.meta.url), 'utf8')
    const block = /\/\/ --- README: toolwire\/testing ---\n([\s\S]*?)\n\/\/ --- end ---/.exec(source)![1]!
    expect(readme).toContain(`### Testing an agent: \`toolwire/testing\`\n\nA model that answers with each provider's real bytes, the faults a network adds to them, and\ncassettes that record a run once and replay it offline:\n\n\`\`\`ts\n${block}\n\`\`\`\n`)
  })
})

// Attack review 22, s1: a call given the id a later call got by default (`call_2`, `toolu_2`,
// `call00002`) shared it with that call, where the README says no two share a call id.
describe('default call ids skip every id the script gives', () => {
  const style = { 'openai-chat': 'call_2', 'openai-responses': 'call_2', anthropic: 'toolu_2', mistral: 'call00002' } as const
  const next = { 'openai-chat': 'call_3', 'openai-responses': 'call_3', anthropic: 'toolu_3', mistral: 'call00003' } as const

  it.each(['openai-chat', 'openai-responses', 'anthropic', 'mistral'] as const)('%s: a default id is never one given, earlier or later in the script', (wire) => {
    const turns: ScriptedTurn[] = [
      { calls: [{ id: style[wire], name: 'a' }] },
      { calls: [{ name: 'b' }] },
      // (given later: the first call's default would have been this one)
      { calls: [{ name: 'c' }, { id: next[wire], name: 'd' }] },
    ]
    const ids = scriptedBodies(wire, turns).flatMap((body) => {
      const decoder = new StreamDecoder(wire)
      decoder.push(body)
      return decoder.finish().toolCalls.map((call) => call.id)
    })
    expect(ids).toHaveLength(4)
    expect(new Set(ids).size).toBe(4)
    expect(ids[0]).toBe(style[wire])
    expect(ids[3]).toBe(next[wire])
  })

  it('a run of such a script pairs each result with its own call', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'a', parameters: { type: 'object' }, execute: async () => 'A' })
    runtime.register({ name: 'b', parameters: { type: 'object' }, execute: async () => 'B' })
    const model = scriptedModel('anthropic', [{ calls: [{ id: 'toolu_2', name: 'a' }] }, { calls: [{ name: 'b' }] }, { text: 'end' }])
    const outcome = await runtime.run({ wire: 'anthropic', model, messages: [{ role: 'user', content: 'x' }] })
    expect(outcome.stopReason).toBe('stop')
    const ids = outcome.steps.flatMap((step) => step.calls.map((call) => call.id))
    expect(ids).toEqual(['toolu_2', 'toolu_3'])
    expect(outcome.steps.flatMap((step) => step.results.map((result) => result.content))).toEqual([[{ type: 'text', text: 'A' }], [{ type: 'text', text: 'B' }]])
  })

  it('two calls of one turn given one id are refused, naming both; one id in two turns is taken as given', () => {
    const refused = (() => {
      try {
        scriptedModel('openai-chat', [{ calls: [{ id: 'x', name: 'a' }, { name: 'b' }, { id: 'x', name: 'c' }] }])
      } catch (error) {
        return error as ToolwireError
      }
    })()
    expect(refused).toBeInstanceOf(ToolwireError)
    expect([refused!.code, refused!.message]).toEqual(['VALIDATION_ERROR', 'scriptedModel: turns[0].calls[2].id: "x" is already the id of turns[0].calls[0]: no two calls of a turn share an id'])
    expect(() => scriptedBodies('gemini', [{ text: 'hi' }, { calls: [{ id: 'g', name: 'a' }, { id: 'g', name: 'b' }] }])).toThrow(/^scriptedBodies: turns\[1\]\.calls\[1\]\.id: "g" is already the id of turns\[1\]\.calls\[0\]/)
    const bodies = scriptedBodies('openai-chat', [{ calls: [{ id: 'same', name: 'a' }] }, { calls: [{ id: 'same', name: 'a' }] }])
    for (const body of bodies) expect(body).toContain('"id":"same"')
  })
})
