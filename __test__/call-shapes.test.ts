// Calls handed to dispatch as a provider's SDK gives them (r10 user review #4, 32-input-dropped):
// `msg.content.filter((b) => b.type === 'tool_use')` type-checked and ran each tool with `{}`,
// status ok, its `input` dropped; Gemini's and LangChain's `args` the same. Every shape a provider
// hands over is read as that provider means it, and arguments under a key dispatch does not read
// are a TypeError naming the key: never a call run with `{}`.
import type Anthropic from '@anthropic-ai/sdk'
import type { ToolCall as LangChainToolCall } from '@langchain/core/messages/tool'
import type OpenAI from 'openai'
import { describe, expect, it } from 'vitest'

import { ToolRuntime, type DispatchCall, type ToolResult } from '../dist/index.js'

const textOf = (result: ToolResult) => result.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n')

function searchRuntime() {
  const runtime = new ToolRuntime()
  const seen: unknown[] = []
  runtime.register({
    name: 'search',
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    execute: async (_id: string, args: unknown) => (seen.push(args), 'found'),
  })
  return { runtime, seen }
}

/** Each provider's call shape, the id its result must carry, and where it was seen. */
const shapes: [label: string, call: DispatchCall, id: string][] = [
  // @anthropic-ai/sdk Message.content: ToolUseBlock
  ['Anthropic tool_use block', { type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'x' } }, 'toolu_1'],
  // @google/genai FunctionCall (parts[i].functionCall), with the id Gemini 2.5+ may send
  ['Gemini FunctionCall', { id: 'g1', name: 'search', args: { q: 'x' } }, 'g1'],
  // a Gemini part as it sits in candidates[0].content.parts
  ['Gemini part', { functionCall: { id: 'g2', name: 'search', args: { q: 'x' } }, thoughtSignature: 'sig' }, 'g2'],
  // the same part given an id of its own beside the functionCall
  ['Gemini part with an id beside it', { id: 'g3', functionCall: { name: 'search', args: { q: 'x' } } }, 'g3'],
  // @langchain/core AIMessage.tool_calls: ToolCall
  ['LangChain tool call', { id: 'lc1', name: 'search', args: { q: 'x' }, type: 'tool_call' }, 'lc1'],
  // openai ChatCompletionMessageFunctionToolCall (message.tool_calls)
  ['OpenAI Chat tool call', { id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }, 'call_1'],
  // openai ResponseFunctionToolCall (response.output): its output names call_id, not the fc_ item id
  ['OpenAI Responses item', { type: 'function_call', id: 'fc_1', call_id: 'call_9', name: 'search', arguments: '{"q":"x"}' }, 'call_9'],
  ['toolwire call, text', { id: 't1', name: 'search', arguments: '{"q":"x"}' }, 't1'],
  ['toolwire call, object', { id: 't2', name: 'search', arguments: { q: 'x' } }, 't2'],
]

describe('provider call shapes', () => {
  it('each runs with its own arguments and keeps the id its result must name', async () => {
    const { runtime, seen } = searchRuntime()
    const hooked: unknown[] = []
    const results = await runtime.dispatch(
      shapes.map(([, call]) => call),
      { beforeToolCall: ({ toolCall }) => void hooked.push(toolCall.arguments) },
    )
    results.forEach((result, i) => {
      const [label, , id] = shapes[i]!
      expect(result.status, `${label}: ${textOf(result)}`).toBe('ok')
      expect(result.callId, label).toBe(id)
      expect(result.tool, label).toBe('search')
    })
    expect(seen).toEqual(shapes.map(() => ({ q: 'x' })))
    // hooks see the call with its arguments as `arguments`, whatever shape it came in
    expect(hooked.map((a) => (typeof a === 'string' ? JSON.parse(a) : a))).toEqual(shapes.map(() => ({ q: 'x' })))
  })

  it("the SDKs' own call types are what dispatch's declaration takes", async () => {
    const { runtime, seen } = searchRuntime()
    const anthropic: Anthropic.ToolUseBlock[] = [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'x' }, caller: { type: 'direct' } }]
    const chat: OpenAI.Chat.ChatCompletionMessageFunctionToolCall[] = [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }]
    const responses: OpenAI.Responses.ResponseFunctionToolCall[] = [{ type: 'function_call', id: 'fc_1', call_id: 'call_2', name: 'search', arguments: '{"q":"x"}' }]
    // (LangChain's ToolCall has an optional id, which dispatch needs: one with its id)
    const langchain = [{ id: 'lc_1', name: 'search', args: { q: 'x' }, type: 'tool_call' }] satisfies LangChainToolCall[]
    const results = [
      ...(await runtime.dispatch(anthropic)),
      ...(await runtime.dispatch(chat)),
      ...(await runtime.dispatch(responses)),
      ...(await runtime.dispatch(langchain)),
    ]
    expect(results.map((r) => [r.callId, r.status])).toEqual([['toolu_1', 'ok'], ['call_1', 'ok'], ['call_2', 'ok'], ['lc_1', 'ok']])
    expect(seen).toHaveLength(4)
  })

  it('a call with no arguments at all still runs with {}', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'now', parameters: { type: 'object', properties: {} }, execute: () => 'noon' })
    const results = await runtime.dispatch([
      { id: 'a', name: 'now' },
      { id: 'b', name: 'now', type: 'tool_call' },
      { id: 'c', name: 'now', arguments: '' },
    ])
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok'])
  })
})

describe('arguments dispatch would not read are refused, naming the key', () => {
  const refused: [label: string, call: object, message: RegExp][] = [
    ['params', { id: 'a', name: 'search', params: { q: 'x' } }, /calls\[0\] has no `arguments` but holds "params", which dispatch does not read: pass the call's arguments as `arguments`/],
    ['parameters', { id: 'a', name: 'search', parameters: { q: 'x' } }, /holds "parameters"/],
    ['a typo', { id: 'a', name: 'search', argument: '{"q":"x"}' }, /holds "argument"/],
    ['a long key, bounded', { id: 'a', name: 'search', ['k'.repeat(10_000)]: 1 }, /holds "k{40}…"/],
    ['arguments and input', { id: 'a', name: 'search', arguments: '{}', input: { q: 'x' } }, /holds arguments under both `arguments` and `input`: pass them once/],
    ['input and args', { id: 'a', name: 'search', input: {}, args: { q: 'x' } }, /both `input` and `args`/],
    ['a Gemini part without id', { functionCall: { name: 'search', args: { q: 'x' } } }, /calls\[0\]\.functionCall\.id must be a string, got undefined: .*StreamDecoder\('gemini'\)/],
    ['OpenAI custom tool call', { id: 'c', type: 'custom', custom: { name: 'search', input: 'x' } }, /holds "custom"/],
    ['OpenAI call without a name', { id: 'c', type: 'function', function: { arguments: '{}' } }, /calls\[0\]\.function\.name must be a string/],
    // Attack review r10 #4: inside the nested shapes, and beside them, nothing is dropped either.
    ['function with args', { id: 'c', function: { name: 'search', args: { q: 'x' } } }, /calls\[0\]\.function holds "args", which this shape does not have: its arguments are `function\.arguments`/],
    ['function with input', { id: 'c', function: { name: 'search', input: { q: 'x' } } }, /function holds "input"/],
    ['functionCall with arguments', { id: 'c', functionCall: { name: 'search', arguments: { q: 'x' } } }, /functionCall holds "arguments", which this shape does not have: its arguments are `functionCall\.args`/],
    ['functionCall beside params', { id: 'c', functionCall: { name: 'search' }, params: { q: 'x' } }, /holds "params"/],
    ['function beside flat arguments', { id: 'c', function: { name: 'search', arguments: '{"q":"a"}' }, arguments: '{"q":"b"}' }, /holds `function` and also `arguments`: give the call once/],
    ['function beside flat input', { id: 'c', function: { name: 'search', arguments: '{}' }, input: { q: 'b' } }, /holds `function` and also `input`/],
    ['functionCall beside flat args', { id: 'c', functionCall: { name: 'search', args: { q: 'a' } }, args: { q: 'b' } }, /holds `functionCall` and also `args`/],
    ['function and functionCall', { id: 'c', function: { name: 'search', arguments: '{}' }, functionCall: { name: 'search', args: {} } }, /holds `function` and also `functionCall`/],
    ['a flat call holding function', { id: 'c', name: 'search', arguments: '{"q":"a"}', function: { arguments: '{"q":"b"}' } }, /holds `function` and also `name`/],
    ['a flat call holding functionCall', { id: 'c', name: 'search', arguments: '{"q":"a"}', functionCall: { args: { q: 'b' } } }, /holds `functionCall` and also `name`/],
    ['function that is no object', { id: 'c', function: 'search' }, /calls\[0\]\.function must be an object, got/],
  ]

  for (const [label, call, message] of refused) {
    it(label, async () => {
      const { runtime, seen } = searchRuntime()
      const error = await runtime.dispatch([call as DispatchCall]).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toMatch(message)
      expect((error as Error).message.length).toBeLessThan(500)
      expect(seen).toEqual([])
    })
  }

  it('the declared type refuses a misspelled key and a Gemini part without id', () => {
    const { runtime } = searchRuntime()
    // @ts-expect-error `argument` is not a key of a call (excess property)
    const typo: DispatchCall = { id: 'a', name: 'search', argument: '{}' }
    // @ts-expect-error a Gemini part needs an id
    const noId: DispatchCall = { functionCall: { name: 'search', args: {} } }
    expect(typeof runtime.dispatch).toBe('function')
    expect([typo, noId]).toHaveLength(2)
  })
})
