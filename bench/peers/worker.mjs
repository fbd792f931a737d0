// One library per worker thread, driven by bench/decode.mjs.
//
// Each library runs in an isolate of its own, so that what one library switches on for the whole
// process cannot slow the others down: @langchain/core runs every call inside an AsyncLocalStorage
// context, which turns on V8's promise hooks, and from then on every promise in the isolate is
// slower (reading a mocked 1,600-chunk body took about 4.5x as long after one LangChain call, in
// the same process). The main thread sends the bodies once, then asks for checked runs and timed
// runs; a worker only ever runs when the main thread has asked it to, so the libraries never run
// at the same time, and the clock (performance.now() around each run) is read inside the worker.

import { parentPort, workerData } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import { setBody } from './mock-fetch.mjs'

// Only pi-ai's openai-completions run may use the global fetch (it swaps in the mock itself); any
// other use would mean a library went around the mocked transport, so make that fail loudly.
globalThis.fetch = (input) => Promise.reject(new Error(`unexpected global fetch(${String(input)})`))

const { key, toolNames } = workerData

async function load() {
  switch (key) {
    case 'toolwire': {
      const { loadToolwire, createPeer } = await import('./toolwire.mjs')
      const tw = loadToolwire()
      return tw.StreamDecoder ? createPeer({ StreamDecoder: tw.StreamDecoder }) : { key, missing: tw.missing }
    }
    case 'floor':
      return (await import('./floor.mjs')).createPeer()
    case 'openai':
      return (await import('./openai.mjs')).createPeer({ toolNames })
    case 'anthropic':
      return (await import('./anthropic.mjs')).createPeer({ toolNames })
    case 'vercel':
      return (await import('./vercel-ai.mjs')).createPeer({ toolNames })
    case 'langchain':
      return (await import('./langchain.mjs')).createPeer({ toolNames })
    case 'pi-ai':
      return (await import('./pi-ai.mjs')).createPeer({ toolNames })
    default:
      throw new Error(`unknown library ${key}`)
  }
}

const lib = await load()
const bodies = new Map()

/** lib.chat.final, lib.objectPreviews.anthropic.preview, ... */
function resolve(path) {
  let fn = lib
  for (const p of path) fn = fn?.[p]
  if (typeof fn !== 'function') throw new Error(`${key}: no ${path.join('.')}`)
  return fn
}

function drain() {
  return new Promise((r) => setImmediate(r))
}

function wires(obj) {
  return obj ? ['chat', 'anthropic'].filter((w) => obj[w]) : []
}

async function handle(msg) {
  switch (msg.cmd) {
    case 'info':
      return {
        key,
        missing: lib.missing ?? null,
        label: lib.label,
        api: lib.api,
        versions: lib.versions ?? lib.label,
        reference: lib.reference === true,
        note: lib.note ?? null,
        wires: wires(lib),
        extra: lib.objectPreviews ? { key: lib.objectPreviews.key, label: lib.objectPreviews.label, wires: wires(lib.objectPreviews) } : null,
      }
    case 'bodies':
      for (const [id, chunks] of msg.bodies) bodies.set(id, chunks)
      return bodies.size
    case 'run': {
      // one run, outside any clock, for checking; also returns its time in ms
      const chunks = bodies.get(msg.body)
      const size = () => chunks.reduce((n, c) => n + c.byteLength, 0)
      const before = size()
      setBody(chunks)
      const run = resolve(msg.path)
      const t0 = performance.now()
      let outcome
      try {
        outcome = await run()
      } catch (e) {
        outcome = { calls: [], error: e?.message ?? String(e) }
      }
      const ms = performance.now() - t0
      await drain()
      if (size() !== before) throw new Error(`${key} changed or detached the body chunks it was given`)
      return {
        ms,
        calls: outcome.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
        error: outcome.error ?? null,
        previews: outcome.previews ?? null,
      }
    }
    case 'time': {
      // `reps` timed runs of every body in turn; returns the total ms per body
      const run = resolve(msg.path)
      const totals = []
      for (const id of msg.bodies) {
        setBody(bodies.get(id))
        let total = 0
        for (let r = 0; r < msg.reps; r++) {
          const t0 = performance.now()
          try {
            await run()
          } catch {
            // a library that throws on a stream (where no calls are right) is timed up to the throw
          }
          total += performance.now() - t0
          // whatever the library left queued after handing over its calls runs outside the clock
          await drain()
        }
        totals.push(total)
      }
      return totals
    }
    default:
      throw new Error(`unknown command ${msg.cmd}`)
  }
}

parentPort.on('message', async (msg) => {
  try {
    parentPort.postMessage({ id: msg.id, result: await handle(msg) })
  } catch (e) {
    parentPort.postMessage({ id: msg.id, error: e?.stack ?? String(e) })
  }
})
parentPort.postMessage({ ready: true })
