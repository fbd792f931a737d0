// The README's "Use" examples, whole, type-checked under strict nodenext by tsconfig.strict.json
// (a user review found one did not compile: `readFile` and `signal` came from nowhere): the agent
// the section opens with, and the same tool dispatched by hand. Not run (the agent calls Anthropic).
// --- README: Use ---
import { readFile } from 'node:fs/promises'
import { ToolRuntime, defineTool, models } from 'toolwire'
import { z } from 'zod'

const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a text file',
  parameters: z.object({ path: z.string() }),
  execute: (_id, { path }, signal) => readFile(path, { encoding: 'utf8', signal }),
})
const runtime = new ToolRuntime({ timeoutMs: 120_000 })
runtime.register(readFileTool)
const outcome = await runtime.run({
  wire: 'anthropic',
  model: models.anthropic({ model: 'claude-sonnet-4-5' }),
  messages: [{ role: 'user', content: 'What does README.md say?' }],
})
if (outcome.stopReason !== 'stop') throw new Error(`the run ended ${outcome.stopReason}: ${outcome.error}`)
console.log(outcome.steps.at(-1)?.text)
// --- end ---

// --- README: Use, dispatch ---
const controller = new AbortController()
const results = await runtime.dispatch(
  [{ id: 'call_1', name: 'read_file', arguments: '{"path":"README.md"}' }],
  { signal: controller.signal, onEvent: (event) => console.log(event.type) },
)
console.log(results.map((result) => result.status))
// --- end ---
