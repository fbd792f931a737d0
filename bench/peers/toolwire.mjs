// toolwire's side: `StreamDecoder` from ../../index.js, reading the same mocked Response body.
//
//   const d = new StreamDecoder(wire, { partial }); for await (const chunk of res.body) d.push(chunk)
//   final calls = d.finish().toolCalls and .serverToolCalls (every call, complete or not)
//
// `final` uses partial: 'none'; `preview` uses partial: 'delta' and walks the events that every
// push returns (scenario 2 also runs partial: 'object' as an extra row). Both corpora use the
// decoder's generic wires: 'openai-chat' also for the OpenAI-compatible servers, Mistral's included,
// as the peers use their Chat Completions clients for them.

import { createRequire } from 'node:module'
import { mockFetch } from './mock-fetch.mjs'

const require = createRequire(import.meta.url)

/** { StreamDecoder } when index.js exports it, else { missing: reason }. */
export function loadToolwire() {
  try {
    const { StreamDecoder } = require('../../dist/index.js')
    if (typeof StreamDecoder !== 'function') return { missing: 'index.js does not export StreamDecoder (yet)' }
    // the JS class can be there before the native module that backs it is built
    for (const wire of ['openai-chat', 'anthropic']) new StreamDecoder(wire, { partial: 'none' }).finish()
    return { StreamDecoder }
  } catch (e) {
    return { missing: `StreamDecoder unusable: ${e.message.split('\n')[0]}` }
  }
}

export function createPeer({ StreamDecoder }) {
  const URL = 'https://toolwire.invalid/stream'

  async function final(wire) {
    const res = await mockFetch(URL)
    const d = new StreamDecoder(wire, { partial: 'none' })
    for await (const chunk of res.body) d.push(chunk)
    return outcome(d.finish())
  }

  async function preview(wire, partial = 'delta') {
    const res = await mockFetch(URL)
    const d = new StreamDecoder(wire, { partial })
    let previews = 0
    let last = null
    for await (const chunk of res.body) {
      const events = d.push(chunk)
      for (let i = 0; i < events.length; i++) {
        previews++
        last = events[i]
      }
    }
    return { ...outcome(d.finish()), previews, lastPreview: last }
  }

  function outcome(turn) {
    return {
      // Provider-executed calls are listed apart (serverToolCalls); expected.json lists both.
      calls: [...turn.toolCalls, ...turn.serverToolCalls].map((c) => ({
        id: c.id,
        name: c.name,
        arguments: c.arguments,
        complete: c.complete,
      })),
    }
  }

  return {
    key: 'toolwire',
    label: 'toolwire',
    api: 'new StreamDecoder(wire, { partial }); push(chunk) per chunk; finish().toolCalls',
    chat: { final: () => final('openai-chat'), preview: () => preview('openai-chat') },
    anthropic: { final: () => final('anthropic'), preview: () => preview('anthropic') },
    /** The same decoder with partial: 'object' (partial argument objects, like the SDKs' previews). */
    objectPreviews: {
      key: 'toolwire-object',
      label: "toolwire, partial: 'object'",
      chat: { preview: () => preview('openai-chat', 'object') },
      anthropic: { preview: () => preview('anthropic', 'object') },
    },
  }
}
