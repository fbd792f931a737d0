// The README's toolwire/testing example, whole, type-checked under strict nodenext by
// tsconfig.strict.json (`toolwire/testing` resolved through the package's exports map).
// --- README: toolwire/testing ---
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ToolRuntime, type AnthropicMessage } from 'toolwire'
import { faultyStream, recordModel, replayModel, scriptedBody, scriptedModel } from 'toolwire/testing'

const runtime = new ToolRuntime()
runtime.register({
  name: 'read',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  execute: async (_id, { path }) => `contents of ${path}`,
})
const messages: AnthropicMessage[] = [{ role: 'user', content: 'Read a.txt and b.txt' }]

// Two turns as Anthropic streams them: thinking and two parallel calls, then the answer.
const model = scriptedModel('anthropic', [
  { thinking: 'Both at once.', calls: [{ name: 'read', arguments: { path: 'a.txt' } }, { name: 'read', arguments: '{"path": "b.txt"}' }] },
  { text: 'Done.' },
])
const outcome = await runtime.run({ wire: 'anthropic', model, messages })
console.log(outcome.stopReason, model.requests.length) // stop 2

// The same kind of bytes, one byte at a time, cut after the sixth event.
const body = scriptedBody('anthropic', { text: 'Hello there' })
const cut = await runtime.run({ wire: 'anthropic', model: () => faultyStream(body, { split: 'byte', cutAfterEvent: 6 }) })
console.log(cut.stopReason, cut.error) // error the stream ended before its terminal event: ...

// Record a run once (here a scripted model; in practice your provider), replay it offline.
const dir = mkdtempSync(join(tmpdir(), 'cassette-'))
const script = scriptedModel('anthropic', [{ calls: [{ name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'Read.' }])
await runtime.run({ wire: 'anthropic', model: recordModel(script, dir), messages })
const replayed = await runtime.run({ wire: 'anthropic', model: replayModel(dir), messages })
console.log(replayed.steps.map((step) => step.text)) // [ '', 'Read.' ]
// --- end ---
