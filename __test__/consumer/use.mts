// The README's "Use" example, whole, type-checked under strict nodenext by tsconfig.strict.json
// (a user review found it did not compile: `readFile` and `signal` came from nowhere).
// --- README: Use ---
import { readFile } from 'node:fs/promises'
import { ToolRuntime } from 'toolwire'

const runtime = new ToolRuntime({ concurrency: 16, timeoutMs: 120_000 })

// A pi-agent-core AgentTool works unchanged.
runtime.register({
  name: 'read_file',
  description: 'Read a text file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  async execute(toolCallId, { path }, signal, onUpdate) {
    return { content: [{ type: 'text', text: await readFile(path, { encoding: 'utf8', signal }) }] }
  },
})

const controller = new AbortController()
const results = await runtime.dispatch(
  [{ id: 'call_1', name: 'read_file', arguments: '{"path":"README.md"}' }],
  { signal: controller.signal, onEvent: (event) => console.log(event.type) },
)
console.log(results.map((result) => result.status))
// --- end ---
