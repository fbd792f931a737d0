// Encoding calls and results for each wire, tool-call ids and history repair, at the boundary;
// and the round trip from every recorded stream: decode, dispatch, encode, and a history that
// needs no repair.
import { describe, expect, it } from 'vitest'

import {
  encodeResults,
  encodeToolCalls,
  normalizeToolCallId,
  repairHistory,
  StreamDecoder,
  ToolRuntime,
  ToolwireError,
  type ToolResult,
  type Wire,
} from '../dist/index.js'
import { describeWithFixtures, loadFixtures } from './fixtures.js'
import { scriptedModel } from './scripted.js'
import { untyped } from './helpers.js'

const PNG = 'iVBORw0KGgo='

function result(callId: string, tool: string, extra: Partial<ToolResult> = {}): ToolResult {
  return {
    callId,
    tool,
    args: {},
    attempt: 1,
    status: 'ok',
    ok: true,
    content: [{ type: 'text', text: `${tool} done` }],
    startedAt: 1,
    endedAt: 2,
    durationMs: 1,
    ...extra,
  }
}

const failed = result('call_2', 'write', {
  status: 'error',
  ok: false,
  content: [{ type: 'text', text: 'disk full' }],
  error: { code: 'EXECUTION_ERROR', message: 'disk full' },
})
const withImage = result('call_3', 'shot', {
  content: [
    { type: 'text', text: 'a screenshot' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
  ],
})
const batch = [result('call_1', 'read'), failed, withImage]

describe('encodeResults', () => {
  it('Chat Completions: one tool message per result, then the images in one user message', () => {
    const messages = encodeResults(batch, 'openai-chat') as any[]
    expect(messages.map((m) => m.role)).toEqual(['tool', 'tool', 'tool', 'user'])
    expect(messages[0]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'read done' })
    expect(messages[1]).toEqual({ role: 'tool', tool_call_id: 'call_2', content: 'Error: disk full' })
    expect(messages[3].content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } })
  })

  it('Responses: function_call_output items, images as a content list', () => {
    const items = encodeResults(batch, 'openai-responses') as any[]
    expect(items[0]).toEqual({ type: 'function_call_output', call_id: 'call_1', output: 'read done' })
    expect(items[2].output).toContainEqual(expect.objectContaining({ type: 'input_image', image_url: `data:image/png;base64,${PNG}` }))
  })

  it('Anthropic: every result in one user message, errors flagged, images as image blocks', () => {
    const messages = encodeResults(batch, 'anthropic') as any[]
    expect(messages).toHaveLength(1)
    expect(messages[0].role).toBe('user')
    const blocks = messages[0].content
    expect(blocks.map((b: any) => [b.type, b.tool_use_id, b.is_error])).toEqual([
      ['tool_result', 'call_1', false],
      ['tool_result', 'call_2', true],
      ['tool_result', 'call_3', false],
    ])
    expect(blocks[2].content).toContainEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } })
  })

  it('Gemini: every functionResponse in one user turn, output or error', () => {
    const [turn] = encodeResults(batch, 'gemini') as any[]
    expect(turn.role).toBe('user')
    expect(turn.parts[0]).toEqual({ functionResponse: { name: 'read', id: 'call_1', response: { output: 'read done' } } })
    expect(turn.parts[1]).toEqual({ functionResponse: { name: 'write', id: 'call_2', response: { error: 'disk full' } } })
    expect(turn.parts.at(-1)).toEqual({ inlineData: { mimeType: 'image/png', data: PNG } })
  })

  it('Mistral: ids follow its rule, the same way in calls and results', () => {
    const [assistant] = encodeToolCalls([{ id: 'call_abcdefghijkl', name: 'read', arguments: '{}' }], 'mistral') as any[]
    const [tool] = encodeResults([result('call_abcdefghijkl', 'read')], 'mistral') as any[]
    const id = assistant.tool_calls[0].id
    expect(id).toMatch(/^[a-zA-Z0-9]{9}$/)
    expect(tool.tool_call_id).toBe(id)
    expect(id).toBe(normalizeToolCallId('call_abcdefghijkl', 'strict9'))
  })

  it('accepts pi-agent-core tool result messages too, and refuses malformed input naming it', () => {
    const message = { role: 'toolResult', toolCallId: 'c9', toolName: 'read', content: [{ type: 'text', text: 'x' }], isError: true, timestamp: 0 }
    const [encoded] = encodeResults([message as never], 'anthropic') as any[]
    expect(encoded.content[0]).toMatchObject({ tool_use_id: 'c9', is_error: true })
    expect(() => encodeResults([{ content: 3 } as never], 'anthropic')).toThrow(/\[0\]|index 0|results\[0\]/)
    expect(() => encodeResults(batch, 'cohere' as Wire)).toThrow(ToolwireError)
  })
})

/** What the model reads of the one result `encoded` holds: its text, and whether it reads as a failure. */
function modelView(wire: Wire, encoded: any[]): { text: string; failed: boolean } {
  switch (wire) {
    case 'anthropic': {
      const block = encoded[0].content[0]
      return { text: block.content.map((b: any) => b.text ?? '').join('\n'), failed: block.is_error === true }
    }
    case 'gemini': {
      const response = encoded[0].parts[0].functionResponse.response
      return { text: response.error ?? response.output, failed: 'error' in response }
    }
    case 'openai-responses': {
      const output = encoded[0].output
      const text = typeof output === 'string' ? output : output.map((p: any) => p.text ?? '').join('\n')
      return { text, failed: text.startsWith('Error: ') }
    }
    default:
      return { text: encoded[0].content, failed: encoded[0].content.startsWith('Error: ') }
  }
}

describe('a failed result reads as a failure on every wire (r9 user review, 17-error-text)', () => {
  const WIRES: Wire[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mistral']
  const hang = () => new Promise(() => {})
  let deep: unknown = 1
  for (let i = 0; i < 70; i++) deep = { d: deep }

  /** One call ending with each error code, through a real dispatch. */
  async function failures(): Promise<ToolResult[]> {
    const runtime = new ToolRuntime({ policy: { deny: ['forbidden'] } })
    runtime.register({ name: 'calc', parameters: { type: 'object' }, execute: async () => { throw new Error('42') } })
    runtime.register({ name: 'already', parameters: { type: 'object' }, execute: async () => { throw new Error('Error: disk full') } })
    runtime.register({ name: 'typed', parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, execute: async () => 'never' })
    runtime.register({ name: 'slow', parameters: { type: 'object' }, timeoutMs: 20, execute: untyped(hang) })
    runtime.register({ name: 'forbidden', parameters: { type: 'object' }, execute: async () => 'never' })
    runtime.register({ name: 'guarded', parameters: { type: 'object' }, approval: { ask: 'always' }, execute: async () => 'never' })
    runtime.register({ name: 'deep', parameters: { type: 'object' }, execute: untyped(async () => deep) })
    runtime.register({ name: 'hooked', parameters: { type: 'object' }, execute: async () => 'never' })
    const batch = [
      { id: 'c1', name: 'calc', arguments: '{}' },
      { id: 'c2', name: 'already', arguments: '{}' },
      { id: 'c3', name: 'typed', arguments: '{"n":"x"}' },
      { id: 'c4', name: 'typed', arguments: '{"n":' },
      { id: 'c5', name: 'nope', arguments: '{}' },
      { id: 'c6', name: 'slow', arguments: '{}' },
      { id: 'c7', name: 'forbidden', arguments: '{}' },
      { id: 'c8', name: 'guarded', arguments: '{}' },
      { id: 'c9', name: 'deep', arguments: '{}' },
      { id: 'c10', name: 'hooked', arguments: '{}' },
    ]
    const results = await runtime.dispatch(batch, { beforeToolCall: ({ toolCall }: any) => (toolCall.name === 'hooked' ? { block: true, reason: 'not today' } : undefined) })
    const controller = new AbortController()
    controller.abort()
    results.push(...(await runtime.dispatch([{ id: 'c11', name: 'slow', arguments: '{}' }], { signal: controller.signal })))
    return results
  }

  it('every code on every wire: the flag where the wire has one, else the text after Error: ', async () => {
    const results = await failures()
    expect(results.map((r) => r.error?.code)).toEqual([
      'EXECUTION_ERROR', 'EXECUTION_ERROR', 'VALIDATION_ERROR', 'INVALID_JSON', 'NOT_FOUND', 'TIMEOUT',
      'POLICY_DENIED', 'APPROVAL_REQUIRED', 'LIMIT_EXCEEDED', 'BLOCKED', 'CANCELLED',
    ])
    for (const wire of WIRES) {
      for (const r of results) {
        const view = modelView(wire, encodeResults([r], wire) as any[])
        expect(view.failed, `${wire} ${r.error?.code} ${view.text}`).toBe(true)
        // The text is the result's own, marked once where the wire has no flag.
        const own = r.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
        const flagged = wire === 'anthropic' || wire === 'gemini'
        expect(view.text, `${wire} ${r.error?.code}`).toBe(flagged || own.startsWith('Error:') ? own : `Error: ${own}`)
      }
      // A success is never marked, even one whose value is the same text.
      const ok = modelView(wire, encodeResults([result('c0', 'calc', { content: [{ type: 'text', text: '42' }] })], wire) as any[])
      expect(ok, wire).toEqual({ text: '42', failed: false })
    }
  })

  it('run() histories carry the same mark on every wire', async () => {
    for (const wire of WIRES) {
      const runtime = new ToolRuntime()
      runtime.register({ name: 'calc', parameters: { type: 'object' }, execute: async () => { throw new Error('42') } })
      const { model, requests } = scriptedModel(wire, [{ calls: [{ id: 'c1aaaaaaa', name: 'calc', args: '{}' }] }, { text: 'done' }])
      const outcome = await runtime.run({ wire, model, messages: [wire === 'gemini' ? { role: 'user', parts: [{ text: 'go' }] } : { role: 'user', content: 'go' }] })
      const history: any[] = requests[1].messages ?? requests[1].input ?? requests[1].contents
      const results = history.slice(-1)
      expect(modelView(wire, results), wire).toEqual({ text: wire === 'anthropic' || wire === 'gemini' ? '42' : 'Error: 42', failed: true })
      expect(outcome.steps[0]!.results[0]!.error?.code).toBe('EXECUTION_ERROR')
    }
  })
})

describe('encodeToolCalls', () => {
  it('Anthropic: thinking blocks first and unchanged, then text, then tool_use with parsed input', () => {
    const [message] = encodeToolCalls(
      {
        text: 'Let me look.',
        thinking: [{ text: 'hmm', signature: 'sig' }, { text: '', redacted: 'opaque' }],
        toolCalls: [
          { id: 'toolu_1', name: 'read', arguments: '{"path":"a"}' },
          { id: 'toolu_2', name: 'read', arguments: '{"path":' },
        ],
      },
      'anthropic',
    ) as any[]
    expect(message).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
        { type: 'tool_use', id: 'toolu_2', name: 'read', input: {} },
      ],
    })
  })

  it('Gemini: the thought signature stays on the part that had it', () => {
    const [content] = encodeToolCalls(
      [
        { id: 'a', name: 'f', arguments: '{}', providerMetadata: { thoughtSignature: 'sig' } },
        { id: 'b', name: 'g', arguments: { x: 1 } },
      ],
      'gemini',
    ) as any[]
    expect(content.role).toBe('model')
    expect(content.parts).toEqual([
      { functionCall: { name: 'f', args: {}, id: 'a' }, thoughtSignature: 'sig' },
      { functionCall: { name: 'g', args: { x: 1 }, id: 'b' } },
    ])
  })

  it('Chat Completions and Responses keep the arguments text and the item id', () => {
    const [chat] = encodeToolCalls([{ id: 'call_1', name: 'f', arguments: '{"a":1}' }], 'openai-chat') as any[]
    expect(chat).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
    })
    const items = encodeToolCalls([{ id: 'call_1', name: 'f', arguments: '{"a":1}', providerMetadata: { itemId: 'fc_1' } }], 'openai-responses')
    expect(items).toEqual([{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{"a":1}' }])
  })

  it('refuses what is not calls, naming it', () => {
    expect(() => encodeToolCalls('x' as never, 'anthropic')).toThrow(TypeError)
    expect(() => encodeToolCalls([{ id: 1 } as never], 'anthropic')).toThrow(/calls\[0\]\.id/)
  })
})

describe('normalizeToolCallId and repairHistory', () => {
  it('keeps valid ids and makes others valid, keeping distinct ids distinct', () => {
    expect(normalizeToolCallId('toolu_01A', 'anthropic')).toBe('toolu_01A')
    const a = normalizeToolCallId('call|a-b', 'strict')
    const b = normalizeToolCallId('call|a_b', 'strict')
    expect(a).toMatch(/^[a-zA-Z0-9]{1,40}$/)
    expect(b).toMatch(/^[a-zA-Z0-9]{1,40}$/)
    expect(a).not.toBe(b)
    expect(normalizeToolCallId('call_1', 'strict9')).toMatch(/^[a-zA-Z0-9]{9}$/)
    expect(() => normalizeToolCallId('x', 'nope' as never)).toThrow(/nope/)
    expect(() => normalizeToolCallId('x', 'openai' as never)).toThrow(/^unknown id target "openai": .*; did you mean "openai-chat"\?$/)
    // Responses fc_ item ids never end in `_` (the API refuses them).
    for (const id of ['fc_abc_', 'fc__', 'fc_a.b_']) {
      const out = normalizeToolCallId(id, 'openai-responses')
      expect(out).toMatch(/^fc_[a-zA-Z0-9_-]*[a-zA-Z0-9-]$/)
      expect(normalizeToolCallId(out, 'openai-responses')).toBe(out)
    }
  })

  it('rewrites ids consistently, synthesizes a missing result and removes an orphan (Chat)', () => {
    const messages = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'dup', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'dup', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'bad id!', type: 'function', function: { name: 'g', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'dup', content: 'first' },
      { role: 'tool', tool_call_id: 'dup', content: 'second' },
      { role: 'tool', tool_call_id: 'ghost', content: 'orphan' },
    ]
    const { messages: repaired, report } = repairHistory(messages, 'openai-chat') as { messages: any[]; report: any }
    const ids = repaired[1].tool_calls.map((c: any) => c.id)
    expect(new Set(ids).size).toBe(3)
    const tools = repaired.filter((m) => m.role === 'tool')
    expect(tools.map((m) => [m.tool_call_id, m.content])).toEqual([
      [ids[0], 'first'],
      [ids[1], 'second'],
      [ids[2], 'Error: No result provided'],
    ])
    expect(report.synthesized).toEqual([ids[2]])
    expect(report.removed).toEqual(['ghost'])
    expect(report.renamed.map((r: any) => r.from)).toEqual(expect.arrayContaining(['bad id!']))
    const again = repairHistory(repaired, 'openai-chat')
    expect(again.messages).toEqual(repaired)
    expect(again.report).toEqual({ renamed: [], synthesized: [], removed: [] })
    expect(messages[2]).toEqual({ role: 'tool', tool_call_id: 'dup', content: 'first' })
  })

  it('refuses a malformed history with a typed error', () => {
    expect(() => repairHistory('x' as never, 'anthropic')).toThrow(TypeError)
    expect(() => repairHistory([{ role: 'assistant', content: [{ type: 'tool_use', id: 5 }] }], 'anthropic')).toThrow(ToolwireError)
  })
})

describeWithFixtures('the round trip from every recorded stream', () => {
  const responses = loadFixtures().filter((r) => r.toolCalls.some((c) => c.complete))
  it('has recorded tool calls to work on', () => expect(responses.length).toBeGreaterThan(20))
  for (const recorded of responses) {
    it(`${recorded.file} #${recorded.part}: decode, dispatch, encode; the history needs no repair`, async () => {
      const decoder = new StreamDecoder(recorded.wire)
      decoder.push(recorded.body)
      const turn = decoder.finish()
      const runtime = new ToolRuntime()
      for (const name of new Set(turn.toolCalls.map((c) => c.name))) {
        if (/^[a-zA-Z0-9_-]{1,64}$/.test(name)) runtime.register({ name, execute: (id: string) => `ran ${id}` })
      }
      const results = await runtime.dispatch(turn.toolCalls)
      const history = [
        ...encodeToolCalls(turn, recorded.wire),
        ...encodeResults(results, recorded.wire),
      ]
      const { messages, report } = repairHistory(history, recorded.wire)
      expect(report.synthesized).toEqual([])
      expect(report.removed).toEqual([])
      // Only ids the wire's rule refuses are rewritten, and the result is a fixed point.
      for (const { from } of report.renamed) expect(normalizeToolCallId(from, recorded.wire)).not.toBe(from)
      if (report.renamed.length === 0) expect(messages).toEqual(history)
      expect(repairHistory(messages, recorded.wire).report).toEqual({ renamed: [], synthesized: [], removed: [] })
    })
  }
})
