// Whole-turn benchmark: one model turn's tool execution at 1, 16 and 256 calls, toolwire against
// each framework's own tool execution, and toolwire's adapters inside those frameworks.
//
//   node bench/turn.mjs                (part of npm run bench)
//   node bench/turn.mjs --calls 16     (one size; --rounds R sets the measured rounds)
//
// One 10-property schema and arguments (bench/dispatch.mjs's), 16 trivial tools, call i to tool
// t(i % 16). Contenders (bench/peers/turn-*.mjs), each on its idiomatic validating path:
// - toolwire: `dispatch` of the N calls, then `encodeResults` for the next request (openai-chat,
//   anthropic);
// - pi-agent-core's agent loop, the AI SDK's generateText and the OpenAI Agents SDK's Runner, each
//   with a mock model answering N calls then text: their tool step is the run's time minus twice
//   the same run with no calls (one mock round, listed: the two rounds' fixed cost, model mock,
//   request building and tool schemas, goes; what grows with N stays). That step thus holds the
//   framework's reading of the N calls, their execution and the second request carrying the N
//   results (what encodeResults does for toolwire);
// - LangGraph's ToolNode on an AIMessage of N tool_calls (no model: it is the tool step).
// Adapters: pi with toPiTools, the AI SDK with toAiSdkTools, toolwire's createToolNode, against
// the framework alone.
//
// Per size, the contenders' samples are interleaved round by round (a full GC before each sample);
// a sample times sequential turns for about 25 ms (the count fixed per contender from its first
// turns), the figure is the median over measured rounds in microseconds per turn. Every sample's last result is checked (all N calls answered, none failed)
// after the clock stops.

import { performance } from 'node:perf_hooks'
import { collectGarbage, fmt, machineLines, median, table } from './lib.mjs'
import { benchRuntime, createToolwireTurn } from './peers/turn-toolwire.mjs'
import { argumentsText, turnCalls } from './peers/tools.mjs'
import { createPiTurn } from './peers/turn-pi-agent.mjs'
import { createLangGraphTurn } from './peers/turn-langgraph.mjs'
import { createAiSdkTurn } from './peers/turn-ai-sdk.mjs'
import { createOpenAiAgentsTurn } from './peers/turn-openai-agents.mjs'
import { packageVersion } from './peers/mock-fetch.mjs'

const argv = process.argv.slice(2)
const option = (name, fallback) => {
  const at = argv.indexOf(name)
  return at >= 0 && at + 1 < argv.length ? argv[at + 1] : fallback
}
const SIZES = option('--calls', '1,16,256').split(',').map(Number)
const WARMUP_ROUNDS = 2
const MEASURED_ROUNDS = Number(option('--rounds', '11'))
/** A sample runs turns for about this long (the number of turns is set per contender). */
const SAMPLE_MS = 25
/** A turn slower than this (us) is timed one at a time, in SLOW_ROUNDS measured samples only. */
const SLOW_US = 200_000
const SLOW_ROUNDS = 3

/** The contenders at `n` calls: key, label, the turn, and the key of the baseline to subtract. */
function contenders(n) {
  return [
    { key: 'tw-chat', label: 'toolwire dispatch + encodeResults (openai-chat)', turn: createToolwireTurn(n, 'openai-chat') },
    { key: 'tw-anthropic', label: 'toolwire dispatch + encodeResults (anthropic)', turn: createToolwireTurn(n, 'anthropic') },
    { key: 'pi', label: 'pi-agent-core agent loop', turn: createPiTurn(n), base: 'pi-0' },
    { key: 'pi-0', label: '  (pi mock round, no calls)', turn: createPiTurn(0) },
    { key: 'pi-tw', label: 'pi-agent-core + toPiTools', turn: createPiTurn(n, { adapter: true }), base: 'pi-0' },
    { key: 'lg', label: 'LangGraph ToolNode', turn: createLangGraphTurn(n) },
    { key: 'lg-tw', label: 'toolwire createToolNode', turn: createLangGraphTurn(n, { adapter: true }) },
    { key: 'ai', label: 'AI SDK generateText', turn: createAiSdkTurn(n), base: 'ai-0' },
    { key: 'ai-0', label: '  (AI SDK mock step, no calls)', turn: createAiSdkTurn(0) },
    { key: 'ai-tw', label: 'AI SDK + toAiSdkTools', turn: createAiSdkTurn(n, { adapter: true }), base: 'ai-0' },
    { key: 'oa', label: 'OpenAI Agents Runner', turn: createOpenAiAgentsTurn(n), base: 'oa-0' },
    { key: 'oa-0', label: '  (Agents mock turn, no calls)', turn: createOpenAiAgentsTurn(0) },
  ]
}

/** A figure, or `noise` where the subtraction left nothing positive. */
const shown = (value, digits = 1) => (Number.isFinite(value) ? fmt(value, digits) : 'noise')
const ratio = (a, b) => (Number.isFinite(a / b) ? `${fmt(a / b)}x` : 'n/a')

/** One sample: microseconds per turn over `iterations` sequential turns. */
async function sample(turn, iterations) {
  if (collectGarbage !== undefined) collectGarbage()
  let out
  const t0 = performance.now()
  for (let i = 0; i < iterations; i++) out = await turn.run()
  const t1 = performance.now()
  turn.check(out)
  return ((t1 - t0) * 1000) / iterations
}

/** Turns per sample for `turn`: as many as take about SAMPLE_MS, from the time of a few. */
async function calibrate(turn) {
  const once = await sample(turn, 1)
  if (once > SLOW_US) return 1
  await sample(turn, 2)
  const us = await sample(turn, 5)
  return Math.min(5000, Math.max(1, Math.round((SAMPLE_MS * 1000) / us)))
}

async function measure(n) {
  const list = contenders(n)
  for (const c of list) c.iterations = await calibrate(c.turn)
  const samples = new Map(list.map((c) => [c.key, []]))
  for (let round = 0; round < WARMUP_ROUNDS + MEASURED_ROUNDS; round++) {
    for (const c of list) {
      // a contender slower than SLOW_US a turn gets SLOW_ROUNDS measured samples, not more
      if (c.iterations === 1 && round >= WARMUP_ROUNDS + SLOW_ROUNDS) continue
      const us = await sample(c.turn, c.iterations)
      if (round >= WARMUP_ROUNDS) samples.get(c.key).push(us)
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  const med = new Map([...samples].map(([k, v]) => [k, median(v)]))
  // the tool step: the run minus its two mock rounds (NaN when noise makes that not positive)
  const step = (key) => {
    const c = list.find((x) => x.key === key)
    if (c.base === undefined) return med.get(key)
    const left = med.get(key) - 2 * med.get(c.base)
    return left > 0 ? left : NaN
  }
  return { list, samples, med, step }
}

function report(n, { list, samples, med, step }) {
  console.log(`${n} call${n === 1 ? '' : 's'} per turn (median of ${MEASURED_ROUNDS} samples of about ${SAMPLE_MS} ms, ${SLOW_ROUNDS} samples of one turn for a turn over ${SLOW_US / 1000} ms; us per turn)`)
  const rows = list.map((c) => {
    const sorted = [...samples.get(c.key)].sort((x, y) => x - y)
    return [c.label, String(c.iterations), fmt(med.get(c.key), 1), `${fmt(sorted[0], 1)}-${fmt(sorted[sorted.length - 1], 1)}`, c.key.endsWith('-0') ? '-' : shown(step(c.key))]
  })
  console.log(table(['contender', 'turns/sample', 'us/turn', 'min-max', 'tool step'], rows))
  const peers = [
    ['pi-agent-core', 'pi'],
    ['LangGraph ToolNode', 'lg'],
    ['AI SDK', 'ai'],
    ['OpenAI Agents', 'oa'],
  ]
  const measured = peers.filter((p) => Number.isFinite(step(p[1])))
  const fastest = measured.length === 0 ? peers[0] : measured.reduce((best, p) => (step(p[1]) < step(best[1]) ? p : best))
  const ratioRows = peers.map(([label, key]) => [
    `${label}${key === fastest[1] ? ' (fastest)' : ''}`,
    shown(step(key)),
    ratio(med.get('tw-chat'), step(key)),
    ratio(med.get('tw-anthropic'), step(key)),
  ])
  console.log()
  console.log(table(['peer tool step', 'us', 'toolwire turn / peer (chat)', '(anthropic)'], ratioRows))
  const adapterRows = [
    ['pi-agent-core + toPiTools', 'pi-tw', 'pi'],
    ['AI SDK + toAiSdkTools', 'ai-tw', 'ai'],
    ['createToolNode / ToolNode', 'lg-tw', 'lg'],
  ].map(([label, key, alone]) => [label, ratio(med.get(key), med.get(alone)), ratio(step(key), step(alone))])
  console.log()
  console.log(table(['adapter / framework alone', 'whole run', 'tool step'], adapterRows))
  const turnRatio = Math.max(med.get('tw-chat'), med.get('tw-anthropic')) / step(fastest[1])
  const aim = n === 1 ? turnRatio < 1 : turnRatio <= 1 / 3
  console.log()
  console.log(`Aims at ${n}: whole turn ${n === 1 ? '< 1x' : '<= 0.33x'} the fastest framework's tool step (${fastest[0]}): ${ratio(turnRatio, 1)} -> ${aim ? 'met' : 'NOT met'}; ` +
    `adapters <= 1.00x alone: pi ${ratio(med.get('pi-tw'), med.get('pi'))}, AI SDK ${ratio(med.get('ai-tw'), med.get('ai'))}; ` +
    `createToolNode <= 0.2x ToolNode: ${ratio(med.get('lg-tw'), med.get('lg'))}`)
  console.log()
}

/**
 * encodeResults alone: microseconds per result for the `n` results of one dispatch, per wire (the
 * median of 11 samples of about SAMPLE_MS each).
 */
async function measureEncode(n) {
  const rt = benchRuntime()
  const results = await rt.dispatch(turnCalls(n).map((c) => ({ ...c, arguments: argumentsText })))
  const row = [String(n)]
  for (const wire of ['openai-chat', 'anthropic']) {
    const repeat = Math.max(1, Math.round(2000 / n))
    for (let i = 0; i < repeat; i++) rt.encodeResults(results, wire)
    const samples = []
    for (let round = 0; round < 11; round++) {
      const t0 = performance.now()
      for (let i = 0; i < repeat; i++) rt.encodeResults(results, wire)
      samples.push(((performance.now() - t0) * 1000) / repeat / n)
    }
    row.push(fmt(median(samples), 3))
  }
  return row
}

const started = performance.now()
console.log('toolwire whole-turn benchmark')
for (const line of machineLines()) console.log(line)
const versions = ['@mariozechner/pi-agent-core', '@langchain/langgraph', '@langchain/core', 'ai', '@openai/agents', 'zod'].map((name) => `${name} ${packageVersion(name)}`)
console.log(`peers:   ${versions.join(', ')}`)
console.log(`setup:   16 tools, 10-property schema, trivial tools; ${WARMUP_ROUNDS} warm-up + ${MEASURED_ROUNDS} measured samples per contender (interleaved); full GC before each sample: ${collectGarbage !== undefined ? 'yes' : 'no'}`)
console.log()
for (const n of SIZES) report(n, await measure(n))
const encodeRows = []
for (const n of SIZES) encodeRows.push(await measureEncode(n))
console.log('encodeResults alone, the results of one dispatch (us per result; aim <= 1)')
console.log(table(['results', 'openai-chat', 'anthropic'], encodeRows))
console.log()
console.log(`total time: ${fmt((performance.now() - started) / 1000, 1)} s`)
