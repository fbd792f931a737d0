// audit: { captureBodies: true }: a run keeps each model answer beside its audit log, and
// `toolwire replay <run dir>` decodes exactly what the run received (the same items in the same
// pieces, the same content type): its calls, text and errors are the run's.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { ToolRuntime, auditRunDir, type AssembledToolCall, type RunOutcome, type Wire } from '../dist/index.js'
import { faultyStream, scriptedBody, scriptedModel, type ScriptedTurn } from '../dist/testing/index.js'
import { userMessage } from './helpers.js'

const BIN = new URL('../bin/toolwire.js', import.meta.url).pathname

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'toolwire-capture-'))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

/** A runtime with a `read` tool and an audit log under `root` that keeps the model's answers. */
function runtimeKeeping(captureBodies = true): ToolRuntime {
  const runtime = new ToolRuntime({ audit: { dir: root, captureBodies } })
  runtime.register({
    name: 'read',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute: async (_id, { path }) => `contents of ${path}`,
  })
  return runtime
}

/** `toolwire replay <dir> --json`: its exit code and report. */
function replay(dir: string, ...args: string[]): { code: number | null; report: any; stderr: string } {
  const run = spawnSync(process.execPath, [BIN, 'replay', dir, '--json', ...args], { encoding: 'utf8' })
  return { code: run.status, report: run.stdout === '' ? undefined : JSON.parse(run.stdout), stderr: run.stderr }
}

/**
 * What replay reports of a call, and the run's own call in the same terms (an id the Gemini
 * decoder generated for a call sent without one is new at each decoding: only its form is kept).
 */
const shown = (call: Pick<AssembledToolCall, 'id' | 'name' | 'arguments' | 'complete'>, wire: Wire) => ({
  id: wire === 'gemini' && /^call_[0-9a-f]{24}$/.test(call.id) ? 'generated' : call.id,
  name: call.name,
  arguments: call.arguments,
  complete: call.complete,
})

/** Expects the replay of the run's directory to give back each step's calls, text and errors. */
function expectReplayed(outcome: RunOutcome, wire: Wire): void {
  const { code, report, stderr } = replay(auditRunDir(root, outcome.runId))
  expect(stderr).toBe('')
  expect(report.wire).toBe(wire)
  expect(report.responses).toHaveLength(outcome.steps.length)
  outcome.steps.forEach((step, i) => {
    const response = report.responses[i]
    expect(response.toolCalls.map((call: AssembledToolCall) => shown(call, wire)), `answer ${i + 1}`).toEqual(step.calls.map((call) => shown(call, wire)))
    expect(response.text).toBe(step.text)
    expect(response.stopReason).toBe(step.stopReason)
    expect(response.errors.map((e: { message: string }) => e.message)).toEqual(step.errors ?? [])
  })
  expect(code).toBe(report.ok ? 0 : 1)
}

const TURNS: ScriptedTurn[] = [
  { thinking: 'Both.', calls: [{ name: 'read', arguments: { path: 'a.txt' } }, { name: 'read', arguments: '{"path": "b.txt"}' }] },
  { text: 'Read both.' },
]

describe('audit.captureBodies', () => {
  for (const wire of ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mistral'] as const) {
    it(`${wire}: the run keeps each answer, and replay decodes them as the run did`, async () => {
      const runtime = runtimeKeeping()
      const turns = wire === 'mistral' ? TURNS.map(({ thinking: _none, ...turn }) => turn) : TURNS
      const outcome = await runtime.run({ wire, model: scriptedModel(wire, turns), messages: [userMessage(wire, 'read them')] })
      expect(outcome.stopReason).toBe('stop')
      const dir = auditRunDir(root, outcome.runId)
      const kept = readdirSync(dir).filter((name) => name.startsWith('model-')).sort()
      expect(kept).toEqual(['model-001.ndjson', 'model-002.ndjson'])
      // owner-only: the bodies are not scrubbed
      expect(statSync(join(dir, kept[0]!)).mode & 0o777).toBe(0o600)
      const lines = readFileSync(join(dir, kept[0]!), 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line))
      expect(lines[0]).toEqual({ answer: { contentType: expect.any(String), status: 200 } })
      expect(lines.at(-1)).toEqual({ end: true })
      expectReplayed(outcome, wire)
    })
  }

  it('keeps an SDK stream of chunk objects as events, and a body read a byte at a time in its pieces', async () => {
    const runtime = runtimeKeeping()
    const body = scriptedBody('openai-chat', TURNS[0]!)
    const chunks = body
      .split('\n\n')
      .filter((block) => block.startsWith('data: {'))
      .map((block) => JSON.parse(block.slice('data: '.length)) as object)
    let call = 0
    const outcome = await runtime.run({
      wire: 'openai-chat',
      messages: [userMessage('openai-chat', 'go')],
      // first an SDK's stream (objects), then the bytes one at a time
      model: () => (++call === 1 ? (async function* () { yield* chunks })() : faultyStream(scriptedBody('openai-chat', TURNS[1]!), { split: 'byte' })),
    })
    expect(outcome.stopReason).toBe('stop')
    const dir = auditRunDir(root, outcome.runId)
    const first = readFileSync(join(dir, 'model-001.ndjson'), 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line))
    expect(first.slice(1, -1).every((record: object) => 'event' in record)).toBe(true)
    const second = readFileSync(join(dir, 'model-002.ndjson'), 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line))
    const pieces = second.filter((record: object) => 'bytes' in record || 'text' in record)
    expect(pieces.length).toBe(Buffer.byteLength(scriptedBody('openai-chat', TURNS[1]!)))
    expectReplayed(outcome, 'openai-chat')
  })

  it('a stream cut short is kept as far as it came, with no end, and replays to the same error', async () => {
    const runtime = runtimeKeeping()
    const cut = faultyStream(scriptedBody('anthropic', { text: 'Hello there, a long answer' }), { cutAfterEvent: 4 })
    const outcome = await runtime.run({ wire: 'anthropic', model: () => cut, messages: [userMessage('anthropic', 'hi')] })
    expect(outcome.stopReason).toBe('error')
    const lines = readFileSync(join(auditRunDir(root, outcome.runId), 'model-001.ndjson'), 'utf8').trimEnd().split('\n')
    // (the body ended, cut: what arrived is all there is; its end is the decoder's to judge)
    expect(lines.length).toBeGreaterThan(1)
    expectReplayed(outcome, 'anthropic')
  })

  it('is off by default, and must be a boolean', async () => {
    const runtime = runtimeKeeping(false)
    const outcome = await runtime.run({ wire: 'openai-chat', model: scriptedModel('openai-chat', TURNS), messages: [userMessage('openai-chat', 'go')] })
    expect(readdirSync(auditRunDir(root, outcome.runId)).filter((name) => name.startsWith('model-'))).toEqual([])
    const { code, stderr } = replay(auditRunDir(root, outcome.runId))
    expect(code).not.toBe(0)
    expect(stderr).toContain('keeps no model answers: run with audit: { dir, captureBodies: true } to keep them')
    // @ts-expect-error not a boolean
    expect(() => new ToolRuntime({ audit: { dir: root, captureBodies: 'yes' } })).toThrow('audit.captureBodies must be a boolean, got')
  })

  it('replay of a run directory refuses a --wire that is not the run\'s', async () => {
    const runtime = runtimeKeeping()
    const outcome = await runtime.run({ wire: 'openai-chat', model: scriptedModel('openai-chat', TURNS), messages: [userMessage('openai-chat', 'go')] })
    const { code, stderr } = replay(auditRunDir(root, outcome.runId), '--wire', 'anthropic')
    expect(code).not.toBe(0)
    expect(stderr).toContain('is on wire openai-chat, not anthropic')
  })
})
