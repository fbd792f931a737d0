// Peer: the official `@anthropic-ai/sdk` MessageStream.
//
//   client.messages.stream(params) -> MessageStream
//   final calls = (await stream.finalMessage()).content filtered to tool_use / server_tool_use blocks
//
// finalMessage() resolves after the SDK has read the whole body and seen `message_stop`. The SDK
// keeps the raw `partial_json` per block and (since 0.7x) parses it lazily: `input` is computed with
// its partial-JSON parser when first read, and frozen at `content_block_stop`. Previews: an
// `inputJson` listener receives the partial `input` on every input_json_delta, which forces that
// partial parse of the whole buffer on every delta (that is how a user gets live tool input).

import Anthropic from '@anthropic-ai/sdk'
import { mockFetch, packageVersion } from './mock-fetch.mjs'

export function createPeer({ toolNames }) {
  const client = new Anthropic({ apiKey: 'sk-ant-bench', baseURL: 'https://anthropic.invalid', fetch: mockFetch, maxRetries: 0 })
  const messages = [{ role: 'user', content: 'Call the tools.' }]
  const tools = toolNames.map((name) => ({ name, input_schema: { type: 'object', properties: {}, additionalProperties: true } }))
  const params = { model: 'claude-haiku-4-5', max_tokens: 4096, messages, tools }

  function callsOf(message) {
    const out = []
    for (const block of message.content) {
      if (block.type === 'tool_use' || block.type === 'server_tool_use') {
        out.push({ id: block.id, name: block.name, arguments: block.input })
      }
    }
    return out
  }

  return {
    key: 'anthropic',
    label: `@anthropic-ai/sdk ${packageVersion('@anthropic-ai/sdk')}`,
    api: 'client.messages.stream() -> MessageStream.finalMessage()',
    anthropic: {
      async final() {
        const stream = client.messages.stream(params)
        return { calls: callsOf(await stream.finalMessage()) }
      },
      async preview() {
        const stream = client.messages.stream(params)
        let previews = 0
        let last = null
        stream.on('inputJson', (_delta, snapshot) => {
          previews++
          last = snapshot
        })
        const message = await stream.finalMessage()
        return { calls: callsOf(message), previews, lastPreview: last }
      },
    },
  }
}
