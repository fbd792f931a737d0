// Peer: the official `openai` SDK's Chat Completions stream helper.
//
//   client.chat.completions.stream(params) -> ChatCompletionStream
//   final calls = (await stream.finalChatCompletion()).choices[0].message.tool_calls
//
// finalChatCompletion() resolves after the SDK has read the whole body, parsed every SSE event and
// accumulated the snapshot (tool calls keyed by `index`). Previews: with `strict: true` tools the
// stream re-parses the arguments so far with its partial-JSON parser on every argument delta and
// exposes them as `parsed_arguments` on the `tool_calls.function.arguments.delta` event.

import OpenAI from 'openai'
import { mockFetch, packageVersion } from './mock-fetch.mjs'

export function createPeer({ toolNames }) {
  const client = new OpenAI({ apiKey: 'sk-bench', baseURL: 'https://openai.invalid/v1', fetch: mockFetch, maxRetries: 0 })
  const messages = [{ role: 'user', content: 'Call the tools.' }]
  const tools = (strict) =>
    toolNames.map((name) => ({
      type: 'function',
      function: strict
        ? { name, parameters: { type: 'object', properties: {}, additionalProperties: true }, strict: true }
        : { name, parameters: { type: 'object', properties: {}, additionalProperties: true } },
    }))
  const plainTools = tools(false)
  const strictTools = tools(true)

  function callsOf(completion) {
    const message = completion.choices[0]?.message
    const out = []
    for (const tc of message?.tool_calls ?? []) {
      if (tc === undefined) continue // a hole in the array (index did not start at 0)
      out.push({ id: tc.id, name: tc.function?.name, arguments: tc.function?.arguments })
    }
    return out
  }

  return {
    key: 'openai',
    label: `openai ${packageVersion('openai')}`,
    api: 'client.chat.completions.stream() -> ChatCompletionStream.finalChatCompletion()',
    chat: {
      async final() {
        const stream = client.chat.completions.stream({ model: 'gpt-4o-mini', messages, tools: plainTools })
        return { calls: callsOf(await stream.finalChatCompletion()) }
      },
      async preview() {
        const stream = client.chat.completions.stream({ model: 'gpt-4o-mini', messages, tools: strictTools })
        let previews = 0
        let last = null
        stream.on('tool_calls.function.arguments.delta', (e) => {
          previews++
          last = e.parsed_arguments
        })
        const completion = await stream.finalChatCompletion()
        return { calls: callsOf(completion), previews, lastPreview: last }
      },
    },
  }
}
