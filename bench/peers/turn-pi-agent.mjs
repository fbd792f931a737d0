// Peer: @mariozechner/pi-agent-core's agent loop (`runAgentLoop`), its default parallel tool
// execution. A mock stream function answers the first request with one assistant message of N tool
// calls and the second (which carries the N tool results) with a stop. The same loop with N = 0
// is one mock round and no tools: bench/turn.mjs subtracts it.
//
// pi validates each call's arguments against the tool's `parameters` (JSON Schema, compiled by
// typebox) before `execute`, always: that is its validating path.

import { createRequire } from 'node:module'
import { runAgentLoop } from '@mariozechner/pi-agent-core'
import { createAssistantMessageEventStream } from '@mariozechner/pi-ai'
import { schema, toolNames, turnCalls, args, okResult, expectLength } from './tools.mjs'
import { benchRuntime } from './turn-toolwire.mjs'

const require = createRequire(import.meta.url)
const { toPiTools } = require('../../dist/adapters/pi.js')

const model = { id: 'mock', name: 'mock', api: 'mock', provider: 'mock', baseUrl: '', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1e6, maxTokens: 1e5 }
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }

function assistant(content, stopReason) {
  return { role: 'assistant', content, api: 'mock', provider: 'mock', model: 'mock', usage, stopReason, timestamp: 0 }
}

/** pi's own tools: trivial AgentTools with the JSON Schema parameters. */
function piTools() {
  // eslint-disable-next-line no-unused-vars
  return toolNames.map((name) => ({ name, label: name, description: `trivial tool ${name}`, parameters: schema, execute: async (id, params, signal, onUpdate) => okResult() }))
}

/**
 * One agent-loop run whose first answer carries `n` calls; `adapter` runs the tools through
 * toolwire's `toPiTools` instead of pi's own.
 */
export function createPiTurn(n, { adapter = false } = {}) {
  const tools = adapter ? toPiTools(benchRuntime()) : piTools()
  const calls = turnCalls(n).map((c) => ({ type: 'toolCall', id: c.id, name: c.name, arguments: args }))
  const first = assistant(calls, 'toolUse')
  const last = assistant([{ type: 'text', text: 'done' }], 'stop')
  const streamFn = (_model, context) => {
    const stream = createAssistantMessageEventStream()
    const answered = context.messages[context.messages.length - 1].role === 'toolResult'
    const message = n === 0 || answered ? last : first
    stream.push({ type: 'done', reason: message.stopReason, message })
    stream.end()
    return stream
  }
  const config = { model, convertToLlm: (messages) => messages }
  const prompt = [{ role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: 0 }]
  const emit = async () => {}
  return {
    run: () => runAgentLoop(prompt, { systemPrompt: '', messages: [], tools }, config, emit, undefined, streamFn),
    check: (messages) => {
      const results = messages.filter((m) => m.role === 'toolResult')
      expectLength(`pi${adapter ? ' + toPiTools' : ''}`, results, n)
      for (const r of results) if (r.isError) throw new Error(`pi: a call failed: ${JSON.stringify(r.content)}`)
    },
  }
}
