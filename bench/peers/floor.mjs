// Reference row, not a peer: read the mocked Response body to the end and do nothing else. It is
// what every other figure pays for the transport (Response, ReadableStream, one read per chunk).

import { mockFetch } from './mock-fetch.mjs'

export function createPeer() {
  async function run() {
    const res = await mockFetch('https://floor.invalid')
    let bytes = 0
    for await (const chunk of res.body) bytes += chunk.length
    return { calls: [], bytes }
  }
  return {
    key: 'floor',
    label: 'floor: read the body only',
    api: 'for await (const chunk of response.body) {}',
    reference: true,
    chat: { final: run, preview: run },
    anthropic: { final: run, preview: run },
  }
}
