// Peer: LangChain's `ChatOpenAI` (@langchain/openai) over Chat Completions, streamed.
//
//   for await (const chunk of await model.bindTools(tools).stream(prompt)) acc = acc ? acc.concat(chunk) : chunk
//   final calls = acc.tool_calls (+ acc.invalid_tool_calls, whose args stay raw text)
//
// Every chunk becomes an AIMessageChunk whose tool_call_chunks carry the argument fragment; concat
// merges the fragments by `index`. @langchain/core 1.x derives `tool_calls` from the merged chunks
// lazily, on first read, by parsing the concatenated arguments with its partial-JSON parser. So
// `final` reads acc.tool_calls once, after the stream has ended; `preview` reads acc.tool_calls
// after every chunk that carried a tool-call fragment (the partial args a UI would show).
// There is no Anthropic run: that would need @langchain/anthropic, which is not one of the peers.

import { ChatOpenAI } from '@langchain/openai'
import { mockFetch, packageVersion } from './mock-fetch.mjs'

export function createPeer({ toolNames }) {
  const tools = toolNames.map((name) => ({
    type: 'function',
    function: { name, parameters: { type: 'object', properties: {}, additionalProperties: true } },
  }))
  const model = new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-bench',
    configuration: { baseURL: 'https://openai.invalid/v1', fetch: mockFetch },
    maxRetries: 0,
    streaming: true,
    useResponsesApi: false,
  }).bindTools(tools)

  async function run(preview) {
    let acc
    let previews = 0
    let last = null
    for await (const chunk of await model.stream('Call the tools.')) {
      acc = acc === undefined ? chunk : acc.concat(chunk)
      if (preview && chunk.tool_call_chunks?.length) {
        previews++
        last = acc.tool_calls[acc.tool_calls.length - 1]?.args ?? null
      }
    }
    const calls = []
    for (const tc of acc?.tool_calls ?? []) calls.push({ id: tc.id, name: tc.name, arguments: tc.args })
    for (const tc of acc?.invalid_tool_calls ?? []) calls.push({ id: tc.id, name: tc.name, arguments: tc.args, invalid: true })
    return { calls, previews, lastPreview: last }
  }

  return {
    key: 'langchain',
    label: `@langchain/openai ${packageVersion('@langchain/openai')}`,
    api: 'ChatOpenAI.bindTools().stream() + AIMessageChunk.concat() -> acc.tool_calls',
    versions: `@langchain/openai ${packageVersion('@langchain/openai')}, @langchain/core ${packageVersion('@langchain/core')}`,
    chat: { final: () => run(false), preview: () => run(true) },
  }
}
