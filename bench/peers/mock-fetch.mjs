// The mocked transport every library in bench/decode.mjs reads through.
//
// One `fetch` function serves every client of a worker. The harness sets the body with
// `setBody(chunks)` before each run; every call of `mockFetch` then answers with a fresh `Response`
// whose body is a ReadableStream that yields exactly those Uint8Array chunks, in that order, one per
// read. The chunks are prepared once by bench/decode.mjs (outside the clock) and copied to every
// library's worker, so all of them read the same bytes in the same network chunking. The request
// itself is ignored.

import { readFileSync } from 'node:fs'

let current = null

/** Sets the chunks (an array of Uint8Array) that the next responses carry. */
export function setBody(chunks) {
  current = chunks
}

export function currentBody() {
  return current
}

/** A `fetch` replacement: always 200 text/event-stream with the current chunks as the body. */
export function mockFetch(_input, _init) {
  const chunks = current
  if (chunks === null) return Promise.reject(new Error('mockFetch: no body set'))
  // One chunk per pull, as from a network source, so the stream's queue never holds more than one
  // chunk: with all chunks enqueued up front, Node 20's ReadableStream gets quadratic in their
  // number (26,000 queued chunks took 400 ms to read, against 18 ms pulled one at a time).
  let next = 0
  const body = new ReadableStream({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++])
      else controller.close()
    },
  })
  return Promise.resolve(
    new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_bench' } }),
  )
}

/** A package's version, read from this repo's node_modules (null when it is not installed). */
export function packageVersion(name) {
  try {
    const url = new URL(`../../node_modules/${name}/package.json`, import.meta.url)
    return JSON.parse(readFileSync(url, 'utf8')).version
  } catch {
    return null
  }
}
