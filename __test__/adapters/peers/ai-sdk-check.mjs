// Run by ai-sdk-v7.test.ts in a project of its own holding `ai` 7 (under Node 22, which the AI SDK 7
// needs): toolwire/ai-sdk, imported (ESM) or required (CommonJS, `require` of the ES module `ai`),
// drives a real streamText with a scripted model. Prints one JSON line of what came back.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const entry = process.argv[2]
const ai = await import('ai')
const { MockLanguageModelV4, convertArrayToReadableStream } = await import('ai/test')
const { ToolRuntime } = require('toolwire')
const { toAiSdkTools } = entry === 'require' ? require('toolwire/ai-sdk') : await import('toolwire/ai-sdk')

const runtime = new ToolRuntime()
runtime.register({
  name: 'count',
  parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  async execute(_id, { n }, _signal, onUpdate) {
    for (let i = 1; i <= n; i++) onUpdate?.({ content: [{ type: 'text', text: `step ${i}` }] })
    return `counted to ${n}`
  },
})
runtime.register({
  name: 'shot',
  execute: () => ({ content: [{ type: 'text', text: 'a dot' }, { type: 'image', data: process.argv[3], mimeType: 'image/png' }] }),
})
runtime.register({ name: 'fail', execute: () => { throw new Error('no luck') } })

const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: 0 } }
const calls = [
  { id: 'c1', name: 'count', input: '{"n":2}' },
  { id: 's1', name: 'shot', input: '{}' },
  { id: 'f1', name: 'fail', input: '{}' },
]
const turns = [
  [{ type: 'stream-start', warnings: [] }, ...calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.input })), { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage }],
  [{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }, { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage }],
]
const model = new MockLanguageModelV4({ doStream: turns.map((parts) => ({ stream: convertArrayToReadableStream(parts) })) })
const warnings = []
globalThis.AI_SDK_LOG_WARNINGS = (logged) => warnings.push(...logged.warnings.map((w) => w.message ?? w.type))
const result = ai.streamText({ model, tools: toAiSdkTools(runtime, { preliminaryResults: true }), prompt: 'go', stopWhen: ai.stepCountIs(2) })
const parts = []
for await (const part of result.fullStream) {
  if (part.type === 'tool-result') {
    const output = part.output
    parts.push([part.toolCallId, part.preliminary === true ? 'preliminary' : 'final', output.type === 'tool_execution_update' ? output.partialResult.content[0].text : output.status])
  }
  if (part.type === 'tool-error') parts.push([part.toolCallId, 'error', part.error.message])
}
const read = model.doStreamCalls[1].prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content).map((p) => [p.toolCallId, p.output])
console.log(JSON.stringify({ node: process.versions.node, ai: require('ai/package.json').version, parts, read, text: await result.text, warnings }))
