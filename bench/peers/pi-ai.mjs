// Peer: @mariozechner/pi-ai's `stream()` for the `openai-completions` and `anthropic-messages` APIs.
//
//   const s = stream(model, context, options); final calls = (await s.result()).content toolCall blocks
//
// s.result() resolves on the `done` (or `error`) event, after pi-ai has read the whole body; a run
// that ends in `error` counts as giving no calls. pi-ai parses each call's arguments so far with
// its streaming-JSON parser on every argument delta (toolcall_delta carries the partial message),
// always; `final` just does not look at those events, `preview` iterates them.
//
// How the mocked fetch gets in: for anthropic-messages pi-ai takes a ready client
// (`options.client`), so it gets an Anthropic client built with `fetch` (the @anthropic-ai/sdk copy
// pi-ai itself depends on). For openai-completions pi-ai builds its own `new OpenAI(...)` on every
// call with no way to pass `fetch` or a client; the OpenAI SDK then takes `globalThis.fetch` when
// the client is built, so globalThis.fetch is set to the same mocked fetch for the duration of each
// run (and restored after).

import { createRequire } from 'node:module'
import { readFileSync, existsSync } from 'node:fs'
import path from 'node:path'
import { stream } from '@mariozechner/pi-ai'
import { mockFetch, packageVersion } from './mock-fetch.mjs'

// the @anthropic-ai/sdk that pi-ai resolves (its own nested copy when versions differ)
const piRequire = createRequire(import.meta.resolve('@mariozechner/pi-ai'))
const PiAnthropic = piRequire('@anthropic-ai/sdk').default ?? piRequire('@anthropic-ai/sdk')

/** The version of the copy of `name` that pi-ai resolves. */
function piDependencyVersion(name) {
  let dir = path.dirname(piRequire.resolve(name))
  for (let i = 0; i < 8; i++, dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json')
    if (!existsSync(file)) continue
    const pkg = JSON.parse(readFileSync(file, 'utf8'))
    if (pkg.name === name) return pkg.version
  }
  return 'unknown'
}

export function createPeer({ toolNames }) {
  const parameters = { type: 'object', properties: {}, additionalProperties: true }
  const context = {
    messages: [{ role: 'user', content: 'Call the tools.', timestamp: 0 }],
    tools: toolNames.map((name) => ({ name, description: name, parameters })),
  }
  const base = { reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 16384 }
  const chatModel = { ...base, id: 'gpt-4o-mini', name: 'gpt-4o-mini', api: 'openai-completions', provider: 'openai', baseUrl: 'https://openai.invalid/v1' }
  const claudeModel = { ...base, id: 'claude-haiku-4-5', name: 'claude-haiku-4-5', api: 'anthropic-messages', provider: 'anthropic', baseUrl: 'https://anthropic.invalid' }
  const anthropicClient = new PiAnthropic({ apiKey: 'sk-ant-bench', baseURL: 'https://anthropic.invalid', fetch: mockFetch, maxRetries: 0 })
  const chatOptions = { apiKey: 'sk-bench', maxRetries: 0 }
  const claudeOptions = { apiKey: 'sk-ant-bench', maxRetries: 0, client: anthropicClient, maxTokens: 4096 }

  function outcome(message, previews, lastPreview) {
    if (message.stopReason === 'error' || message.stopReason === 'aborted') {
      return { calls: [], error: message.errorMessage ?? message.stopReason, previews, lastPreview }
    }
    const calls = []
    for (const block of message.content) {
      if (block.type === 'toolCall') calls.push({ id: block.id, name: block.name, arguments: block.arguments })
    }
    return { calls, previews, lastPreview }
  }

  async function withGlobalFetch(fn) {
    const saved = globalThis.fetch
    globalThis.fetch = mockFetch
    try {
      return await fn()
    } finally {
      globalThis.fetch = saved
    }
  }

  async function final(model, options) {
    return outcome(await stream(model, context, options).result())
  }

  async function preview(model, options) {
    const s = stream(model, context, options)
    let previews = 0
    let last = null
    for await (const event of s) {
      if (event.type === 'toolcall_delta') {
        previews++
        last = event.partial.content[event.contentIndex].arguments
      }
    }
    return outcome(await s.result(), previews, last)
  }

  return {
    key: 'pi-ai',
    label: `pi-ai ${packageVersion('@mariozechner/pi-ai')}`,
    api: 'stream(model{api:openai-completions|anthropic-messages}) -> await s.result()',
    note: 'openai-completions takes no fetch and no client, so globalThis.fetch is the mocked fetch during those runs; anthropic-messages gets a client built with it',
    versions: `@mariozechner/pi-ai ${packageVersion('@mariozechner/pi-ai')} (its own openai ${piDependencyVersion('openai')}, @anthropic-ai/sdk ${piDependencyVersion('@anthropic-ai/sdk')})`,
    chat: {
      final: () => withGlobalFetch(() => final(chatModel, chatOptions)),
      preview: () => withGlobalFetch(() => preview(chatModel, chatOptions)),
    },
    anthropic: {
      final: () => final(claudeModel, claudeOptions),
      preview: () => preview(claudeModel, claudeOptions),
    },
  }
}
