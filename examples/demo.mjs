// The toolwire demo: an agent run end to end, with no network. A scripted model (its streamed
// answers are in demo-script.mjs) asks for tools over three turns; toolwire decodes the stream,
// runs the calls in parallel under policy, approvals and deadlines, sanitizes what the tools
// return, feeds the results back, and records the run in an audit log with an HTML timeline.
//
// With OPENAI_API_KEY or ANTHROPIC_API_KEY set, the same agent runs against the real provider
// (TOOLWIRE_DEMO_MODEL picks the model).
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

import { TURNS, chatCompletionStream } from './demo-script.mjs'

const require = createRequire(import.meta.url)
const { ToolRuntime, analyzeCommand, auditRunDir, replayRun, verifyRun } = require('../dist/index.js')
const { renderTimeline } = require('../dist/timeline.js')

// ── A workspace for the agent, with a secret and a long log in it ────────────────────────────
const workspace = mkdtempSync(join(tmpdir(), 'toolwire-demo-'))
const auditDir = join(workspace, '.audit')
writeFileSync(join(workspace, 'notes.md'), '# Release notes\n\n- faster dispatch\n- safer shell\n')
// A made-up key in the shape of a real one: sanitization scrubs it before the model sees it.
writeFileSync(join(workspace, '.env'), `OPENAI_API_KEY=sk-proj-${'DemoKeyNotReal0'.repeat(4)}\nLOG_LEVEL=info\n`)
writeFileSync(
  join(workspace, 'build.log'),
  Array.from({ length: 4000 }, (_, i) => `[${String(i).padStart(4, '0')}] compiling module_${i % 97}.rs ... ok`).join('\n') +
    '\nerror: linker `cc` not found\n',
)

// ── Tools: real ones over the workspace, and two that misbehave ───────────────────────────────
const COMMANDS = { cwd: workspace, allowlist: ['ls', 'wc', 'head'] }
const runtime = new ToolRuntime({
  concurrency: 4,
  timeoutMs: 5_000,
  workspaceRoot: workspace,
  policy: { deny: ['delete_file'] },
  approvals: {
    security: 'allowlist',
    ask: 'on-miss',
    allowlist: COMMANDS.allowlist,
    // Tools that run without asking; exec asks when analyzeCommand does not approve its command.
    allowTools: ['list_dir', 'read_file', 'search_issues'],
    // A real agent would ask its user; the demo answers for them.
    onApproval: async (request) => {
      live(`   ? approval asked for ${request.toolName}: ${JSON.stringify(request.args?.command ?? request.args)} -> the demo says deny`)
      return 'deny'
    },
  },
  sanitize: { maxResultChars: 2_000 },
})

runtime.register({
  name: 'list_dir',
  description: 'List the entries of a folder in the workspace',
  parameters: { type: 'object', properties: { dir: { type: 'string' } }, required: ['dir'], additionalProperties: false },
  workspaceOnly: true,
  async execute(_id, { dir }) {
    const root = resolve(workspace, dir)
    const entries = readdirSync(root).map((name) => {
      const stat = statSync(join(root, name))
      return `${stat.isDirectory() ? 'dir ' : 'file'} ${String(stat.size).padStart(7)}  ${name}`
    })
    return entries.join('\n')
  },
})

runtime.register({
  name: 'read_file',
  description: 'Read a text file in the workspace',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  workspaceOnly: true,
  async execute(_id, { path }) {
    return readFileSync(resolve(workspace, path), 'utf8')
  },
})

runtime.register({
  name: 'exec',
  description: 'Run one shell command in the workspace (no pipes or redirections)',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  command: 'command',
  async execute(_id, { command }, signal) {
    // Approved by the runtime before it gets here; run the analyzed argv without a shell.
    const { segments } = analyzeCommand(command, COMMANDS)
    const [program, ...args] = segments[0].argv
    return new Promise((done, fail) =>
      execFile(program, args, { cwd: workspace, signal }, (error, stdout) => (error ? fail(error) : done(stdout))),
    )
  },
})

runtime.register({
  name: 'search_issues',
  description: 'Search the issue tracker',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  timeoutMs: 300,
  // The tracker never answers: the deadline ends the call and aborts the signal.
  execute: (_id, _params, signal) => new Promise((_done, fail) => signal.addEventListener('abort', () => fail(signal.reason))),
})

runtime.register({
  name: 'delete_file',
  description: 'Delete a file in the workspace',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  async execute() {
    throw new Error('never reached: the policy denies delete_file')
  },
})

// ── The model: scripted, or a real provider when a key is set ─────────────────────────────────
const { wire, model, label } = pickModel()
const started = Date.now()
const inFlight = new Map()

function live(line) {
  console.log(line)
}

function onEvent(event) {
  switch (event.type) {
    case 'turn_start':
      live(`\n── model turn ${event.step}`)
      break
    case 'text_delta':
      process.stdout.write(event.delta)
      break
    case 'turn_end':
      process.stdout.write('\n')
      break
    case 'tool_execution_start':
      inFlight.set(event.toolCallId, Date.now())
      live(`   ▶ ${event.toolName} ${event.args === null ? '(arguments are not JSON)' : JSON.stringify(event.args)}   [in flight: ${inFlight.size}]`)
      break
    case 'tool_execution_end': {
      const began = inFlight.get(event.toolCallId) ?? Date.now()
      inFlight.delete(event.toolCallId)
      const { result } = event
      const mark = result.ok ? '✔' : '✖'
      const why = result.ok ? '' : ` ${result.error?.code}`
      const cleaned = sanitizationNote(result.sanitization)
      live(`   ${mark} ${event.toolName} ${result.status}${why} after ${Date.now() - began} ms${cleaned}   [in flight: ${inFlight.size}]`)
      break
    }
  }
}

function sanitizationNote(report) {
  if (!report) return ''
  const notes = []
  for (const [kind, count] of Object.entries(report.scrubbed ?? {})) notes.push(`${count} ${kind} scrubbed`)
  for (const cut of report.truncated ?? []) notes.push(`${cut.cut} of ${cut.cut + cut.budget} ${cut.unit} cut`)
  return notes.length > 0 ? ` (sanitized: ${notes.join(', ')})` : ''
}

console.log(`toolwire demo: ${label}; workspace ${workspace}`)
const outcome = await runtime.run({
  wire,
  model,
  messages: [{ role: 'user', content: 'Get this workspace ready for a release and tell me what you found.' }],
  maxSteps: 6,
  onEvent,
  audit: { dir: auditDir },
})

// ── What came out ─────────────────────────────────────────────────────────────────────────────
console.log(`\nThe run stopped (${outcome.stopReason}) after ${outcome.steps.length} turns in ${Date.now() - started} ms.`)
for (const [i, step] of outcome.steps.entries()) {
  for (const result of step.results) {
    const line = result.content.find((block) => block.type === 'text')?.text.split('\n')[0] ?? ''
    console.log(`  turn ${i + 1}  ${result.tool.padEnd(13)} ${result.status.padEnd(8)} ${(result.error?.code ?? '').padEnd(17)} ${line.slice(0, 70)}`)
  }
}
const runDir = auditRunDir(auditDir, outcome.runId)
const check = verifyRun(runDir)
const html = join(workspace, 'timeline.html')
writeFileSync(html, renderTimeline(replayRun(runDir), { problems: check.problems, title: 'toolwire demo' }))
console.log(`\nAudit log:  ${runDir} (${check.ok ? 'verified' : `${check.problems.length} problems`})`)
console.log(`Timeline:   ${html}`)

function pickModel() {
  if (process.env.OPENAI_API_KEY) {
    const name = process.env.TOOLWIRE_DEMO_MODEL ?? 'gpt-4o-mini'
    return {
      wire: 'openai-chat',
      label: `OpenAI ${name}`,
      model: (request, { signal }) =>
        fetch('https://api.openai.com/v1/chat/completions', {
          method: 'POST',
          signal,
          headers: { authorization: `Bearer ${process.env.OPENAI_API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: name, stream_options: { include_usage: true }, ...request }),
        }),
    }
  }
  if (process.env.ANTHROPIC_API_KEY) {
    const name = process.env.TOOLWIRE_DEMO_MODEL ?? 'claude-sonnet-4-5'
    return {
      wire: 'anthropic',
      label: `Anthropic ${name}`,
      model: (request, { signal }) =>
        fetch('https://api.anthropic.com/v1/messages', {
          method: 'POST',
          signal,
          headers: { 'x-api-key': process.env.ANTHROPIC_API_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ model: name, max_tokens: 2048, ...request }),
        }),
    }
  }
  let turn = 0
  return {
    wire: 'openai-chat',
    label: 'a scripted model (set OPENAI_API_KEY or ANTHROPIC_API_KEY for a real one)',
    model: async () => {
      const body = chatCompletionStream(TURNS[Math.min(turn++, TURNS.length - 1)])
      // Streamed in small pieces, split anywhere, the way a network delivers it.
      const bytes = new TextEncoder().encode(body)
      return new Response(
        new ReadableStream({
          async start(controller) {
            for (let at = 0; at < bytes.length; at += 97) {
              controller.enqueue(bytes.subarray(at, at + 97))
              await new Promise((next) => setTimeout(next, 2))
            }
            controller.close()
          },
        }),
      )
    },
  }
}
