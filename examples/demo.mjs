// The toolwire demo: register a few tools, dispatch one batch of model tool calls (good ones and
// the kinds of bad ones models really send), and print the events and the results.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { ToolRuntime, toToolResultMessage } = require('../index.js')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const runtime = new ToolRuntime({ concurrency: 4, timeoutMs: 2_000 })

runtime.register({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] } },
    required: ['city'],
    additionalProperties: false,
  },
  async execute(_id, { city, unit = 'c' }, _signal, onUpdate) {
    onUpdate?.({ status: `looking up ${city}` })
    await sleep(40)
    const temperature = unit === 'c' ? 21 : 70
    return { content: [{ type: 'text', text: `${city}: ${temperature}°${unit.toUpperCase()}, clear` }], details: { city, temperature } }
  },
})

runtime.register({
  name: 'edit_file',
  description: 'Replace the contents of a file',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
  },
  // Two edits of one file never overlap, and run in the order the model asked for them.
  concurrencyKey: ({ path }) => path,
  async execute(_id, { path, content }) {
    await sleep(20)
    return `wrote ${content.length} characters to ${path}`
  },
})

runtime.register({
  name: 'slow_search',
  description: 'A search that hangs',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
  timeoutMs: 100,
  execute: (_id, _params, signal) =>
    new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
})

const calls = [
  { id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' },
  { id: 'call_2', name: 'edit_file', arguments: '{"path":"notes.md","content":"first"}' },
  { id: 'call_3', name: 'edit_file', arguments: { path: 'notes.md', content: 'second' } },
  { id: 'call_4', name: 'get_wether', arguments: '{"city":"Oslo"}' },
  { id: 'call_5', name: 'get_weather', arguments: '{"city": "Par' },
  { id: 'call_6', name: 'get_weather', arguments: '{"town":"Rome"}' },
  { id: 'call_7', name: 'slow_search', arguments: '' },
]

console.log(`Dispatching ${calls.length} calls to ${runtime.list().map((t) => t.name).join(', ')}\n`)
const started = performance.now()
const results = await runtime.dispatch(calls, {
  onEvent(event) {
    const detail =
      event.type === 'tool_execution_start'
        ? JSON.stringify(event.args)
        : event.type === 'tool_execution_update'
          ? JSON.stringify(event.partialResult)
          : event.result.status
    console.log(`  event ${event.type.padEnd(22)} ${event.toolCallId}  ${detail}`)
  },
})

console.log(`\nResults, in the order of the calls (${(performance.now() - started).toFixed(0)} ms):\n`)
for (const result of results) {
  const head = `${result.callId}  ${result.tool.padEnd(12)} ${result.status.padEnd(8)}${result.error ? ` ${result.error.code}` : ''}`
  console.log(head)
  const text = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ')
  console.log(`    ${text.replaceAll('\n', '\n    ')}`)
}

console.log('\nAs a pi-agent-core tool result message:')
console.log(JSON.stringify(toToolResultMessage(results[0]), null, 2))
