// Writes an audit log for as long as it lives: batches of calls under one runId, flushing every
// record. The audit test kills it with SIGKILL in the middle and reads what it left.
'use strict'
const { ToolRuntime } = require('../../dist/index.js')

async function main(dir) {
  const runtime = new ToolRuntime({ audit: { dir, flushIntervalMs: 0 } })
  runtime.register({
    name: 'work',
    parameters: { type: 'object', properties: { n: { type: 'number' } } },
    execute: async (_id, { n }) => ({ content: [{ type: 'text', text: `done ${n} `.repeat(50) }], details: { n } }),
  })
  for (let batch = 0; ; batch++) {
    const calls = Array.from({ length: 8 }, (_, i) => ({ id: `b${batch}c${i}`, name: 'work', arguments: JSON.stringify({ n: batch * 8 + i }) }))
    await runtime.dispatch(calls, { runId: 'killed-run' })
    if (batch === 2) process.stdout.write('ready\n')
  }
}

main(process.argv[2])
