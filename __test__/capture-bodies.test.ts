// audit: { captureBodies: true }: a run keeps each model answer beside its audit log, and
// `toolwire replay <run dir>` decodes exactly what the run received (the same items in the same
// pieces, the same content type): its calls, text and errors are the run's.
import { spawnSync } from 'node:child_process'
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
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
      expect(lines[0]).toEqual({ answer: { contentType: expect.any(String), status: 200 }, wire })
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

  // Attack review 21, c1: the capture file was opened with 'w', so a symlink planted at its name
  // was followed (its target truncated and overwritten with raw model bytes), a file already there
  // kept its mode 644, and a run id used again truncated the earlier run's answers.
  describe('its files are made as the audit log makes its own', () => {
    const hi = (runtime: ToolRuntime, runId: string, text: string, wire: Wire = 'openai-chat') =>
      runtime.run({ wire, runId, model: scriptedModel(wire, [{ text }]), messages: [userMessage(wire, 'hi')] })
    const kept = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('model-')).sort()
    const mode = (file: string) => statSync(file).mode & 0o777

    it('never writes through a symlink planted at its name, nor into a file already there: the answer goes to the next free name, owner-only', async () => {
      const dir = auditRunDir(root, 'planted')
      mkdirSync(dir, { recursive: true })
      const victim = join(root, 'victim.txt')
      writeFileSync(victim, 'IMPORTANT DATA\n')
      symlinkSync(victim, join(dir, 'model-001.ndjson'))
      writeFileSync(join(dir, 'model-002.ndjson'), 'left here\n', { mode: 0o644 })
      chmodSync(join(dir, 'model-002.ndjson'), 0o644)
      const outcome = await hi(runtimeKeeping(), 'planted', 'the answer')
      expect(outcome.stopReason).toBe('stop')
      expect(readFileSync(victim, 'utf8')).toBe('IMPORTANT DATA\n')
      expect(readFileSync(join(dir, 'model-002.ndjson'), 'utf8')).toBe('left here\n')
      expect(kept(dir)).toEqual(['model-001.ndjson', 'model-002.ndjson', 'model-003.ndjson'])
      expect(mode(join(dir, 'model-003.ndjson'))).toBe(0o600)
      expect(readFileSync(join(dir, 'model-003.ndjson'), 'utf8').split('\n')[0]).toBe('{"answer":{"contentType":"text/event-stream; charset=utf-8","status":200},"wire":"openai-chat"}')
      // replay refuses the planted symlink by name, and shows nothing of what it points to
      const { code, stderr } = replay(dir)
      expect(code).toBe(1)
      expect(stderr).toContain(`${join(dir, 'model-001.ndjson')} is a symlink: refused`)
      expect(stderr).not.toContain('IMPORTANT')
    })

    it('owner-only whatever the umask', async () => {
      const umask = process.umask(0)
      try {
        const outcome = await hi(runtimeKeeping(), 'umask', 'x')
        expect(mode(join(auditRunDir(root, outcome.runId), 'model-001.ndjson'))).toBe(0o600)
      } finally {
        process.umask(umask)
      }
    })

    it('a run id used again keeps the earlier answers and numbers on, as its audit log appends; replay decodes each on its own wire', async () => {
      const runtime = runtimeKeeping()
      await hi(runtime, 'again', 'FIRST RUN ANSWER')
      await hi(runtime, 'again', 'SECOND RUN ANSWER')
      await hi(runtime, 'again', 'THIRD, ON ANTHROPIC', 'anthropic')
      const dir = auditRunDir(root, 'again')
      expect(kept(dir)).toEqual(['model-001.ndjson', 'model-002.ndjson', 'model-003.ndjson'])
      const { code, report, stderr } = replay(dir)
      expect(stderr).toBe('')
      expect(code).toBe(0)
      // (run.json is the last run's)
      expect(report.wire).toBe('anthropic')
      expect(report.responses.map((r: { text: string; wire?: string }) => [r.text, r.wire])).toEqual([
        ['FIRST RUN ANSWER', 'openai-chat'],
        ['SECOND RUN ANSWER', 'openai-chat'],
        ['THIRD, ON ANTHROPIC', undefined],
      ])
      expect(replay(dir, '--wire', 'anthropic').stderr).toContain(`${join(dir, 'model-001.ndjson')} is an answer on wire openai-chat, not anthropic`)
    })

    it('a capture file replaced while the answer is read is said (a warning), as the audit log says it', async () => {
      const warnings: string[] = []
      const listen = (warning: Error) => warnings.push(warning.message)
      process.on('warning', listen)
      try {
        const body = scriptedBody('openai-chat', { text: 'moved away' })
        const runtime = runtimeKeeping()
        const outcome = await runtime.run({
          wire: 'openai-chat',
          runId: 'moved',
          messages: [userMessage('openai-chat', 'go')],
          model: () =>
            (async function* () {
              yield body.slice(0, 20)
              const file = join(auditRunDir(root, 'moved'), 'model-001.ndjson')
              renameSync(file, `${file}.old`)
              writeFileSync(file, '')
              yield body.slice(20)
            })(),
        })
        expect(outcome.stopReason).toBe('stop')
        await new Promise((resolve) => setImmediate(resolve))
        expect(warnings.some((w) => w.includes('model-001.ndjson') && w.includes('it was replaced while the run was open'))).toBe(true)
      } finally {
        process.off('warning', listen)
      }
    })
  })

  // Attack review 21, c2: hostile records gave "internal error: Cannot use 'in' operator...", and a
  // symlinked capture file was followed and its target's first 80 characters printed.
  describe('replay of a run directory checks what it reads', () => {
    const GHP = `ghp_${'A1b2C3d4E5'.repeat(3)}F6g7H8`
    const hostile: [string, string, string][] = [
      ['null', 'null\n', 'model-001.ndjson:1: not a capture record: a record is a JSON object, got null'],
      ['an array', '[1]\n', 'model-001.ndjson:1: not a capture record: a record is a JSON object, got an array [1]'],
      ['text a number', '{"answer":{}}\n{"text":123}\n', 'model-001.ndjson:2: not a capture record: "text" is a string, got a number 123'],
      ['bytes an object', '{"answer":{}}\n{"bytes":{}}\n', 'model-001.ndjson:2: not a capture record: "bytes" is a base64 string, got an object {}'],
      ['bytes not base64', '{"answer":{}}\n{"bytes":"no!"}\n', 'model-001.ndjson:2: not a capture record: "bytes" is not base64 (3 characters)'],
      ['answer null', '{"answer":null}\n', 'model-001.ndjson:1: not a capture record: "answer" is an object { contentType?, status? }, got null'],
      ['contentType a number', '{"answer":{"contentType":5}}\n', 'model-001.ndjson:1: not a capture record: "answer.contentType" is a string, got a number 5'],
      ['status out of range', '{"answer":{"status":7}}\n', '"answer.status" is an HTTP status (an integer 100-599), got a number 7'],
      ['an unknown wire', '{"answer":{},"wire":"telnet"}\n', '"wire" is one of openai-chat'],
      ['no answer first', '{"text":"data: [DONE]"}\n', 'model-001.ndjson:1: not a capture record: the first record is the answer\'s ({"answer": {...}}), got "text"'],
      ['a second answer', '{"answer":{}}\n{"answer":{}}\n', 'model-001.ndjson:2: not a capture record: an answer record comes first, and once'],
      ['two keys', '{"answer":{}}\n{"text":"a","bytes":"YQ=="}\n', 'model-001.ndjson:2: not a capture record: it holds text and bytes, where a record holds one'],
      ['an unknown key', '{"answer":{}}\n{"texts":"a"}\n', 'model-001.ndjson:2: not a capture record: unknown key "texts"'],
      ['end not last', '{"answer":{}}\n{"end":true}\n{"text":"x"}\n', 'model-001.ndjson:2: not a capture record: {"end": true} is the last record, and 1 follow it'],
      ['end false', '{"answer":{}}\n{"end":false}\n', '"end" is true, got a boolean false'],
      ['empty', '', 'model-001.ndjson is empty: a capture file begins with its answer record'],
      ['a partial line', '{"answer":{}}\n{"text":"da', 'model-001.ndjson:2: not a capture record (a run cut while writing it ends with a partial line): '],
      ['a secret where a string is due', `{"answer":{}}\n{"text":{"token":"${GHP}"}}\n`, '"text" is a string, got an object {"token":"[redacted:github-token]"}'],
    ]
    for (const [what, content, error] of hostile) {
      it(`refuses ${what}, naming the file and line`, () => {
        const dir = join(root, 'hostile')
        mkdirSync(dir)
        writeFileSync(join(dir, 'run.json'), '{"kind":"run","wire":"openai-chat"}\n')
        writeFileSync(join(dir, 'model-001.ndjson'), content)
        const { code, stderr } = replay(dir)
        expect(code).toBe(1)
        expect(stderr).toContain(error)
        expect(stderr).not.toContain('internal error')
        expect(stderr).not.toContain(GHP)
      })
    }

    it('refuses a symlinked capture file or run.json by name, showing nothing of its target', () => {
      const dir = join(root, 'linked')
      mkdirSync(dir)
      const secret = join(root, 'secret.txt')
      writeFileSync(secret, `root:x:0:0 ${GHP}\n`)
      writeFileSync(join(dir, 'run.json'), '{"kind":"run","wire":"openai-chat"}\n')
      writeFileSync(join(dir, 'model-001.ndjson'), '{"answer":{}}\n{"text":"data: [DONE]\\n\\n"}\n')
      symlinkSync(secret, join(dir, 'model-002.ndjson'))
      let out = replay(dir)
      expect(out.code).toBe(1)
      expect(out.stderr).toContain(`${join(dir, 'model-002.ndjson')} is a symlink: refused`)
      expect(out.stderr).not.toContain('root:x')
      rmSync(join(dir, 'model-002.ndjson'))
      rmSync(join(dir, 'run.json'))
      symlinkSync(secret, join(dir, 'run.json'))
      out = replay(dir)
      expect(out.code).toBe(1)
      expect(out.stderr).toContain(`${join(dir, 'run.json')} is a symlink: refused`)
      expect(out.stderr).not.toContain('root:x')
      // a directory where a capture file is due
      rmSync(join(dir, 'run.json'))
      writeFileSync(join(dir, 'run.json'), '{"kind":"run","wire":"openai-chat"}\n')
      mkdirSync(join(dir, 'model-002.ndjson'))
      expect(replay(dir).stderr).toContain(`${join(dir, 'model-002.ndjson')} is a directory, not a file the run wrote: refused`)
      expect(lstatSync(secret).isFile()).toBe(true)
    })
  })
})

// Attack review 22: a3, a planted `model-9007199254740991.ndjson` made the next capture's number
// 2^53, where `n++` no longer changes n: AnswerCapture.open stepped over the same taken name
// forever (the run hung, synchronously); l5, an answer the run stopped reading (maxAnswerBytes)
// replayed as whole and OK; a2, decoder and JSON.parse messages quoting a capture unscrubbed.
describe('capture numbers, answers not read to their end, and what replay quotes', () => {
  /** Runs `body` catching the process warnings it emits (they are emitted on the next tick). */
  async function warningsOf(body: () => Promise<unknown>): Promise<string[]> {
    const warnings: string[] = []
    const listen = (warning: Error) => warnings.push(warning.message)
    process.on('warning', listen)
    try {
      await body()
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('warning', listen)
    }
    return warnings
  }

  it('a capture file numbered at Number.MAX_SAFE_INTEGER turns capture off with one warning; the run goes on and ends', async () => {
    const dir = auditRunDir(root, 'high')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'model-9007199254740991.ndjson'), '')
    writeFileSync(join(dir, 'model-9007199254740992.ndjson'), '')
    const runtime = runtimeKeeping()
    let outcome: RunOutcome | undefined
    const warnings = await warningsOf(async () => {
      outcome = await runtime.run({
        wire: 'openai-chat',
        runId: 'high',
        model: scriptedModel('openai-chat', [{ calls: [{ name: 'read', arguments: { path: 'a' } }] }, { text: 'done' }]),
        messages: [userMessage('openai-chat', 'go')],
      })
    })
    expect(outcome!.stopReason).toBe('stop')
    expect(outcome!.steps).toHaveLength(2)
    const said = warnings.filter((w) => w.includes('audit.captureBodies'))
    // (one warning for the run, not one an answer)
    expect(said).toEqual([
      `toolwire: the model's answer could not be kept in ${dir} (audit.captureBodies): its number, 9007199254740992, is past Number.MAX_SAFE_INTEGER (9007199254740991: a capture file there is numbered that high): capture is off for this run; the run goes on`,
    ])
    expect(readdirSync(dir).filter((name) => name.startsWith('model-')).sort()).toEqual(['model-9007199254740991.ndjson', 'model-9007199254740992.ndjson'])
  })

  it('names taken up to Number.MAX_SAFE_INTEGER are stepped over up to it, never past', async () => {
    const dir = auditRunDir(root, 'near')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'model-9007199254740989.ndjson'), '')
    // (the next free name is taken too: a directory)
    mkdirSync(join(dir, 'model-9007199254740990.ndjson'))
    const runtime = runtimeKeeping()
    const warnings = await warningsOf(async () => {
      const outcome = await runtime.run({ wire: 'openai-chat', runId: 'near', model: scriptedModel('openai-chat', [{ text: 'one' }]), messages: [userMessage('openai-chat', 'go')] })
      expect(outcome.stopReason).toBe('stop')
      const again = await runtime.run({ wire: 'openai-chat', runId: 'near', model: scriptedModel('openai-chat', [{ text: 'two' }]), messages: [userMessage('openai-chat', 'go')] })
      expect(again.stopReason).toBe('stop')
    })
    // the first answer kept at the last safe number, the second refused with the warning
    expect(readFileSync(join(dir, 'model-9007199254740991.ndjson'), 'utf8')).toContain('"answer"')
    expect(warnings.filter((w) => w.includes('is past Number.MAX_SAFE_INTEGER'))).toHaveLength(1)
  })

  it('replay marks an answer kept without its end record: not read to its end, not OK', async () => {
    const runtime = runtimeKeeping()
    const body = scriptedBody('openai-chat', { calls: [{ name: 'read', arguments: { path: 'x'.repeat(2000) } }] })
    const outcome = await runtime.run({ wire: 'openai-chat', maxAnswerBytes: 1000, maxSteps: 1, model: () => faultyStream(body, { split: 'random', seed: 3 }), messages: [userMessage('openai-chat', 'go')] })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toContain('maxAnswerBytes')
    const dir = auditRunDir(root, outcome.runId)
    const lines = readFileSync(join(dir, 'model-001.ndjson'), 'utf8').trimEnd().split('\n')
    expect(lines.at(-1)).not.toBe('{"end":true}')
    const { code, report, stderr } = replay(dir)
    expect(stderr).toBe('')
    expect(code).toBe(1)
    expect(report.ok).toBe(false)
    expect(report.responses[0].ok).toBe(false)
    expect(report.responses[0].notReadToEnd).toMatch(/^the answer was not read to its end: the run stopped reading it \(an abort, a limit such as maxAnswerBytes/)
    const text = spawnSync(process.execPath, [BIN, 'replay', dir], { encoding: 'utf8' }).stdout
    expect(text).toContain('— BROKEN\n  NOT READ TO ITS END: the answer was not read to its end: the run stopped reading it (an abort, a limit')
    // an answer kept whole is not marked
    const whole = await runtime.run({ wire: 'openai-chat', model: scriptedModel('openai-chat', [{ text: 'hi' }]), messages: [userMessage('openai-chat', 'go')] })
    const kept = replay(auditRunDir(root, whole.runId))
    expect(kept.code).toBe(0)
    expect(kept.report.responses[0].notReadToEnd).toBeUndefined()
  })

  it('replay replaces the secrets of what it quotes from a capture: JSON.parse\'s messages, the decoder\'s errors', () => {
    const KEY = `sk-proj-${'Zq8mN3vX7pL2kR9tW4yB6cJ1hF5gD0sA'.repeat(2)}`
    const GHP = `ghp_${'A1b2C3d4E5'.repeat(3)}F6g7H8`
    const head = JSON.stringify({ answer: { contentType: 'text/event-stream', status: 200 }, wire: 'openai-chat' })
    const cases: [string, string[], string][] = [
      ['a line that is no JSON, a secret at its start', [head, `${KEY} not json`], "model-001.ndjson:2: not a capture record (a run cut while writing it ends with a partial line): Unexpected token 's' is not valid JSON"],
      ['a line that is no JSON, a token at its start', [head, `${GHP} not json`], "Unexpected token 'g' is not valid JSON"],
      ['an event the decoder cannot read', [head, JSON.stringify({ event: { choices: [{ index: 0, delta: { content: KEY }, finish_reason: 7 }], object: GHP } })], '[redacted:openai-key]'],
    ]
    for (const [what, lines, said] of cases) {
      const dir = join(root, what.replace(/\W+/g, '-'))
      mkdirSync(dir)
      writeFileSync(join(dir, 'run.json'), '{"kind":"run","wire":"openai-chat"}\n')
      writeFileSync(join(dir, 'model-001.ndjson'), `${lines.join('\n')}\n`)
      const out = spawnSync(process.execPath, [BIN, 'replay', dir], { encoding: 'utf8' })
      const all = out.stdout + out.stderr
      expect(out.status, what).toBe(1)
      expect(all, what).toContain(said)
      for (const secret of [KEY, GHP]) for (const part of [secret.slice(0, 12), secret.slice(-12)]) expect(all, `${what}: ${part}`).not.toContain(part)
    }
  })
})
