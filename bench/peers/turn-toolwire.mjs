// toolwire's whole turn: `dispatch` of the N calls (arguments as the model's JSON text), then
// `encodeResults` of the N results for the next request on one wire.

import { createRequire } from 'node:module'
import { schema, toolNames, turnCalls, argumentsText, expectLength } from './tools.mjs'

const require = createRequire(import.meta.url)
const { ToolRuntime } = require('../../dist/index.js')

/** A runtime with the 16 trivial tools, registered as users write them (an AbortSignal each). */
export function benchRuntime() {
  const rt = new ToolRuntime({ concurrency: 10_000 })
  for (const name of toolNames) {
    // eslint-disable-next-line no-unused-vars
    rt.register({ name, description: `trivial tool ${name}`, parameters: schema, execute: async (id, params, signal, onUpdate) => ({ content: [{ type: 'text', text: 'ok' }] }) })
  }
  return rt
}

/** One turn on `wire`: dispatch, then encodeResults. Resolves with the encoded messages. */
export function createToolwireTurn(n, wire) {
  const rt = benchRuntime()
  const calls = turnCalls(n).map((c) => ({ ...c, arguments: argumentsText }))
  return {
    run: async () => rt.encodeResults(await rt.dispatch(calls), wire),
    check: (messages) => {
      // openai-chat: one tool message per result; anthropic: one user message of n tool_result blocks
      if (wire === 'anthropic') expectLength('toolwire anthropic', messages[0].content, n)
      else expectLength(`toolwire ${wire}`, messages, n)
      for (const m of wire === 'anthropic' ? messages[0].content : messages) {
        const text = wire === 'anthropic' ? m.content : m.content
        if (JSON.stringify(text).includes('Error')) throw new Error(`toolwire ${wire}: a call failed: ${JSON.stringify(m)}`)
      }
    },
  }
}
