import { describe, expect, it } from 'vitest'

import type { Wire } from '../dist/index.js'
import { requestBody } from '../dist/run.js'

const messages = [
  { role: 'user', content: 'Read a.txt — “quoted”, 😀' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }] },
]
const tools = [{ type: 'function', function: { name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }]
const choice = { type: 'function', function: { name: 'read' } }

/** Each wire's request body without tools or a tool choice, and with both: the bodies the agent loop has always sent. */
const EXPECTED: Record<Wire, { bare: object; full: object }> = {
  'openai-chat': {
    bare: { messages, stream: true, stream_options: { include_usage: true } },
    full: { messages, tools, tool_choice: choice, stream: true, stream_options: { include_usage: true } },
  },
  'openai-responses': {
    bare: { input: messages, stream: true },
    full: { input: messages, tools, tool_choice: choice, stream: true },
  },
  anthropic: {
    bare: { messages, stream: true },
    full: { messages, tools, tool_choice: choice, stream: true },
  },
  mistral: {
    bare: { messages, stream: true },
    full: { messages, tools, tool_choice: choice, stream: true },
  },
  gemini: {
    bare: { contents: messages },
    full: { contents: messages, tools, toolConfig: choice },
  },
}

describe("requestBody (each wire's request shape as the engine declares it, REQUEST_SHAPES)", () => {
  for (const [wire, { bare, full }] of Object.entries(EXPECTED) as [Wire, { bare: object; full: object }][]) {
    it(`${wire}: the body without and with tools and a tool choice`, () => {
      expect(requestBody(wire, messages, [], undefined)).toStrictEqual(bare)
      expect(requestBody(wire, messages, tools, choice)).toStrictEqual(full)
      // The keys come in the order they always had.
      expect(Object.keys(requestBody(wire, messages, tools, choice))).toEqual(Object.keys(full))
      // Tools without a choice, a choice without tools.
      const { tool_choice: _c, toolConfig: _g, ...withTools } = full as Record<string, unknown>
      expect(requestBody(wire, messages, tools, undefined)).toStrictEqual(withTools)
      const { tools: _t, ...withChoice } = full as Record<string, unknown>
      expect(requestBody(wire, messages, [], choice)).toStrictEqual(withChoice)
    })
  }

  it('keeps a null or a string tool choice, and an empty history', () => {
    expect(requestBody('anthropic', [], [], null)).toStrictEqual({ messages: [], tool_choice: null, stream: true })
    expect(requestBody('gemini', [], [], 'auto')).toStrictEqual({ contents: [], toolConfig: 'auto' })
  })

  it('carries half an emoji as JSON.stringify writes it', () => {
    const lone = [{ role: 'user', content: 'a\uD83D' }]
    expect(requestBody('openai-chat', lone, [], undefined)).toStrictEqual({ messages: lone, stream: true, stream_options: { include_usage: true } })
  })

  it('holds the very history, tools and tool choice it is given: nothing is copied or serialized', () => {
    const body = requestBody('anthropic', messages, tools, choice) as unknown as Record<string, unknown>
    expect(body.messages).toBe(messages)
    expect(body.tools).toBe(tools)
    expect(body.tool_choice).toBe(choice)
    // a value JSON cannot carry is the model function's to judge, as it always was
    const odd = [{ n: 1n }]
    expect((requestBody('gemini', odd, [], undefined) as unknown as { contents: unknown }).contents).toBe(odd)
  })

  it('refuses an unknown wire, naming it and the closest', () => {
    expect(() => requestBody('openai' as Wire, [], [], undefined)).toThrow(/unknown wire "openai".*did you mean "openai-chat"/)
  })
})
