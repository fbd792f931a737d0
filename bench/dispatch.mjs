// Dispatch benchmark: toolwire's `dispatch` against plain-JS peers on the same trivial tools.
//
//   npm run bench        (node bench/dispatch.mjs)
//
// Batch scenarios dispatch 10,000 calls (16 tools, concurrency 10,000) and report the median
// per-call time over the measured runs; the runs of all batch scenarios are interleaved round by
// round so that drift of the machine affects each alike. Single-call scenarios await one call at a
// time and report p50/p99 latency. Every toolwire result is checked to be ok, so a run that fails
// its calls throws instead of being timed.

import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { collectGarbage, fmt, machineLines, median, percentile, table } from './lib.mjs'
import { schema, argumentsText } from './peers/tools.mjs'

const require = createRequire(import.meta.url)
const { ToolRuntime } = require('../dist/index.js')
const Ajv = require('ajv')

const TOOLS = 16
const CALLS = 10_000
const CONCURRENCY = 10_000
const WARMUP_ROUNDS = 5
const MEASURED_ROUNDS = 31
const SINGLE_WARMUP = 2_000
const SINGLE_CALLS = 5_000
const SINGLE_BLOCK = 250

// A full garbage collection runs before every timed batch, so that no run pays for the garbage the
// previous one left (each run still pays for the collections its own allocations cause).

// ---- setup ---------------------------------------------------------------------------------------

const calls = Array.from({ length: CALLS }, (_, i) => ({
  id: `call_${i}`,
  name: `t${i % TOOLS}`,
  arguments: argumentsText,
}))

// The same trivial tools, once registered with `signal: false` (no AbortSignal from toolwire) and
// once as they come (toolwire creates an AbortController per call, the default).
function twoParamTool() {
  return async (toolCallId, params) => ({ content: [{ type: 'text', text: 'ok' }] })
}
function fourParamTool() {
  // eslint-disable-next-line no-unused-vars
  return async (toolCallId, params, signal, onUpdate) => ({ content: [{ type: 'text', text: 'ok' }] })
}

const twoParamFns = new Map()
const fourParamFns = new Map()
for (let t = 0; t < TOOLS; t++) {
  twoParamFns.set(`t${t}`, twoParamTool())
  fourParamFns.set(`t${t}`, fourParamTool())
}

function runtimeWith(fns, signal) {
  const rt = new ToolRuntime({ concurrency: CONCURRENCY })
  for (const [name, execute] of fns) rt.register({ name, parameters: schema, execute, signal })
  return rt
}
const rtTwo = runtimeWith(twoParamFns, false)
const rtFour = runtimeWith(fourParamFns, undefined)

const ajv = new Ajv({ allErrors: true })
const validate = ajv.compile(schema)

// ---- the ways of running one call / a batch ------------------------------------------------------

/** (a) The floor: parse the arguments and call the function. */
function floorCall(call) {
  return twoParamFns.get(call.name)(call.id, JSON.parse(call.arguments))
}

/** (b) The plain-JS peer: parse, validate with the compiled ajv validator, call. */
function ajvCall(call) {
  const params = JSON.parse(call.arguments)
  if (!validate(params)) return Promise.reject(new Error(ajv.errorsText(validate.errors)))
  return twoParamFns.get(call.name)(call.id, params)
}

function checkPlain(results, n) {
  if (results.length !== n) throw new Error(`expected ${n} results, got ${results.length}`)
  for (const r of results) {
    if (r === null || typeof r !== 'object' || r.content[0].text !== 'ok') throw new Error('plain call returned a wrong value')
  }
}

function checkToolwire(results, n, label) {
  if (results.length !== n) throw new Error(`${label}: expected ${n} results, got ${results.length}`)
  for (let i = 0; i < results.length; i++) {
    const r = results[i]
    if (r === undefined || r.ok !== true || r.status !== 'ok') {
      throw new Error(`${label}: result ${i} is not ok: ${JSON.stringify(r)}`)
    }
  }
}

const batchScenarios = [
  {
    key: 'a',
    label: 'a. Promise.all, JSON.parse + call (floor)',
    run: () => Promise.all(calls.map(floorCall)),
    check: (results) => checkPlain(results, CALLS),
  },
  {
    key: 'b',
    label: 'b. Promise.all, JSON.parse + ajv + call (peer)',
    run: () => Promise.all(calls.map(ajvCall)),
    check: (results) => checkPlain(results, CALLS),
  },
  {
    key: 'c',
    label: 'c. toolwire dispatch, signal: false (no signal)',
    run: () => rtTwo.dispatch(calls),
    check: (results) => checkToolwire(results, CALLS, 'c'),
  },
  {
    key: 'd',
    label: 'd. toolwire dispatch, default (AbortSignal)',
    run: () => rtFour.dispatch(calls),
    check: (results) => checkToolwire(results, CALLS, 'd'),
  },
]

// ---- measuring ----------------------------------------------------------------------------------

/** One timed batch: microseconds per call. The result check runs after the clock stops. */
async function timeBatch(scenario) {
  if (collectGarbage !== undefined) collectGarbage()
  const t0 = performance.now()
  const results = await scenario.run()
  const t1 = performance.now()
  scenario.check(results)
  return ((t1 - t0) * 1000) / CALLS
}

async function measureBatches() {
  const samples = new Map(batchScenarios.map((s) => [s.key, []]))
  for (let round = 0; round < WARMUP_ROUNDS + MEASURED_ROUNDS; round++) {
    for (const scenario of batchScenarios) {
      const usPerCall = await timeBatch(scenario)
      if (round >= WARMUP_ROUNDS) samples.get(scenario.key).push(usPerCall)
    }
    // let timers, pending I/O and finalizers run between rounds
    await new Promise((resolve) => setImmediate(resolve))
  }
  return samples
}

/**
 * Sequential single calls, one awaited at a time, for every single-call scenario: blocks of
 * SINGLE_BLOCK calls per scenario in turn, so that drift of the machine affects each alike.
 * Returns each scenario's latencies in microseconds, ascending.
 */
async function measureSingles(scenarios) {
  for (const s of scenarios) {
    for (let i = 0; i < SINGLE_WARMUP; i++) s.check(await s.callOne(calls[i % CALLS]))
  }
  const latencies = scenarios.map(() => new Float64Array(SINGLE_CALLS))
  for (let start = 0; start < SINGLE_CALLS; start += SINGLE_BLOCK) {
    const end = Math.min(SINGLE_CALLS, start + SINGLE_BLOCK)
    for (let k = 0; k < scenarios.length; k++) {
      const { callOne, check } = scenarios[k]
      const out = latencies[k]
      for (let i = start; i < end; i++) {
        const call = calls[i % CALLS]
        const t0 = performance.now()
        const result = await callOne(call)
        out[i] = (performance.now() - t0) * 1000
        check(result)
      }
    }
  }
  return latencies.map((l) => l.sort())
}

const singleScenarios = [
  {
    label: 'toolwire dispatch([call]), signal: false',
    callOne: (call) => rtTwo.dispatch([call]),
    check: (results) => checkToolwire(results, 1, 'single dispatch'),
  },
  {
    label: 'toolwire dispatch([call]), default signal',
    callOne: (call) => rtFour.dispatch([call]),
    check: (results) => checkToolwire(results, 1, 'single dispatch (default signal)'),
  },
  {
    label: 'JSON.parse + ajv + call (peer b)',
    callOne: ajvCall,
    check: (result) => checkPlain([result], 1),
  },
  {
    label: 'JSON.parse + call (floor a)',
    callOne: floorCall,
    check: (result) => checkPlain([result], 1),
  },
]

// ---- report -------------------------------------------------------------------------------------

const started = performance.now()
console.log('toolwire dispatch benchmark')
for (const line of machineLines()) console.log(line)
console.log(
  `setup:   ${TOOLS} tools, 10-property schema, ${CALLS} calls per batch, concurrency ${CONCURRENCY}; ` +
    `${WARMUP_ROUNDS} warm-up + ${MEASURED_ROUNDS} measured runs per batch scenario (interleaved), median reported; ` +
    `full GC before each batch run: ${collectGarbage !== undefined ? 'yes' : 'no (gc unavailable)'}`,
)
console.log()

const samples = await measureBatches()
const med = new Map([...samples].map(([k, v]) => [k, median(v)]))
const floor = med.get('a')
const peer = med.get('b')
const rows = batchScenarios.map((s) => {
  const v = med.get(s.key)
  const sorted = [...samples.get(s.key)].sort((x, y) => x - y)
  return [
    s.label,
    fmt(v),
    `${fmt(sorted[0])}-${fmt(sorted[sorted.length - 1])}`,
    s.key === 'a' ? '-' : `${v - floor >= 0 ? '+' : ''}${fmt(v - floor)}`,
    `${fmt(v / peer)}x`,
  ]
})
console.log(`Batch of ${CALLS} calls (us per call)`)
console.log(table(['scenario', 'us/call (median)', 'min-max', 'overhead vs a', 'vs b (ajv peer)'], rows))
console.log()

const singleLatencies = await measureSingles(singleScenarios)
const singleRows = singleLatencies.map((lat, k) => [
  singleScenarios[k].label,
  fmt(percentile(lat, 50)),
  fmt(percentile(lat, 99)),
  fmt(lat[lat.length - 1], 1),
])
console.log(
  `Single calls, one at a time (${SINGLE_CALLS} sequential awaits per path after ${SINGLE_WARMUP} warm-up, ` +
    `interleaved in blocks of ${SINGLE_BLOCK}; latency in us)`,
)
console.log(table(['path', 'p50', 'p99', 'max'], singleRows))
console.log()

const overheadC = med.get('c') - floor
const overheadD = med.get('d') - floor
const singleP50 = percentile(singleLatencies[0], 50)
const singleP50Four = percentile(singleLatencies[1], 50)
const verdict = (ok) => (ok ? 'met' : 'NOT met')
console.log('Aims:')
console.log(`  batch overhead per call <= 2 us: c ${fmt(overheadC)} us -> ${verdict(overheadC <= 2)}; d ${fmt(overheadD)} us -> ${verdict(overheadD <= 2)}`)
console.log(`  single-call p50 < 50 us:         signal: false ${fmt(singleP50)} us -> ${verdict(singleP50 < 50)}; default ${fmt(singleP50Four)} us -> ${verdict(singleP50Four < 50)}`)
console.log(`total time: ${fmt((performance.now() - started) / 1000, 1)} s`)
