// Peer: the AI SDK's `generateText` with tools and `stopWhen: stepCountIs(2)`. A hand-written
// LanguageModelV3 answers the first request with N tool calls and the second (carrying the N tool
// results) with text. The tools declare the schema in zod, which the SDK checks every call's input
// against before `execute` (its validating path). The same run with N = 0 is one mock step and no
// tools: bench/turn.mjs subtracts it. (A hand-written model rather than ai/test's
// MockLanguageModelV3, which records every call and would grow over the benchmark's runs.)

import { createRequire } from 'node:module'
import { generateText, stepCountIs, tool } from 'ai'
import { zodSchema, toolNames, turnCalls, argumentsText, expectLength } from './tools.mjs'
import { benchRuntime } from './turn-toolwire.mjs'

const require = createRequire(import.meta.url)
const { toAiSdkTools } = require('../../dist/adapters/ai-sdk.js')

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
}

/** A LanguageModelV3 whose first answer is `n` tool calls and whose answer to tool results is text. */
function mockModel(n) {
  const calls = turnCalls(n).map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: argumentsText }))
  const first = { content: calls, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }
  const last = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
  return {
    specificationVersion: 'v3',
    provider: 'mock',
    modelId: 'mock',
    supportedUrls: {},
    doGenerate: async ({ prompt }) => (n === 0 || prompt[prompt.length - 1].role === 'tool' ? last : first),
    doStream: async () => {
      throw new Error('not streamed')
    },
  }
}

/** The SDK's own tools: zod input schemas, a trivial execute. */
function sdkTools() {
  const set = {}
  for (const name of toolNames) set[name] = tool({ description: `trivial tool ${name}`, inputSchema: zodSchema, execute: async () => 'ok' })
  return set
}

/** One generateText run whose first step carries `n` calls; `adapter` uses toolwire's toAiSdkTools. */
export function createAiSdkTurn(n, { adapter = false } = {}) {
  const model = mockModel(n)
  const tools = adapter ? toAiSdkTools(benchRuntime()) : sdkTools()
  return {
    run: () => generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(2) }),
    check: (result) => {
      const parts = result.steps[0].content.filter((p) => p.type === 'tool-result' || p.type === 'tool-error')
      expectLength(`AI SDK${adapter ? ' + toAiSdkTools' : ''}`, parts, n)
      for (const p of parts) if (p.type === 'tool-error') throw new Error(`AI SDK: a call failed: ${p.error}`)
    },
  }
}
