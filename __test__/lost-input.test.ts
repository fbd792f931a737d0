// A stream in which one event could not be read (a proxy garbled it) has lost data: the turn is
// broken, as a stream cut off is. Found by an attack: Anthropic input deltas `{"step":` + a
// garbled `1` + `0}` ran the tool with {"step":0}; on Chat Completions the middle of three
// calls vanished, the other two ran, and the run ended `stop`.
import { describe, expect, it } from 'vitest'

import { StreamDecoder } from '../dist/index.js'
import type { AssembledTurn, Wire } from '../dist/index.js'
import { scriptedBody } from '../dist/testing/index.js'
import { runtimeWithRead, userMessage } from './helpers.js'
import { describeWithFixtures, itWithFixtures, loadFixtures } from './fixtures.js'

const WIRES: Wire[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mistral']

const TURN = {
  text: 'Reading three.',
  calls: [
    { id: 'c1aaaaaaa', name: 'read', arguments: { path: 'a.txt' } },
    { id: 'c2aaaaaaa', name: 'read', arguments: { path: 'b.txt' } },
    { id: 'c3aaaaaaa', name: 'read', arguments: { path: 'c.txt' } },
  ],
}

/** The SSE blocks of `body`, each with its separator. */
function blocks(body: string): string[] {
  return body.split(/(?<=\r?\n\r?\n)/).filter((block) => block.trim() !== '')
}

/** `block` with its `data:` JSON cut in the middle: not valid JSON any more. */
function garble(block: string): string {
  return block.replace(/^data: (.*)$/m, (_, data: string) => `data: ${data.slice(0, Math.max(1, Math.floor(data.length / 2)))}`)
}

function decode(body: string | Buffer, wire: Wire): AssembledTurn {
  const decoder = new StreamDecoder(wire)
  decoder.push(body)
  return decoder.finish()
}

/** `(id, name, arguments)` of the complete calls. */
const complete = (turn: AssembledTurn) => turn.toolCalls.filter((call) => call.complete).map((call) => [call.id, call.name, call.arguments])

describe('run: a turn in which an event could not be read runs none of its calls', () => {
  for (const wire of WIRES) {
    it(`${wire}: each event garbled in turn`, async () => {
      const parts = blocks(scriptedBody(wire, TURN))
      const whole = decode(parts.join(''), wire)
      expect(whole.stopReason).toBe('toolUse')
      expect(complete(whole)).toHaveLength(3)
      let broken = 0
      for (let at = 0; at < parts.length; at++) {
        const garbled = parts.map((part, i) => (i === at ? garble(part) : part)).join('')
        const turn = decode(garbled, wire)
        const label = `${wire}, event ${at}: ${JSON.stringify(turn)}`
        expect(turn.errorKinds.length, label).toBeGreaterThan(0)
        if (turn.stopReason !== 'error') {
          // Lost after the turn's end: the turn was whole.
          expect(complete(turn), label).toEqual(complete(whole))
          continue
        }
        broken += 1
        // A call the wire sealed whole in one event is as sent; no other is complete.
        for (const call of complete(turn)) expect(complete(whole), label).toContainEqual(call)
        const { runtime, ran } = runtimeWithRead()
        const outcome = await runtime.run({ wire, messages: [userMessage(wire, 'read them')], model: () => new Response(garbled) })
        expect(ran, label).toEqual([])
        expect(outcome.stopReason, label).toBe('error')
        expect(outcome.error, label).toMatch(/not a valid|could not be read|is not valid|has no type|stream ended before/)
        expect(outcome.steps).toHaveLength(1)
        // Each call gets an error result (a call whose name was lost: NOT_FOUND).
        const codes = outcome.steps[0].results.map((result) => result.error?.code)
        expect(codes, label).toEqual(turn.toolCalls.map((call) => (call.name === '' ? 'NOT_FOUND' : 'INCOMPLETE_ARGUMENTS')))
      }
      expect(broken).toBeGreaterThan(parts.length / 2)
    })
  }

  it("the attack's streams: nothing runs, the run ends with the unreadable event", async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    const call = (index: number, args: string) => ({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: 'read', arguments: args } }] })
    const chat = [
      chunk(call(0, '{"path":"a.txt"}')),
      'data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"read","argum\n\n',
      chunk(call(2, '{"path":"c.txt"}')),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    ].join('')
    const ev = (data: object) => `event: x\ndata: ${JSON.stringify(data)}\n\n`
    const delta = (partial_json: string) => ev({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } })
    const anthropic = [
      ev({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 1, output_tokens: 1 } } }),
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} } }),
      delta('{"path":"a'),
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"b\n\n',
      delta('.txt"}'),
      ev({ type: 'content_block_stop', index: 0 }),
      ev({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 2 } }),
      ev({ type: 'message_stop' }),
    ].join('')
    for (const [wire, body, event] of [['openai-chat', chat, 'Chat Completions event 2'], ['anthropic', anthropic, 'Anthropic event 4']] as const) {
      const { runtime, ran } = runtimeWithRead()
      let calls = 0
      const model = () => {
        calls += 1
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
      }
      const outcome = await runtime.run({ wire, messages: [userMessage(wire, 'read them')], model })
      expect(ran, wire).toEqual([])
      expect(calls, wire).toBe(1)
      expect(outcome.stopReason, wire).toBe('error')
      expect(outcome.error, wire).toContain(`${event} is not a valid`)
      expect(outcome.error, wire).toContain('(its tool calls were not run)')
      const [step] = outcome.steps
      expect(step.stopReason, wire).toBe('error')
      expect(step.errorKinds, wire).toEqual(['unreadable-event'])
      expect(step.calls.every((c) => !c.complete), wire).toBe(true)
      expect(step.results.map((result) => result.error?.code), wire).toEqual(step.calls.map(() => 'INCOMPLETE_ARGUMENTS'))
    }
  })
})

describeWithFixtures('decoder: each event of each recorded stream garbled in turn', () => {
  itWithFixtures('decodes as whole, or broken with no call complete that was not sent so', () => {
    // (by name and arguments: a call sent without an id gets a new one at each decoding)
    const complete = (turn: AssembledTurn) => turn.toolCalls.filter((call) => call.complete).map((call) => [call.name, call.arguments])
    let broken = 0
    for (const expected of loadFixtures()) {
      const text = expected.body.toString('utf8')
      const whole = decode(expected.body, expected.wire)
      // SSE blocks, or one JSON value per line (NDJSON, Gemini's array, a whole response).
      const sse = /^\s*(data|event):/m.test(text) && !text.trimStart().startsWith('{') && !text.trimStart().startsWith('[')
      const parts = sse ? blocks(text) : text.split(/(?<=\n)/)
      for (let at = 0; at < parts.length; at++) {
        const part = parts[at]!
        if (!/[[{]/.test(part)) continue
        const garbled = sse ? garble(part) : part.slice(0, Math.floor(part.trimEnd().length / 2)) + '\n'
        const turn = decode(parts.map((p, i) => (i === at ? garbled : p)).join(''), expected.wire)
        const label = `${expected.file}#${expected.part}, part ${at}: ${JSON.stringify(turn)}`
        if (turn.stopReason === 'error') {
          broken += 1
          for (const call of complete(turn)) expect(complete(whole), label).toContainEqual(call)
        } else {
          expect(turn.errorKinds.length, label).toBeGreaterThan(0)
          expect(complete(turn), label).toEqual(complete(whole))
          expect(turn.stopReason, label).toBe(whole.stopReason)
        }
      }
    }
    expect(broken).toBeGreaterThan(1000)
  })
})
