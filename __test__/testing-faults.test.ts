// toolwire/testing's faultyStream: bodies split at every byte or at seeded places decode as whole
// ones, cuts end in the decoder's truncation error (never a hang, in a decoder or in run()),
// duplicated events are handled as the decoder documents, parallel calls interleave where the
// wire keys them, removed ids and indexes are repaired.

import { describe, expect, it } from 'vitest'

import { StreamDecoder, ToolwireError } from '../dist/index.js'
import type { AssembledTurn, Wire } from '../dist/index.js'
import { faultyStream, scriptedBody, scriptedModel } from '../dist/testing/index.js'
import type { Faults, ScriptedTurn } from '../dist/testing/index.js'
import { WIRES, runtimeWithRead } from './helpers.js'
import { FORMATS, expectDecodedAsWritten, turnGenerator } from './scripted-turns.js'

/** The chunks a faulty stream delivers. */
async function chunksOf(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

/** `body` decoded on `wire` through a faulty stream with `faults`. */
async function decode(wire: Wire, body: string, faults?: Faults): Promise<AssembledTurn> {
  const decoder = new StreamDecoder(wire)
  for (const chunk of await chunksOf(faultyStream(body, faults))) decoder.push(chunk)
  return decoder.finish()
}

/** What a decoded turn says, to compare two decodings of one body. */
function essence(turn: AssembledTurn) {
  return {
    text: turn.text,
    thinking: turn.thinking,
    calls: turn.toolCalls.map((call) => [call.id, call.name, call.arguments, call.complete]),
    stopReason: turn.stopReason,
    errorKinds: turn.errorKinds,
    repairs: turn.repairs.map((repair) => [repair.kind, repair.callIndex]),
  }
}

/** A turn of every kind of content, ids given (so two decodings compare). */
const TURN: ScriptedTurn = {
  text: 'Reading café 😀 files.',
  calls: [
    { id: 'c1aaaaaaa', name: 'read', arguments: { path: 'a.txt' } },
    { id: 'c2aaaaaaa', name: 'list', arguments: { dir: '/tmp/x' } },
  ],
}

describe('split', () => {
  for (const wire of WIRES) {
    for (const format of FORMATS) {
      it(`${wire} as ${format}: split at every byte and at seeded places, each turn decodes as written`, async () => {
        const next = turnGenerator(7000 + WIRES.indexOf(wire) * 10 + FORMATS.indexOf(format), wire, format)
        for (let i = 0; i < 6; i++) {
          const turn = next()
          const body = scriptedBody(wire, turn, { format })
          for (const faults of [{ split: 'byte' }, { split: 'random', seed: i + 1 }] as Faults[]) {
            expectDecodedAsWritten(await decode(wire, body, faults), turn, wire, format, `${wire} ${format} ${JSON.stringify(faults)} turn ${i}: ${JSON.stringify(turn)}`)
          }
        }
      })
    }
  }

  it('splits at every byte, multi-byte characters too, and at the same places for the same seed', async () => {
    const body = scriptedBody('anthropic', TURN)
    const bytes = new TextEncoder().encode(body)
    const single = await chunksOf(faultyStream(body, { split: 'byte' }))
    expect(single.map((chunk) => chunk.length)).toEqual(Array.from(bytes, () => 1))
    const places = async (seed: number) => (await chunksOf(faultyStream(body, { split: 'random', seed }))).map((chunk) => chunk.length)
    expect(await places(42)).toEqual(await places(42))
    expect(await places(42)).not.toEqual(await places(43))
    expect((await places(42)).every((length) => length >= 1 && length <= 32)).toBe(true)
    expect((await places(42)).reduce((a, b) => a + b)).toBe(bytes.length)
    // By default, one chunk per event.
    const events = body.split('\n\n').filter(Boolean).map((event) => `${event}\n\n`)
    expect((await chunksOf(faultyStream(body))).map((chunk) => new TextDecoder().decode(chunk))).toEqual(events)
  })

  it('without faults gives the body back byte for byte, one chunk per event, on every wire and format', async () => {
    for (const wire of WIRES) {
      for (const format of FORMATS) {
        const body = scriptedBody(wire, TURN, { format })
        const chunks = await chunksOf(faultyStream(body))
        expect(new TextDecoder().decode(Buffer.concat(chunks)), `${wire} ${format}`).toBe(body)
        const events = format === 'whole' ? 1 : scriptedBody(wire, TURN, { format: 'ndjson' }).split('\n').filter(Boolean).length + (body.includes('[DONE]') ? 1 : 0)
        expect(chunks.length, `${wire} ${format}`).toBe(format === 'json-array' ? events + 1 : events)
      }
    }
  })

  it('takes what scriptedModel answers, and serves as a model answer in run()', async () => {
    const { runtime, ran } = runtimeWithRead()
    const scripted = scriptedModel('openai-responses', [{ calls: [{ name: 'read', arguments: { path: 'é.txt' } }] }, { text: 'Done.' }])
    const outcome = await runtime.run({ wire: 'openai-responses', model: (request) => faultyStream(scripted(request), { split: 'byte' }) })
    expect(outcome.error).toBeUndefined()
    expect(outcome.stopReason).toBe('stop')
    expect(ran).toEqual(['é.txt'])
    expect(outcome.steps.at(-1)!.text).toBe('Done.')
  })
})

describe('cut', () => {
  it('a body cut at any byte decodes to the truncation error or, past the end of the turn, to the whole turn: never a hang', async () => {
    for (const wire of WIRES) {
      const body = scriptedBody(wire, TURN)
      const whole = essence(await decode(wire, body))
      const length = new TextEncoder().encode(body).length
      const firstEvent = new TextEncoder().encode(body.split(/(?<=\n\n|\r\n\r\n)/)[0]).length
      let truncated = 0
      for (let cut = 0; cut < length; cut += 5) {
        const got = await decode(wire, body, { cutAtByte: cut, split: 'random', seed: cut })
        // The first half of a body never holds the end of its turn.
        if (cut < length / 2) expect(got.stopReason, `${wire} cut at ${cut}`).toBe('error')
        if (got.stopReason === 'error') {
          // Before the first whole event there may be nothing the decoder knows as the wire.
          const kinds = cut < firstEvent ? ['stream-truncated', 'not-the-wire'] : ['stream-truncated']
          expect(got.errorKinds.some((kind) => kinds.includes(kind)), `${wire} cut at ${cut}: ${got.errorKinds}`).toBe(true)
          // A call cut short is never complete: a complete one has all its arguments.
          got.toolCalls.forEach((call, i) => {
            if (call.complete) expect(call.arguments, `${wire} cut at ${cut}`).toBe(whole.calls[i]![2])
          })
          truncated++
        } else {
          // Cut after the turn's end (OpenAI's usage chunk, [DONE]): the turn stands; a trailing
          // event cut in two is reported unreadable.
          expect({ ...essence(got), errorKinds: [] }, `${wire} cut at ${cut}`).toEqual(whole)
          expect(got.errorKinds.every((kind) => kind === 'unreadable-event'), `${wire} cut at ${cut}`).toBe(true)
        }
      }
      expect(truncated, wire).toBeGreaterThan(0)
    }
  })

  it('a body cut after the k-th event: the events before it decoded, the turn truncated', async () => {
    const body = scriptedBody('anthropic', TURN)
    const got = await decode('anthropic', body, { cutAfterEvent: 9 })
    expect(got.text).toBe('Reading café 😀 files.')
    expect(got.stopReason).toBe('error')
    expect(got.errorKinds).toEqual(['stream-truncated'])
    expect(got.toolCalls.map((call) => [call.id, call.complete, call.error?.code])).toEqual([['c1aaaaaaa', false, 'INCOMPLETE_ARGUMENTS']])
    // Gemini's JSON array cut after its first element: no closing bracket.
    const array = scriptedBody('gemini', TURN, { format: 'json-array' })
    const chunks = await chunksOf(faultyStream(array, { cutAfterEvent: 1 }))
    const text = new TextDecoder().decode(Buffer.concat(chunks))
    expect(text.startsWith('[{')).toBe(true)
    expect(text.endsWith('}')).toBe(true)
    expect(JSON.parse(`${text}]`)).toHaveLength(1)
  })

  it('in run(): a cut that ends, fails or stalls the stream ends the run, with the error or as aborted', async () => {
    const answer = (faults: Faults) => () => faultyStream(scriptedBody('openai-chat', TURN), faults)
    const { runtime, ran } = runtimeWithRead()

    // Cut inside the text (the role chunk and two text chunks): no call has started.
    const ended = await runtime.run({ wire: 'openai-chat', model: answer({ cutAfterEvent: 3 }) })
    expect(ended.stopReason).toBe('error')
    expect(ended.error).toBe('the stream ended before its terminal event: the response is incomplete')
    expect(ended.steps.map((step) => step.text)).toEqual(['Reading café'])

    const failed = await runtime.run({ wire: 'openai-chat', model: answer({ cutAtByte: 500, cutAs: 'error' }) })
    expect(failed.stopReason).toBe('error')
    expect(failed.error).toContain('faultyStream: the connection was cut after 500 bytes')

    const controller = new AbortController()
    const stalled = runtime.run({
      wire: 'openai-chat',
      model: answer({ cutAfterEvent: 3, cutAs: 'stall' }),
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'turn_start') setTimeout(() => controller.abort(), 20)
      },
    })
    expect((await stalled).stopReason).toBe('aborted')
    expect(ran).toEqual([])
  })

  it('a cut past the body, or a bad fault, is a ToolwireError saying what the body holds', async () => {
    // Mistral's answer: the role chunk, four text chunks, the chunk of the calls, [DONE].
    const body = scriptedBody('mistral', TURN)
    expect(body.split('\n\n').filter(Boolean)).toHaveLength(7)
    await expect(chunksOf(faultyStream(body, { cutAfterEvent: 99 }))).rejects.toThrow('faultyStream: faults.cutAfterEvent is 99, but the body has 7 events as sent')
    await expect(chunksOf(faultyStream(body, { duplicate: [0, 7] }))).rejects.toThrow('faultyStream: faults.duplicate names event 7, but the body has 7 events (0 to 6)')
    expect(() => faultyStream(body, { duplicate: [1, -1] })).toThrow('faultyStream: faults.duplicate[1] must be a whole number of at least 0, got number -1')
    await expect(chunksOf(faultyStream(body, { cutAtByte: 1e6 }))).rejects.toThrow(/^faultyStream: faults\.cutAtByte is 1000000, but the body has \d+ bytes$/)
    expect(() => faultyStream(body, { split: 'bits' } as never)).toThrow(ToolwireError)
    expect(() => faultyStream(body, { split: 'bits' } as never)).toThrow("faultyStream: faults.split must be 'event', 'byte' or 'random', got string bits")
    expect(() => faultyStream(body, { cutAtByte: -1 })).toThrow('faultyStream: faults.cutAtByte must be a whole number of at least 0, got number -1')
    expect(() => faultyStream(body, { cutAfter: 3 } as never)).toThrow(/^faultyStream: faults has unknown key "cutAfter".*did you mean "cutAfterEvent"\?/)
    expect(() => faultyStream(42 as never)).toThrow('faultyStream: body must be text, bytes or a fetch Response, got number 42')
  })
})

describe('duplicated events, as the decoders document them', () => {
  /** The place of the first event of `body` (SSE; TURN's on `wire` by default) that contains `marker`. */
  const place = (wire: Wire, marker: string, body = scriptedBody(wire, TURN)) => {
    const found = body.split(wire === 'gemini' ? '\r\n\r\n' : '\n\n').findIndex((event) => event.includes(marker))
    expect(found, `${wire}: ${marker}`).toBeGreaterThanOrEqual(0)
    return found
  }

  it('repeated end and bookkeeping events change nothing', async () => {
    const repeated: [Wire, string[]][] = [
      ['openai-chat', ['"finish_reason":"tool_calls"', '"choices":[]', '[DONE]']],
      ['openai-responses', ['response.in_progress', 'response.output_item.done', 'response.function_call_arguments.done', 'response.completed']],
      ['anthropic', ['event: ping', 'content_block_stop', 'message_delta', 'message_stop']],
    ]
    for (const [wire, markers] of repeated) {
      const body = scriptedBody(wire, TURN)
      const whole = essence(await decode(wire, body))
      for (const marker of markers) {
        const got = essence(await decode(wire, body, { duplicate: [place(wire, marker)] }))
        // (Responses numbers its events: the repeat is found by its number, and said)
        const repairs = wire === 'openai-responses' ? [['repeated-event', undefined]] : whole.repairs
        expect(got, `${wire} ${marker}`).toEqual({ ...whole, repairs })
      }
    }
  })

  it('OpenAI Chat: a call opened twice is one call (name-repeated)', async () => {
    const body = scriptedBody('openai-chat', TURN)
    const got = await decode('openai-chat', body, { duplicate: [place('openai-chat', '"id":"c2aaaaaaa"')] })
    expect(essence(got).calls).toEqual(essence(await decode('openai-chat', body)).calls)
    expect(got.repairs).toEqual([{ kind: 'name-repeated', callIndex: 1 }])
  })

  it('Responses: a repeated event is found by its sequence_number and ignored (repeated-event)', async () => {
    const body = scriptedBody('openai-responses', TURN)
    for (const marker of ['response.function_call_arguments.delta', 'response.output_text.delta', 'response.output_item.added']) {
      const got = await decode('openai-responses', body, { duplicate: [place('openai-responses', marker)] })
      expect(essence(got), marker).toEqual({ ...essence(await decode('openai-responses', body)), repairs: [['repeated-event', undefined]] })
      expect(got.repairs[0].detail, marker).toMatch(new RegExp(`^sequence_number \\d+ \\(${marker.replaceAll('.', '\\.')}\\)$`))
    }
  })

  it('Responses without sequence numbers: a repeated argument delta is corrected by the arguments the item ends with (arguments-corrected)', async () => {
    const body = scriptedBody('openai-responses', TURN).replace(/"sequence_number":\d+,?/g, '')
    const got = await decode('openai-responses', body, { duplicate: [place('openai-responses', 'response.function_call_arguments.delta', body)] })
    expect(got.toolCalls.map((call) => call.arguments)).toEqual(['{"path":"a.txt"}', '{"dir":"/tmp/x"}'])
    expect(got.repairs).toEqual([{ kind: 'arguments-corrected', callIndex: 0 }])
  })

  it('Anthropic: a repeated message_start is read once (duplicate-message-start)', async () => {
    const got = await decode('anthropic', scriptedBody('anthropic', TURN), { duplicate: [0] })
    expect(got.toolCalls.map((call) => call.arguments)).toEqual(['{"path":"a.txt"}', '{"dir":"/tmp/x"}'])
    expect(got.repairs.map((repair) => repair.kind)).toEqual(['duplicate-message-start'])
  })

  it('Anthropic and Responses: a call whose start is repeated is one call (repeated-start), never a second one run with arguments it never got', async () => {
    const anthropic = scriptedBody('anthropic', TURN)
    const got = await decode('anthropic', anthropic, { duplicate: [place('anthropic', '"id":"c2aaaaaaa"')] })
    expect(essence(got).calls).toEqual(essence(await decode('anthropic', anthropic)).calls)
    expect(got.repairs).toEqual([{ kind: 'repeated-start', callIndex: 1, detail: 'content_block_start at index 2' }])
    const responses = scriptedBody('openai-responses', TURN).replace(/"sequence_number":\d+,?/g, '')
    const again = await decode('openai-responses', responses, { duplicate: [place('openai-responses', '"call_id":"c2aaaaaaa"', responses)] })
    expect(essence(again).calls).toEqual(essence(await decode('openai-responses', responses)).calls)
    expect(again.repairs).toEqual([{ kind: 'repeated-start', callIndex: 1 }])
  })

  it('Gemini and Mistral: a repeated last chunk is reported and ignored (fragment-after-finish), its calls not run twice', async () => {
    for (const wire of ['gemini', 'mistral'] as const) {
      const body = scriptedBody(wire, TURN)
      const got = await decode(wire, body, { duplicate: [place(wire, 'c2aaaaaaa')] })
      expect(got.toolCalls.map((call) => call.id), wire).toEqual(['c1aaaaaaa', 'c2aaaaaaa'])
      expect(got.errorKinds, wire).toEqual(['fragment-after-finish'])
    }
  })

  it('a repeated text delta repeats its text where nothing in the stream tells it from new text', async () => {
    for (const wire of ['openai-chat', 'anthropic', 'mistral'] as const) {
      const body = scriptedBody(wire, { text: 'abcdefghij' })
      const got = await decode(wire, body, { duplicate: [place(wire, '"abcdef"', body)] })
      expect(got.text, wire).toBe('abcdefabcdefghij')
    }
  })
})

describe('interleaved calls, removed ids and indexes', () => {
  it('parallel calls interleaved where the wire keys them decode as sent in order', async () => {
    for (const wire of ['openai-chat', 'openai-responses', 'anthropic'] as const) {
      const body = scriptedBody(wire, TURN)
      const mixed = new TextDecoder().decode(Buffer.concat(await chunksOf(faultyStream(body, { interleaveCalls: true }))))
      expect(mixed, wire).not.toBe(body)
      // The second call starts before the first one's arguments are all sent.
      const secondStart = mixed.indexOf('c2aaaaaaa')
      expect(mixed.lastIndexOf('a.txt', secondStart), wire).toBeLessThan(0)
      expect(mixed.length, wire).toBe(body.length)
      expect(essence(await decode(wire, body, { interleaveCalls: true })), wire).toEqual(essence(await decode(wire, body)))
    }
  })

  it('Gemini and Mistral send each call whole: nothing is moved', async () => {
    for (const wire of ['gemini', 'mistral'] as const) {
      const body = scriptedBody(wire, TURN)
      expect(new TextDecoder().decode(Buffer.concat(await chunksOf(faultyStream(body, { interleaveCalls: true }))))).toBe(body)
    }
  })

  it('removed ids are made by the decoder (missing-id), the calls otherwise the same', async () => {
    for (const wire of WIRES) {
      const got = await decode(wire, scriptedBody(wire, TURN), { removeIds: true })
      expect(got.toolCalls.map((call) => [call.name, call.arguments, call.complete]), wire).toEqual([
        ['read', '{"path":"a.txt"}', true],
        ['list', '{"dir":"/tmp/x"}', true],
      ])
      expect(got.toolCalls.every((call) => /^call_[0-9a-f]{24}$/.test(call.id)), wire).toBe(true)
      expect(got.repairs.filter((repair) => repair.kind === 'missing-id'), wire).toEqual([
        { kind: 'missing-id', callIndex: 0 },
        { kind: 'missing-id', callIndex: 1 },
      ])
    }
  })

  it('removed indexes: OpenAI Chat places fragments by position, Anthropic block events in the one open block (missing-index), Responses by item id', async () => {
    for (const wire of ['openai-chat', 'anthropic'] as const) {
      const got = await decode(wire, scriptedBody(wire, TURN), { removeIndexes: true })
      const { repairs, ...rest } = essence(got)
      const { repairs: _, ...clean } = essence(await decode(wire, scriptedBody(wire, TURN)))
      expect(rest, wire).toEqual(clean)
      expect(repairs.map(([kind]) => kind), wire).toContain('missing-index')
    }
    const responses = await decode('openai-responses', scriptedBody('openai-responses', TURN), { removeIndexes: true })
    expect(essence(responses)).toEqual(essence(await decode('openai-responses', scriptedBody('openai-responses', TURN))))
  })
})
