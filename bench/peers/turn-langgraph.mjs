// Peer: LangGraph's prebuilt `ToolNode` invoked with `{ messages: [AIMessage with N tool_calls] }`,
// giving N ToolMessages. The tools are LangChain `tool()`s with the JSON Schema, which LangChain
// validates before calling the function (its validating path). Against it: toolwire's
// `createToolNode` with the same message.

import { createRequire } from 'node:module'
import { ToolNode } from '@langchain/langgraph/prebuilt'
import { tool } from '@langchain/core/tools'
import { AIMessage } from '@langchain/core/messages'
import { schema, toolNames, turnCalls, args, expectLength } from './tools.mjs'
import { benchRuntime } from './turn-toolwire.mjs'

const require = createRequire(import.meta.url)
const { createToolNode } = require('../../dist/adapters/langchain.js')

/** One ToolNode pass over an AIMessage of `n` calls; `adapter` uses toolwire's createToolNode. */
export function createLangGraphTurn(n, { adapter = false } = {}) {
  const message = new AIMessage({ content: '', tool_calls: turnCalls(n).map((c) => ({ id: c.id, name: c.name, args, type: 'tool_call' })) })
  let node
  if (adapter) {
    const run = createToolNode(benchRuntime())
    node = { invoke: (state) => run(state) }
  } else {
    node = new ToolNode(toolNames.map((name) => tool(async () => 'ok', { name, description: `trivial tool ${name}`, schema })))
  }
  return {
    run: () => node.invoke({ messages: [message] }),
    check: (out) => {
      expectLength(`LangGraph${adapter ? ' createToolNode' : ' ToolNode'}`, out.messages, n)
      for (const m of out.messages) if (m.status === 'error') throw new Error(`LangGraph: a call failed: ${m.content}`)
    },
  }
}
