// Decode benchmark: "bytes to final tool calls", toolwire's StreamDecoder against the libraries a
// user would otherwise stream tool calls with.
//
//   node bench/decode.mjs            (from the repo root or anywhere; fixtures: ../shared/fixtures)
//
// Every library reads the same bytes: a mocked `fetch` (bench/peers/mock-fetch.mjs) answers with a
// Response whose body enqueues the same Uint8Array chunks in the same order, and each figure runs
// from the request to the moment the library hands over its final tool calls, so it includes
// reading and parsing the whole body (and, for the client SDKs, building their request). Each
// library runs in a worker thread of its own (bench/peers/worker.mjs says why); the main thread
// only orchestrates, one library at a time, and checks the results.
//
// Scenario 1 (fixture corpus): the Chat Completions streams (openai-chat, openai-compatible-chat)
// and the Anthropic streams (anthropic) of ../shared/fixtures, split into single responses. Each
// library's final calls are checked against expected.json (ids, names, arguments as parsed JSON;
// arguments that are not valid JSON, i.e. truncated calls, must come back as that exact text). A
// peer is compared with toolwire only on the streams both got right. Times are the mean over many
// runs of each stream, after warm-up, with the libraries interleaved round by round (rotating their
// order) so that the VM's fast and slow stretches fall on all alike. Two network chunkings: one chunk
// per SSE event, and the whole body as one chunk.
//
// Scenario 2 (growth): one call whose arguments {"content":"..."} stream in 10-character deltas,
// one SSE event per delta and one network chunk per event, at 16, 64 and 256 KB of content, with
// every library's partial previews turned on; reports the time per size and the 256/16 growth.
//
// Knobs (environment): DECODE_S1_BUDGET_S (measured seconds per corpus and chunking, default 8),
// DECODE_S2_CAP_S (longest single run scenario 2 attempts, default 20; larger ones are estimated).

import { Worker } from 'node:worker_threads'
import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { performance } from 'node:perf_hooks'
import path from 'node:path'
import os from 'node:os'
import { fmt, machineLines, table } from './lib.mjs'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const FIXTURES = path.resolve(REPO, '../shared/fixtures')

// Scenario 1: rounds over the whole corpus, each stream run S1_STREAM_REPS times per round; after
// the warm-up rounds, measured rounds go on until S1_BUDGET_S has passed (per corpus and chunking).
const S1_WARMUP_ROUNDS = 3
const S1_MIN_ROUNDS = 5
const S1_MAX_ROUNDS = 200
const S1_BUDGET_S = Number(process.env.DECODE_S1_BUDGET_S ?? 8)
const S1_STREAM_REPS = 3
// Scenario 2: sizes in KiB of the `content` string; a time budget and a run cap per library and size.
const S2_SIZES_KB = [16, 64, 256]
// A 4 KB probe runs first (not printed): with it, every library has two sizes to extrapolate from.
const S2_PROBE_KB = 4
const S2_RUN_SIZES_KB = [S2_PROBE_KB, ...S2_SIZES_KB]
const S2_DELTA = 10
const S2_BUDGET_MS = { 4: 300, 16: 1000, 64: 1500, 256: 3000 }
const S2_MAX_RUNS = { 4: 20, 16: 50, 64: 20, 256: 8 }
// A library whose one run at a size is predicted to take longer than this is not run there: its
// figure is extrapolated from the two largest sizes it ran (the probe included; see predictUs) and
// printed as an estimate, marked "est.", and so is its growth.
const S2_RUN_CAP_S = Number(process.env.DECODE_S2_CAP_S ?? 20)

const encoder = new TextEncoder()

// ---- fixtures ------------------------------------------------------------------------------------

/** Splits an SSE body into events: { raw, event, data } (raw keeps the event's bytes as sent). */
function sseEvents(text) {
  const events = []
  let raw = ''
  let event = null
  let data = null
  for (const line of text.match(/[^\r\n]*(?:\r\n|\r|\n|$)/g)) {
    if (line === '') continue
    raw += line
    const body = line.replace(/(?:\r\n|\r|\n)$/, '')
    if (body === '') {
      if (event !== null || data !== null) events.push({ raw, event, data })
      else if (events.length > 0) events[events.length - 1].raw += raw // stray blank line
      raw = ''
      event = data = null
      continue
    }
    if (body.startsWith(':')) continue
    const colon = body.indexOf(':')
    const field = colon < 0 ? body : body.slice(0, colon)
    let value = colon < 0 ? '' : body.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') event = value
    else if (field === 'data') data = data === null ? value : `${data}\n${value}`
  }
  if (raw !== '' && (event !== null || data !== null)) events.push({ raw, event, data })
  return events
}

function jsonOrNull(text) {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/**
 * The streams of one fixture file: an array of arrays of events. `*.chunks.txt` lines become
 * `data: <line>\n\n` events (Anthropic ones also get the `event: <type>` line that real Anthropic
 * traffic carries, because the Anthropic SDK and pi-ai dispatch on it); Chat streams built from
 * lines end with `data: [DONE]\n\n`. Files holding several responses are split: Chat when the chunk
 * `id` changes, Anthropic at each `message_start`.
 */
function fixtureStreams(file, kind) {
  const text = readFileSync(path.join(FIXTURES, file), 'utf8')
  const fromLines = file.endsWith('.chunks.txt')
  let events
  if (fromLines) {
    events = text
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .map((line) => {
        const type = kind === 'anthropic' ? jsonOrNull(line)?.type : null
        return { raw: `${type ? `event: ${type}\n` : ''}data: ${line}\n\n`, event: type, data: line }
      })
  } else {
    events = sseEvents(text)
  }
  const streams = []
  let current = null
  let currentId = null
  for (const ev of events) {
    const json = jsonOrNull(ev.data)
    let boundary = current === null
    if (kind === 'chat' && json && typeof json.id === 'string' && json.id !== '') {
      if (currentId !== null && json.id !== currentId) boundary = true
      currentId = json.id
    }
    if (kind === 'anthropic' && json?.type === 'message_start' && current !== null && current.length > 0) boundary = true
    if (boundary) streams.push((current = []))
    current.push(ev)
  }
  if (fromLines && kind === 'chat') for (const s of streams) s.push({ raw: 'data: [DONE]\n\n', event: null, data: '[DONE]' })
  return streams
}

/**
 * expected.json lists no tool calls for the responses of anthropic-programmatic-tool-calling.1 that
 * deliver a whole tool_use block inside `message_start.message.content` (no content_block events),
 * although the note on that very entry (and WIRE.md) says each of them carries a rollDie call. Such
 * a stream is "disputed": both readings count as right, and the report says which one each library
 * gave. Returns the calls of the second reading, or null when the stream is not disputed.
 */
function messageStartCalls(events, expected) {
  if (expected.length !== 0) return null
  const start = events.map((e) => jsonOrNull(e.data)).find((j) => j?.type === 'message_start')
  const blocks = (start?.message?.content ?? []).filter((b) => b.type === 'tool_use' || b.type === 'server_tool_use')
  if (blocks.length === 0) return null
  return blocks.map((b) => ({ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }))
}

if (!existsSync(path.join(FIXTURES, 'expected.json'))) {
  console.error(`decode benchmark: no fixtures at ${FIXTURES} (expected ../shared/fixtures beside the repo)`)
  process.exit(1)
}
const expectedAll = JSON.parse(readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8'))

const CORPORA = [
  { key: 'chat', label: 'Chat Completions', folders: ['openai-chat', 'openai-compatible-chat'], expectedKey: 'streams' },
  {
    key: 'anthropic',
    label: 'Anthropic Messages',
    folders: ['anthropic'],
    expectedKey: 'messages',
    note: '*.chunks.txt lines framed as `event: <type>` + `data: <line>` (the Anthropic SDK and pi-ai dispatch on the event name)',
  },
]

function loadCorpus(corpus) {
  const streams = []
  const skipped = []
  for (const folder of corpus.folders) {
    for (const name of readdirSync(path.join(FIXTURES, folder)).sort()) {
      const file = `${folder}/${name}`
      const exp = expectedAll[file]?.[corpus.expectedKey]
      if (!Array.isArray(exp)) {
        skipped.push(file)
        continue
      }
      const parts = fixtureStreams(file, corpus.key)
      if (parts.length !== exp.length) throw new Error(`${file}: split into ${parts.length} streams, expected.json has ${exp.length}`)
      parts.forEach((events, i) => {
        const perEvent = events.map((e) => encoder.encode(e.raw))
        streams.push({
          name: parts.length > 1 ? `${file}#${i}` : file,
          expected: exp[i].tool_calls,
          alternative: corpus.key === 'anthropic' ? messageStartCalls(events, exp[i].tool_calls) : null,
          chunks: { event: perEvent, whole: [encoder.encode(events.map((e) => e.raw).join(''))] },
          events: events.length,
          bytes: perEvent.reduce((n, c) => n + c.length, 0),
        })
      })
    }
  }
  return { ...corpus, streams, skipped }
}

// ---- checking ------------------------------------------------------------------------------------

/**
 * Whether a library's final calls match expected.json: '' when right, else the reason. Calls are
 * compared in id order: libraries that keep provider-executed calls (Anthropic server_tool_use)
 * apart from the client's, as toolwire does, cannot give the interleaved block order.
 */
function judge(expectedInOrder, outcome) {
  const byId = (a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0)
  const got = [...outcome.calls].sort(byId)
  const expected = [...expectedInOrder].sort(byId)
  const err = outcome.error ? ` (error: ${summarizeError(outcome.error)})` : ''
  if (got.length !== expected.length) {
    const names = got.map((c) => c.name).join(', ')
    return `${got.length} call(s)${names ? ` [${names}]` : ''}, expected ${expected.length}${err}`
  }
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]
    const g = got[i]
    if (g.id !== e.id) return `call ${i}: id ${JSON.stringify(g.id)}, expected ${JSON.stringify(e.id)}`
    if (g.name !== e.name) return `call ${i}: name ${JSON.stringify(g.name)}, expected ${JSON.stringify(e.name)}`
    const want = jsonOrNull(e.arguments)
    if (want === null && e.arguments !== 'null') {
      // expected arguments are not valid JSON (a truncated call): only the exact text is right
      if (g.arguments !== e.arguments) {
        const shown = typeof g.arguments === 'string' ? `text ${JSON.stringify(g.arguments.slice(0, 40))}...` : `${JSON.stringify(g.arguments).slice(0, 60)}...`
        return `call ${i}: truncated arguments came back as ${shown}`
      }
      continue
    }
    const have = typeof g.arguments === 'string' ? jsonOrNull(g.arguments) : g.arguments
    if (!isDeepStrictEqual(have, want)) return `call ${i}: arguments ${JSON.stringify(g.arguments).slice(0, 80)} != expected`
  }
  return ''
}

/** One line for an error message; for a schema (zod) failure, what was expected where. */
function summarizeError(message) {
  const text = String(message)
  if (text.includes('Type validation failed')) {
    const m = text.match(/"expected":\s*"([^"]+)",\s*"code":\s*"([^"]+)",\s*"path":\s*\[([^\]]*)\]/)
    if (m) return `chunk failed the provider's schema: ${m[2]}, expected ${m[1]} at ${m[3].replace(/\s+/g, '').replace(/"/g, '')}`
    return 'chunk failed the provider\'s schema'
  }
  return text.split('\n')[0].slice(0, 110)
}

/** A library's verdict on one stream: { right, reading, reason }. */
function verdictOf(stream, outcome) {
  const reason = judge(stream.expected, outcome)
  if (reason === '') return { right: true, reading: stream.alternative ? 'expected.json' : null, reason: '' }
  if (stream.alternative && judge(stream.alternative, outcome) === '') return { right: true, reading: 'message_start', reason: '' }
  return { right: false, reading: null, reason }
}


// ---- scenario 2 bodies ---------------------------------------------------------------------------

/** A `content` of n characters: words and newlines, so the JSON text has escapes to split. */
function contentOf(n) {
  const words = 'the quick brown fox jumps over the lazy dog while toolwire decodes bytes into calls'.split(' ')
  let s = ''
  let i = 0
  while (s.length < n) {
    s += words[i % words.length]
    s += i % 11 === 10 ? '\n' : ' '
    i++
  }
  return s.slice(0, n)
}

function growthBodies(kb) {
  const content = contentOf(kb * 1024)
  const args = JSON.stringify({ content })
  const pieces = []
  for (let i = 0; i < args.length; i += S2_DELTA) pieces.push(args.slice(i, i + S2_DELTA))

  const id = 'chatcmpl-bench'
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'gpt-4o-mini', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
  const chat = [
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_bench', type: 'function', function: { name: 'write_file', arguments: '' } }] }),
    ...pieces.map((p) => chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] })),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ]

  const ev = (obj) => `event: ${obj.type}\ndata: ${JSON.stringify(obj)}\n\n`
  const anthropic = [
    ev({ type: 'message_start', message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-haiku-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_bench', name: 'write_file', input: {} } }),
    ...pieces.map((p) => ev({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: p } })),
    ev({ type: 'content_block_stop', index: 0 }),
    ev({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 100 } }),
    ev({ type: 'message_stop' }),
  ]
  return {
    deltas: pieces.length,
    chat: { chunks: chat.map((s) => encoder.encode(s)), expected: [{ id: 'call_bench', name: 'write_file', arguments: args }] },
    anthropic: { chunks: anthropic.map((s) => encoder.encode(s)), expected: [{ id: 'toolu_bench', name: 'write_file', arguments: args }] },
  }
}

// ---- libraries, one worker thread each ---------------------------------------------------------

const LIBRARY_KEYS = ['toolwire', 'openai', 'anthropic', 'vercel', 'langchain', 'pi-ai', 'floor']

function startWorker(key, toolNames) {
  const worker = new Worker(new URL('./peers/worker.mjs', import.meta.url), { workerData: { key, toolNames } })
  const pending = new Map()
  let nextId = 1
  let onReady
  const ready = new Promise((resolve, reject) => (onReady = { resolve, reject }))
  ready.catch(() => {}) // awaited (and reported) by startLibraries, in order
  const fail = (e) => {
    onReady.reject(e)
    for (const p of pending.values()) p.reject(e)
    pending.clear()
  }
  worker.on('message', (m) => {
    if (m.ready) return onReady.resolve()
    const p = pending.get(m.id)
    pending.delete(m.id)
    if (m.error !== undefined) p.reject(new Error(`${key} worker: ${m.error}`))
    else p.resolve(m.result)
  })
  worker.on('error', fail)
  worker.on('exit', (code) => fail(new Error(`${key} worker exited (${code})`)))
  const call = (cmd, args = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      worker.postMessage({ id, cmd, ...args })
    })
  return { key, worker, ready, call }
}

/** Starts every library's worker; returns { libs, missing: Map(key -> reason), workers }. */
async function startLibraries(toolNames) {
  const started = LIBRARY_KEYS.map((key) => startWorker(key, toolNames))
  const libs = []
  const missing = new Map()
  for (const w of started) {
    try {
      await w.ready
      const info = await w.call('info')
      if (info.missing) {
        missing.set(w.key, info.missing)
        continue
      }
      libs.push({ ...info, prefix: [], call: w.call, worker: w.worker })
      if (info.extra) libs.push({ ...info, ...info.extra, versions: info.extra.label, extraOf: info.key, prefix: ['objectPreviews'], call: w.call, worker: w.worker })
    } catch (e) {
      missing.set(w.key, `could not be loaded: ${e.message.split('\n')[0]}`)
    }
  }
  return { libs, missing, workers: started }
}

// ---- measuring -----------------------------------------------------------------------------------

/**
 * Mean µs per run of every (library, stream) pair. `entries` are { lib, ids } with the body ids
 * that library is timed on. Rounds interleave the libraries, rotating their order each round.
 * No forced GC: each library's garbage stays in its own worker, so it is collected on that
 * library's clock, as in an application; and a forced full GC (gc()) throws away optimized code:
 * the runs after one were about 10x slower (reading a 1,670-chunk body: 0.9 ms before, 8-9 ms after).
 */
async function measureCorpus(entries, corpusKey) {
  const totals = new Map(entries.map((e) => [e.lib.key, new Float64Array(e.ids.length)]))
  let measured = 0
  let started = 0
  for (let round = 0; round < S1_WARMUP_ROUNDS + S1_MAX_ROUNDS; round++) {
    if (round === S1_WARMUP_ROUNDS) started = performance.now()
    if (round >= S1_WARMUP_ROUNDS + S1_MIN_ROUNDS && performance.now() - started >= S1_BUDGET_S * 1000) break
    for (let k = 0; k < entries.length; k++) {
      const { lib, ids } = entries[(k + round) % entries.length]
      if (ids.length === 0) continue
      const ms = await lib.call('time', { bodies: ids, path: [...lib.prefix, corpusKey, 'final'], reps: S1_STREAM_REPS })
      if (round >= S1_WARMUP_ROUNDS) {
        const acc = totals.get(lib.key)
        ms.forEach((v, i) => (acc[i] += v))
      }
    }
    if (round >= S1_WARMUP_ROUNDS) measured++
  }
  const runs = measured * S1_STREAM_REPS
  return { rounds: measured, means: new Map([...totals].map(([key, acc]) => [key, Array.from(acc, (ms) => (ms * 1000) / runs)])) }
}

// ---- report helpers ------------------------------------------------------------------------------

const sum = (xs) => xs.reduce((a, b) => a + b, 0)
const geomean = (xs) => Math.exp(sum(xs.map(Math.log)) / xs.length)
const bodyId = (corpusKey, i, chunking) => `${corpusKey}/${i}/${chunking}`

// ---- scenario 1 ----------------------------------------------------------------------------------

async function scenario1(corpora, libs) {
  const summary = []
  const toolwire = libs.find((l) => l.key === 'toolwire')
  const floor = libs.find((l) => l.key === 'floor')
  for (const corpus of corpora) {
    const checked = libs.filter((l) => !l.reference && !l.extraOf && l.wires.includes(corpus.key))
    const absent = libs.filter((l) => !l.reference && !l.extraOf && !l.wires.includes(corpus.key)).map((l) => l.label)
    const all = corpus.streams.map((_, i) => i)

    // correctness, once per library, stream and chunking, outside the clock
    const verdicts = new Map()
    for (const lib of checked) {
      const v = []
      for (let i = 0; i < corpus.streams.length; i++) {
        const stream = corpus.streams[i]
        const path = [corpus.key, 'final']
        const perEvent = verdictOf(stream, await lib.call('run', { body: bodyId(corpus.key, i, 'event'), path }))
        const whole = verdictOf(stream, await lib.call('run', { body: bodyId(corpus.key, i, 'whole'), path }))
        if (perEvent.right && !whole.right) v.push({ right: false, reason: `whole-body chunking: ${whole.reason}` })
        else if (perEvent.right && whole.reading !== perEvent.reading) v.push({ right: false, reason: 'per-event and whole-body chunking gave different calls' })
        else v.push(perEvent)
      }
      verdicts.set(lib.key, v)
    }

    console.log(`## ${corpus.label}: ${corpus.streams.length} streams from ${corpus.folders.join(' + ')} (${sum(corpus.streams.map((s) => s.events))} SSE events, ${fmt(sum(corpus.streams.map((s) => s.bytes)) / 1024, 1)} KiB)`)
    if (corpus.skipped.length) console.log(`   not in expected.json, skipped: ${corpus.skipped.join(', ')}`)
    if (corpus.note) console.log(`   ${corpus.note}`)
    if (absent.length) console.log(`   no run for: ${absent.join(', ')} (no client for this API among the peers)`)
    const disputed = corpus.streams.filter((s) => s.alternative)
    if (disputed.length) {
      console.log(
        `   ${disputed.length} disputed streams (${disputed[0].name.replace(/#\d+$/, '')} #${disputed.map((s) => s.name.split('#')[1]).join(',')}): ` +
          'expected.json lists no calls, but each carries a whole tool_use in message_start.message.content (as the note on that ' +
          'entry says); both readings count as right',
      )
    }
    console.log()
    console.log('Streams right (final calls = expected.json: ids, names, arguments as parsed JSON; truncated arguments as exact text):')
    for (const lib of checked) {
      const v = verdicts.get(lib.key)
      const wrong = corpus.streams.map((s, i) => [s, v[i]]).filter(([, x]) => !x.right)
      const readings = disputed.length
        ? ` (disputed: ${v.filter((x) => x.reading === 'message_start').length} with the message_start calls, ${v.filter((x) => x.reading === 'expected.json').length} with none)`
        : ''
      console.log(`  ${lib.label.padEnd(26)} ${v.filter((x) => x.right).length}/${corpus.streams.length}${readings}`)
      for (const [s, x] of wrong) console.log(`      wrong: ${s.name}: ${x.reason}`)
    }
    console.log()

    const rightIdx = (key) => all.filter((i) => verdicts.get(key)[i].right)
    const allRight = all.filter((i) => checked.every((l) => verdicts.get(l.key)[i].right))
    const twRight = toolwire && verdicts.has('toolwire') ? rightIdx('toolwire') : []

    const parts = []
    for (const chunking of ['event', 'whole']) {
      const entries = [...checked.map((lib) => ({ lib, idx: rightIdx(lib.key) })), ...(floor ? [{ lib: floor, idx: all }] : [])].map((e) => ({
        ...e,
        ids: e.idx.map((i) => bodyId(corpus.key, i, chunking)),
      }))
      const t0 = performance.now()
      const { rounds, means } = await measureCorpus(entries, corpus.key)
      const elapsed = (performance.now() - t0) / 1000
      // µs per stream index, per library (undefined where the library was not timed)
      const at = new Map(
        entries.map((e) => {
          const arr = new Array(corpus.streams.length)
          e.idx.forEach((i, j) => (arr[i] = means.get(e.lib.key)[j]))
          return [e.lib.key, arr]
        }),
      )
      const rows = []
      const ratios = []
      const hasTw = twRight.length > 0
      for (const lib of checked) {
        const mine = at.get(lib.key)
        const idx = rightIdx(lib.key)
        const row = [
          lib.label,
          `${idx.length}/${corpus.streams.length}`,
          idx.length ? fmt(sum(idx.map((i) => mine[i])) / idx.length) : '-',
          allRight.length ? fmt(sum(allRight.map((i) => mine[i]))) : '-',
        ]
        if (hasTw) {
          const common = idx.filter((i) => twRight.includes(i))
          if (lib.key === 'toolwire') row.push('-', '1.00x', '1.00x')
          else if (common.length === 0) row.push('0', '-', '-')
          else {
            const ratio = sum(common.map((i) => mine[i])) / sum(common.map((i) => at.get('toolwire')[i]))
            const gm = geomean(common.map((i) => mine[i] / at.get('toolwire')[i]))
            ratios.push({ label: lib.label, ratio, gm, n: common.length })
            row.push(String(common.length), `${fmt(ratio)}x`, `${fmt(gm)}x`)
          }
        }
        rows.push(row)
      }
      if (floor) {
        const f = at.get('floor')
        rows.push([floor.label, '-', fmt(sum(f) / f.length), allRight.length ? fmt(sum(allRight.map((i) => f[i]))) : '-', ...(hasTw ? ['-', '-', '-'] : [])])
      }
      const header = ['library', 'right', 'us/stream (its right ones)', `us, the ${allRight.length} streams all got right`]
      if (hasTw) header.push('streams both right', 'peer/toolwire (sum)', 'geomean of ratios')
      const shape = chunking === 'event' ? 'one network chunk per SSE event' : 'whole body as one chunk'
      console.log(`${corpus.label}, ${shape}: mean us per stream (${rounds} rounds x ${S1_STREAM_REPS} runs after ${S1_WARMUP_ROUNDS} warm-up rounds; ${fmt(elapsed, 1)} s)`)
      console.log(table(header, rows))
      const tag = chunking === 'event' ? 'per-event chunks' : 'one chunk'
      if (hasTw && ratios.length) {
        const fastest = ratios.reduce((a, b) => (b.ratio < a.ratio ? b : a))
        console.log(`toolwire vs the fastest peer: ${fmt(fastest.ratio)}x (${fastest.label} takes ${fmt(fastest.ratio)}x toolwire's time on the ${fastest.n} streams both got right)`)
        parts.push(`${fmt(fastest.ratio)}x ${tag} (${fastest.label})`)
      } else if (allRight.length) {
        const best = checked.map((l) => [l, sum(allRight.map((i) => at.get(l.key)[i]))]).sort((a, b) => a[1] - b[1])[0]
        parts.push(`${tag}: no toolwire figures, fastest peer ${best[0].label}`)
      }
      console.log()
    }
    summary.push(`${corpus.label} ${parts.join(', ')}`)
  }
  return `the fastest peer's time / toolwire's, on the streams both got right: ${summary.join('; ')}`
}

// ---- scenario 2 ----------------------------------------------------------------------------------

async function scenario2(libs, growth) {
  const summary = new Map() // library label -> { chat, anthropic } growth text
  const hasTw = libs.some((l) => l.key === 'toolwire')
  for (const wire of ['chat', 'anthropic']) {
    const runLibs = libs.filter((l) => l.wires.includes(wire))
    const us = new Map(runLibs.map((l) => [l.key, new Map()])) // kb -> µs per run (measured)
    const est = new Map(runLibs.map((l) => [l.key, new Map()])) // kb -> µs per run (estimated, not run)
    const runs = new Map(runLibs.map((l) => [l.key, new Map()]))
    const previews = new Map(runLibs.map((l) => [l.key, new Map()]))
    const wrong = new Map(runLibs.map((l) => [l.key, []]))
    const pathOf = (lib) => [...lib.prefix, wire, 'preview']
    const t0 = performance.now()
    for (const kb of S2_RUN_SIZES_KB) {
      const id = `growth/${wire}/${kb}`
      const expected = growth.get(kb)[wire].expected
      const quota = new Map()
      const acc = new Map()
      for (const lib of runLibs) {
        quota.set(lib.key, 0)
        acc.set(lib.key, 0)
        if (wrong.get(lib.key).length) continue
        const predicted = predictUs(us.get(lib.key), est.get(lib.key), kb)
        if (predicted > S2_RUN_CAP_S * 1e6) {
          est.get(lib.key).set(kb, predicted)
          continue
        }
        // one checked run, which also tells how many runs fit the budget
        const outcome = await lib.call('run', { body: id, path: pathOf(lib) })
        const reason = lib.reference ? '' : judge(expected, outcome)
        previews.get(lib.key).set(kb, outcome.previews ?? 0)
        if (reason) {
          wrong.get(lib.key).push(`${kb} KB: ${reason}`)
          continue
        }
        const q = Math.min(S2_MAX_RUNS[kb], Math.floor(S2_BUDGET_MS[kb] / outcome.ms))
        if (q <= 1) {
          // too slow for more than one run: the checked run is the figure (its code is warm from the smaller sizes)
          acc.set(lib.key, outcome.ms)
          runs.get(lib.key).set(kb, 1)
        } else quota.set(lib.key, q)
      }
      // interleaved rounds, rotating the order; a library drops out when it has done its quota
      const rounds = Math.max(0, ...quota.values())
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < runLibs.length; k++) {
          const lib = runLibs[(k + round) % runLibs.length]
          if (round >= quota.get(lib.key)) continue
          const [ms] = await lib.call('time', { bodies: [id], path: pathOf(lib), reps: 1 })
          acc.set(lib.key, acc.get(lib.key) + ms)
        }
      }
      for (const lib of runLibs) {
        if (quota.get(lib.key) > 0) runs.get(lib.key).set(kb, quota.get(lib.key))
        if (runs.get(lib.key).has(kb)) us.get(lib.key).set(kb, (acc.get(lib.key) * 1000) / runs.get(lib.key).get(kb))
      }
    }
    const elapsed = (performance.now() - t0) / 1000

    const deltas = S2_SIZES_KB.map((kb) => growth.get(kb).deltas)
    const title = wire === 'chat' ? 'Chat Completions' : 'Anthropic Messages'
    console.log(
      `## Growth, ${title}: one call, {"content":"..."} in ${S2_DELTA}-character argument deltas (${deltas.join(' / ')} deltas), ` +
        `one chunk per SSE event, previews on (${fmt(elapsed, 1)} s)`,
    )
    const last = S2_SIZES_KB[S2_SIZES_KB.length - 1]
    const value = (key, kb) => us.get(key).get(kb) ?? est.get(key).get(kb)
    const cell = (key, kb) => {
      if (us.get(key).has(kb)) return `${fmt(us.get(key).get(kb) / 1000)} (${runs.get(key).get(kb)})`
      if (est.get(key).has(kb)) return `~${fmt(est.get(key).get(kb) / 1000, 0)} est.`
      return 'wrong'
    }
    const growthOf = (key) => {
      const a = value(key, S2_SIZES_KB[0])
      const b = value(key, last)
      if (a === undefined || b === undefined) return null
      return { g: b / a, estimated: !us.get(key).has(last) || !us.get(key).has(S2_SIZES_KB[0]) }
    }
    const twLast = us.get('toolwire')?.get(last)
    const rows = runLibs.map((lib) => {
      const g = growthOf(lib.key)
      const v = value(lib.key, last)
      const row = [
        lib.label,
        ...S2_SIZES_KB.map((kb) => cell(lib.key, kb)),
        g ? `${g.estimated ? '~' : ''}${fmt(g.g, 1)}x${g.estimated ? ' est.' : ''}` : '-',
        String(previews.get(lib.key).get(S2_SIZES_KB[0]) ?? '-'),
      ]
      if (hasTw) row.push(lib.key === 'toolwire' || lib.reference || v === undefined || twLast === undefined ? '-' : `${est.get(lib.key).has(last) ? '~' : ''}${fmt(v / twLast, 1)}x`)
      return row
    })
    const header = ['library', ...S2_SIZES_KB.map((kb) => `${kb} KB ms (runs)`), `growth ${last}/${S2_SIZES_KB[0]}`, `previews at ${S2_SIZES_KB[0]} KB`]
    if (hasTw) header.push(`${last} KB vs toolwire`)
    console.log(table(header, rows))
    for (const lib of runLibs) for (const n of wrong.get(lib.key)) console.log(`  ${lib.label}: wrong at ${n}`)
    const skipped = runLibs.filter((l) => est.get(l.key).size > 0)
    console.log(
      `  (growth about 16x = linear in the content size, about 256x = quadratic; previews = preview events or callbacks per run` +
        (skipped.length
          ? `; "est." = not run, as one run was predicted to take over ${S2_RUN_CAP_S} s: extrapolated with t = a*n + b*n^2 ` +
            `through the two largest sizes it ran, a ${S2_PROBE_KB} KB probe included; such estimates have come out 5-25% low ` +
            `(DECODE_S2_CAP_S=<s> runs them)`
          : '') +
        ')',
    )
    console.log()
    for (const lib of runLibs.filter((l) => !l.reference)) {
      const g = growthOf(lib.key)
      if (!summary.has(lib.label)) summary.set(lib.label, {})
      summary.get(lib.label)[wire] = g ? `${g.estimated ? '~' : ''}${fmt(g.g, 1)}x${g.estimated ? ' est.' : ''}` : 'wrong'
    }
  }
  const growthText = [...summary].map(([label, g]) => `${label} ${g.chat ?? '-'} / ${g.anthropic ?? '-'}`).join(', ')
  return `growth ${S2_SIZES_KB[S2_SIZES_KB.length - 1]}/${S2_SIZES_KB[0]} KB with previews on (Chat / Anthropic): ${growthText}`
}

/**
 * The predicted µs of one run at `kb`, from the sizes before it: the fit t = a*n + b*n^2 (a, b >= 0)
 * through the two largest sizes run (or estimated) before, i.e. a linear part plus a quadratic part
 * such as re-parsing the whole argument text on every delta; with only one size known, t ~ n^2.
 * (For the skip decision; an estimate feeds the next one, so it rests on the sizes measured last.)
 */
function predictUs(measured, estimated, kb) {
  const known = S2_RUN_SIZES_KB.filter((k) => k < kb)
    .map((k) => [k, measured.get(k) ?? estimated.get(k)])
    .filter(([, v]) => v !== undefined)
  if (known.length === 0) return 0
  const [n2, t2] = known[known.length - 1]
  if (known.length === 1) return t2 * (kb / n2) ** 2
  const [n1, t1] = known[known.length - 2]
  let b = (t2 - t1 * (n2 / n1)) / (n2 * n2 - n1 * n2)
  let a
  if (b <= 0) {
    b = 0
    a = t2 / n2
  } else {
    a = Math.max(0, (t2 - b * n2 * n2) / n2)
  }
  return a * kb + b * kb * kb
}

// ---- main ----------------------------------------------------------------------------------------

const started = performance.now()
const corpora = CORPORA.map(loadCorpus)
const growth = new Map(S2_RUN_SIZES_KB.map((kb) => [kb, growthBodies(kb)]))
const toolNames = [...new Set([...corpora.flatMap((c) => c.streams.flatMap((s) => s.expected.map((t) => t.name))), 'write_file'])]
const { libs, missing, workers } = await startLibraries(toolNames)

// every worker gets the bodies of the APIs it runs (the same bytes, chunked the same way)
for (const lib of libs.filter((l) => !l.extraOf)) {
  const bodies = []
  for (const corpus of corpora) {
    if (!lib.wires.includes(corpus.key)) continue
    corpus.streams.forEach((s, i) => {
      bodies.push([bodyId(corpus.key, i, 'event'), s.chunks.event])
      bodies.push([bodyId(corpus.key, i, 'whole'), s.chunks.whole])
    })
  }
  for (const [kb, g] of growth) for (const wire of lib.wires) bodies.push([`growth/${wire}/${kb}`, g[wire].chunks])
  await lib.call('bodies', { bodies })
}

console.log('toolwire decode benchmark: bytes to final tool calls')
for (const line of machineLines()) console.log(line)
const tw = libs.find((l) => l.key === 'toolwire')
console.log(`toolwire: ${tw ? 'StreamDecoder from index.js' : `MISSING (${missing.get('toolwire') ?? 'not loaded'}); peers only`}`)
for (const lib of libs.filter((l) => !l.reference && !l.extraOf && l.key !== 'toolwire')) {
  console.log(`peer:    ${lib.versions} -- ${lib.api}`)
  if (lib.note) console.log(`         note: ${lib.note}`)
}
for (const [key, reason] of missing) if (key !== 'toolwire') console.log(`peer:    ${key} NOT RUN: ${reason}`)
console.log(`fixtures: ${FIXTURES}${existsSync(FIXTURES) ? '' : ' (NOT FOUND)'}`)
console.log(
  `each library in its own worker thread, no forced GC; ` +
    `load average at start: ${os.loadavg().map((x) => fmt(x)).join(' ')}`,
)
console.log()

const summary1 = await scenario1(corpora, libs)
const summary2 = await scenario2(libs, growth)

console.log('Summary:')
console.log(`  scenario 1: ${summary1}`)
console.log(`  scenario 2: ${summary2}`)
console.log(`total time: ${fmt((performance.now() - started) / 1000, 1)} s; load average at end: ${os.loadavg().map((x) => fmt(x)).join(' ')}`)
for (const w of workers) w.worker.removeAllListeners('exit')
await Promise.all(workers.map((w) => w.worker.terminate()))
