// The repairs a decoder reports at the JavaScript boundary: typed by the engine's RepairKind, in
// the assembled turn (`repairs`) and as `repair` events, none for a clean stream. Which repair
// each wire makes where is tested next to the decoders (crates/toolwire-core/src/wire/repair_tests).
import { describe, expect, it } from 'vitest'

import { RepairKind, StreamDecoder, type DecoderRepair, type RepairKindName, type StreamEvent } from '../dist/index.js'

const chunk = (toolCalls: object[] | null, finish: string | null = null) =>
  JSON.stringify({ id: 'r', choices: [{ index: 0, delta: toolCalls ? { tool_calls: toolCalls } : {}, finish_reason: finish }] })

const sse = (...chunks: string[]) => chunks.map((c) => `data: ${c}\n\n`).join('')

/** The repairs of a `repair` event list, typed as the turn's. */
function repairEvents(events: StreamEvent[]): DecoderRepair[] {
  return events.flatMap((e) => (e.type === 'repair' ? [{ kind: e.kind, ...(e.callIndex === undefined ? {} : { callIndex: e.callIndex }), ...(e.detail === undefined ? {} : { detail: e.detail }) }] : []))
}

describe('decoder repairs', () => {
  it("a quirky stream's turn lists each repair with its typed kind and call, and so do its events", () => {
    // Mistral (no index), Qwen (empty-string id), MiniMax (the name in every fragment), a name
    // split in two, then `finish_reason: "stop"` for a turn of calls.
    const decoder = new StreamDecoder('openai-chat')
    const events = decoder.push(
      sse(
        chunk([{ id: 'call_1', function: { name: 'read', arguments: '{"path":' } }]),
        chunk([{ id: '', function: { name: 'read', arguments: '"a"}' } }]),
        chunk([{ index: 1, id: 'call_2', function: { name: 'get_wea', arguments: '' } }]),
        chunk([{ index: 1, function: { name: 'ther', arguments: '{}' } }]),
        chunk(null, 'stop'),
        '[DONE]',
      ),
    )
    const turn = decoder.finish()
    expect(turn.toolCalls.map((c) => [c.index, c.name, c.arguments, c.complete])).toEqual([
      [0, 'read', '{"path":"a"}', true],
      [1, 'get_weather', '{}', true],
    ])
    const want: DecoderRepair[] = [
      { kind: RepairKind.MISSING_INDEX, callIndex: 0 },
      { kind: RepairKind.EMPTY_STRING_FIELDS, callIndex: 0 },
      { kind: RepairKind.NAME_REPEATED, callIndex: 0 },
      { kind: RepairKind.NAME_SPLIT, callIndex: 1, detail: '"get_wea" + "ther"' },
      { kind: RepairKind.FINISH_STOP_WITH_CALLS, detail: 'finish_reason "stop"' },
    ]
    expect(turn.repairs).toEqual(want)
    expect(repairEvents([...events, ...turn.events])).toEqual(want)
    const kinds: RepairKindName[] = turn.repairs.map((r) => r.kind)
    expect(kinds.every((k) => Object.values(RepairKind).includes(k))).toBe(true)
    expect(turn.errors).toEqual([])
  })

  it('a repair concerning one call is reported once, however many fragments need it', () => {
    const decoder = new StreamDecoder('openai-chat')
    const parts = ['{', '"path"', ':', '"a"', '}']
    decoder.push(sse(...parts.map((p, i) => chunk([{ index: 0, ...(i === 0 ? { id: 'call_1' } : {}), function: { name: 'read', arguments: p } }])), chunk(null, 'tool_calls')))
    expect(decoder.finish().repairs).toEqual([{ kind: 'name-repeated', callIndex: 0 }])
  })

  it('repairs of every wire come typed: Gemini without ids, an Anthropic block never closed', () => {
    const gemini = new StreamDecoder('gemini')
    gemini.push(`data: ${JSON.stringify({ candidates: [{ content: { parts: [{ functionCall: { name: 'read', args: {} } }] }, finishReason: 'STOP' }] })}\n\n`)
    expect(gemini.finish().repairs).toEqual([{ kind: RepairKind.MISSING_ID, callIndex: 0 }])

    const anthropic = new StreamDecoder('anthropic')
    for (const event of [
      { type: 'message_start', message: { id: 'm', content: [] } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"a"}' } },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' } },
      { type: 'message_stop' },
    ]) {
      anthropic.pushEvent(event)
    }
    const turn = anthropic.finish()
    expect(turn.repairs).toEqual([{ kind: RepairKind.BLOCK_NOT_CLOSED, callIndex: 0 }])
    expect(turn.toolCalls[0]).toMatchObject({ id: 'toolu_1', complete: true })
  })

  it('a clean stream reports no repair', () => {
    const decoder = new StreamDecoder('openai-chat')
    const events = decoder.push(sse(chunk([{ index: 0, id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }]), chunk(null, 'tool_calls'), '[DONE]'))
    const turn = decoder.finish()
    expect(turn.repairs).toEqual([])
    expect(events.some((e) => e.type === 'repair')).toBe(false)
  })

  it('RepairKind is the frozen list of kebab-case names the engine declares', () => {
    expect(Object.isFrozen(RepairKind)).toBe(true)
    for (const [key, name] of Object.entries(RepairKind)) {
      expect(name).toMatch(/^[a-z]+(-[a-z]+)*$/)
      expect(key).toBe(name.toUpperCase().replace(/-/g, '_'))
    }
  })
})
