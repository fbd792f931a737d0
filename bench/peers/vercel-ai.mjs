// Peer: the Vercel AI SDK (`ai` streamText) with its OpenAI Chat Completions and Anthropic providers.
//
//   streamText({ model: createOpenAI({ fetch }).chat(id) | createAnthropic({ fetch })(id), tools })
//   final calls = await result.toolCalls
//
// result.toolCalls resolves when the (single) step has finished: the provider has read the whole
// body, parsed and schema-checked every chunk, and streamText has parsed and validated each tool
// call's input against the tool's (here: permissive) JSON schema. The tools have no `execute`, so
// nothing runs. Previews: streamText's fullStream carries `tool-input-delta` parts (the raw text
// fragments; the SDK does not parse partial input), consumed here part by part.

import { streamText, jsonSchema, tool } from 'ai'
import { createOpenAI } from '@ai-sdk/openai'
import { createAnthropic } from '@ai-sdk/anthropic'
import { mockFetch, packageVersion } from './mock-fetch.mjs'

globalThis.AI_SDK_LOG_WARNINGS = false

export function createPeer({ toolNames }) {
  const schema = jsonSchema({ type: 'object', properties: {}, additionalProperties: true })
  const tools = Object.fromEntries(toolNames.map((name) => [name, tool({ description: name, inputSchema: schema })]))
  const chatModel = createOpenAI({ apiKey: 'sk-bench', baseURL: 'https://openai.invalid/v1', fetch: mockFetch }).chat('gpt-4o-mini')
  const claude = createAnthropic({ apiKey: 'sk-ant-bench', baseURL: 'https://anthropic.invalid/v1', fetch: mockFetch })('claude-haiku-4-5')
  const prompt = 'Call the tools.'

  async function callsOf(result, errors) {
    const out = []
    for (const c of await result.toolCalls) {
      // an invalid call (unparsable input, unknown tool) keeps its raw input text in `input`
      out.push({ id: c.toolCallId, name: c.toolName, arguments: c.input, invalid: c.invalid === true })
    }
    // stream errors (e.g. a chunk that fails the provider's schema) go to onError, not to toolCalls
    return errors.length ? { calls: out, error: errors.map((e) => e?.message ?? String(e)).join('; ') } : { calls: out }
  }

  async function final(model) {
    const errors = []
    const result = streamText({ model, prompt, tools, maxRetries: 0, onError: ({ error }) => errors.push(error) })
    return callsOf(result, errors)
  }

  async function preview(model) {
    const errors = []
    const result = streamText({ model, prompt, tools, maxRetries: 0, onError: ({ error }) => errors.push(error) })
    let previews = 0
    let text = ''
    for await (const part of result.fullStream) {
      if (part.type === 'tool-input-delta') {
        previews++
        text += part.delta
      } else if (part.type === 'tool-input-start') {
        text = ''
      }
    }
    return { ...(await callsOf(result, errors)), previews, lastPreview: text.length }
  }

  return {
    key: 'vercel',
    label: `ai ${packageVersion('ai')}`,
    api: 'streamText({ model: @ai-sdk/openai .chat() | @ai-sdk/anthropic }) -> await result.toolCalls',
    versions: `ai ${packageVersion('ai')}, @ai-sdk/openai ${packageVersion('@ai-sdk/openai')}, @ai-sdk/anthropic ${packageVersion('@ai-sdk/anthropic')}`,
    chat: { final: () => final(chatModel), preview: () => preview(chatModel) },
    anthropic: { final: () => final(claude), preview: () => preview(claude) },
  }
}
