import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { ToolRuntime, auditRunDir, replayRun, verifyRun } from '../dist/index.js'
import { AuditLog, auditOption } from '../dist/audit.js'
import { main } from '../dist/cli/main.js'
import { sleep } from './helpers.js'
import { scriptedModel } from './scripted.js'

const root = mkdtempSync(join(tmpdir(), 'toolwire-audit-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function runtimeIn(dir: string, extra: object = {}) {
  const runtime = new ToolRuntime({ audit: { dir }, policy: { deny: ['forbidden'] }, ...extra })
  runtime.register({
    name: 'login',
    parameters: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
    execute: async (_id, { token }: { token: string }) => ({ content: [{ type: 'text', text: `used ${token}` }], details: { secret: token } }),
  })
  runtime.register({ name: 'forbidden', parameters: { type: 'object' }, execute: async () => 'never' })
  return runtime
}

const TOKEN = 'sk-proj-' + 'a'.repeat(48)

const LOG_FILES = ['calls.jsonl', 'results.jsonl', 'events.jsonl']

/** Deletes the lines of a run's three log files whose record matches `drop`. */
function dropLines(dir: string, drop: (record: any) => boolean) {
  for (const file of LOG_FILES) {
    const lines = readFileSync(join(dir, file), 'utf8').split('\n').filter((line) => line !== '' && !drop(JSON.parse(line)))
    writeFileSync(join(dir, file), lines.map((line) => `${line}\n`).join(''))
  }
}

/** The lastSeq run.json recorded when the run ended. */
function lastSeqOf(dir: string): number {
  return JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).lastSeq
}

/** Rewrites a run's run.json through `edit`. */
function editRun(dir: string, edit: (run: any) => void) {
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'))
  edit(run)
  writeFileSync(join(dir, 'run.json'), JSON.stringify(run))
}

describe('audit log', () => {
  it('records each call, its result and the events of a dispatch, scrubbed, and replays them', async () => {
    const dir = join(root, 'dispatch')
    const runtime = runtimeIn(dir)
    const results = await runtime.dispatch(
      [
        { id: 'c1', name: 'login', arguments: JSON.stringify({ token: TOKEN }) },
        { id: 'c2', name: 'forbidden', arguments: '{}' },
      ],
      { runId: 'r-1' },
    )
    expect(results.map((r) => r.status)).toEqual(['ok', 'blocked'])
    const runDir = join(dir, 'r-1')
    for (const file of ['run.json', 'calls.jsonl', 'results.jsonl', 'events.jsonl']) expect(existsSync(join(runDir, file))).toBe(true)
    const text = ['calls.jsonl', 'results.jsonl', 'events.jsonl'].map((f) => readFileSync(join(runDir, f), 'utf8')).join('')
    expect(text).not.toContain(TOKEN)
    expect(text).toContain('[redacted:openai-key]')

    const replay = replayRun(runDir)
    expect(replay.run).toMatchObject({ runId: 'r-1', kind: 'dispatch', policy: { deny: ['forbidden'] } })
    expect(replay.run.endedAt).toBeGreaterThanOrEqual(replay.run.startedAt)
    expect(replay.calls.map((c: any) => c.callId)).toEqual(['c1', 'c2'])
    expect(replay.calls[0].argsHash).toMatch(/^[0-9a-f]{64}$/)
    // Results are in the order the calls ended: the refused one first.
    expect(replay.results.map((r: any) => [r.callId, r.status])).toEqual([
      ['c2', 'blocked'],
      ['c1', 'ok'],
    ])
    // Strict redaction: the tool declared no allowlist, so its details are not in the log.
    expect(replay.results[0].details).toBeUndefined()
    expect(replay.events.map((e: any) => e.type)).toContain('tool_execution_end')
    expect(replay.partialLines).toBe(0)
    expect(verifyRun(runDir)).toEqual({ ok: true, problems: [] })
  })

  it('records a whole agent run in one directory, with its turns', async () => {
    const dir = join(root, 'run')
    const runtime = runtimeIn(dir)
    const { model } = scriptedModel('openai-chat', [
      { calls: [{ id: 'k1', name: 'login', args: JSON.stringify({ token: 'x' }) }] },
      { calls: [{ id: 'k2', name: 'login', args: JSON.stringify({ token: 'y' }) }] },
      { text: 'ok' },
    ])
    const outcome = await runtime.run({ wire: 'openai-chat', model, runId: 'agent-1' })
    expect(outcome.stopReason).toBe('stop')
    const replay = replayRun(join(dir, 'agent-1'))
    expect(replay.run).toMatchObject({ kind: 'run', wire: 'openai-chat', stopReason: 'stop' })
    expect(replay.calls.map((c: any) => c.callId)).toEqual(['k1', 'k2'])
    const types = replay.events.map((e: any) => e.type)
    expect(types.filter((t: string) => t === 'turn_start')).toHaveLength(3)
    expect(types.filter((t: string) => t === 'done')).toHaveLength(1)
    expect(verifyRun(join(dir, 'agent-1')).ok).toBe(true)
  })

  it('records a plan with its steps, attempts and confirmation, and the run verifies', async () => {
    const dir = join(root, 'plan')
    const runtime = runtimeIn(dir)
    let failures = 1
    runtime.register({
      name: 'flaky',
      parameters: { type: 'object' },
      execute: async () => {
        if (failures-- > 0) throw new Error('try again')
        return { content: [{ type: 'text', text: 'fine' }] }
      },
    })
    const plan = {
      runId: 'plan-1',
      confirmationsRequired: true,
      steps: [
        { id: 'first', tool: 'flaky', args: {}, retry: { max: 2, backoffMs: 0 } },
        { id: 'second', tool: 'login', args: { token: 't' }, dependsOn: ['first'] },
      ],
    }
    const outcome = await runtime.executePlan(plan, { confirm: async () => true })
    expect(outcome.status).toBe('ok')
    const runDir = join(dir, 'plan-1')
    const replay = replayRun(runDir)
    expect(replay.run).toMatchObject({ kind: 'plan', plan: { runId: 'plan-1' }, status: 'ok', confirmation: { confirmed: true } })
    expect(replay.calls.map((c: any) => [c.stepId, c.attempt])).toEqual([
      ['first', 1],
      ['first', 2],
      ['second', 1],
    ])
    expect(replay.calls.every((c: any) => c.confirmationId === 'plan-1:confirmation')).toBe(true)
    const types = replay.events.map((e: any) => e.type)
    expect(types[0]).toBe('run.started')
    expect(types[types.length - 1]).toBe('run.finished')
    expect(types).toContain('run.confirmed')
    expect(verifyRun(runDir)).toEqual({ ok: true, problems: [] })
  })

  it('reports a result lost to a cut line, and counts the partial line instead of throwing', async () => {
    const dir = join(root, 'cut')
    const runtime = runtimeIn(dir)
    await runtime.dispatch(
      [
        { id: 'a', name: 'login', arguments: '{"token":"1"}' },
        { id: 'b', name: 'login', arguments: '{"token":"2"}' },
      ],
      { runId: 'r' },
    )
    const results = join(dir, 'r', 'results.jsonl')
    truncateSync(results, statSync(results).size - 10)
    const replay = replayRun(join(dir, 'r'))
    expect(replay.partialLines).toBe(1)
    expect(replay.results).toHaveLength(1)
    const verification = verifyRun(join(dir, 'r'))
    expect(verification.ok).toBe(false)
    // The cut line was b's result: its call lacks a result, and its seq is a gap in the log.
    expect(verification.problems).toEqual([
      expect.objectContaining({ callId: 'b', kind: 'missing_result' }),
      expect.objectContaining({ kind: 'seq_gap', message: expect.stringMatching(/^seq \d+ is missing from every file/) }),
    ])
  })

  // Records removed from a written log are seen: seq runs across the files from 1 to the lastSeq
  // run.json records at the end, and all three files must be there.
  it.each([
    ['every line of one call deleted from every file', (dir: string) => dropLines(dir, (r) => r.callId === 'b' || r.toolCallId === 'b'), ['seq_gap', 'seq_gap']],
    ['every file emptied', (dir: string) => LOG_FILES.forEach((f) => writeFileSync(join(dir, f), '')), ['seq_gap']],
    ['every file deleted', (dir: string) => LOG_FILES.forEach((f) => rmSync(join(dir, f))), ['missing_file', 'missing_file', 'missing_file', 'seq_gap']],
    ['the last event deleted', (dir: string) => dropLines(dir, (r) => r.seq === lastSeqOf(dir)), ['seq_gap']],
    ['run.json without endedAt', (dir: string) => editRun(dir, (run) => delete run.endedAt), ['run_not_ended']],
  ] as const)('verifyRun sees it: %s', async (_name, damage, kinds) => {
    const dir = join(root, `missing-${Math.random().toString(36).slice(2)}`)
    await runtimeIn(dir).dispatch(
      [
        { id: 'a', name: 'login', arguments: '{"token":"1"}' },
        { id: 'b', name: 'login', arguments: '{"token":"2"}' },
      ],
      { runId: 'r' },
    )
    const runDir = join(dir, 'r')
    expect(verifyRun(runDir)).toEqual({ ok: true, problems: [] })
    expect(replayRun(runDir).run.lastSeq).toBeGreaterThan(4)
    damage(runDir)
    const verification = verifyRun(runDir)
    expect(verification.ok).toBe(false)
    expect(verification.problems.map((p: any) => p.kind)).toEqual(kinds)
  })

  it('leaves files that load after the process is killed with SIGKILL mid-run', async () => {
    const dir = join(root, 'killed')
    const child = spawn(process.execPath, [join(__dirname, 'scenarios', 'audit-writer.cjs'), dir], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => String(chunk).includes('ready') && resolve())
      child.on('exit', (code) => reject(new Error(`the writer exited early with ${code}`)))
    })
    // Let it write a little more, then kill it wherever it is.
    await new Promise((resolve) => setTimeout(resolve, 40))
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')

    const runDir = join(dir, 'killed-run')
    const replay = replayRun(runDir)
    expect(replay.calls.length).toBeGreaterThanOrEqual(24)
    expect(replay.partialLines).toBeLessThanOrEqual(3)
    const verification = verifyRun(runDir)
    // Each dispatch reopens the run (run.json without endedAt) and ends it (endedAt, lastSeq).
    // Killed between two dispatches, the log is whole and ends cleanly; killed inside one, the
    // crash is visible: run.json has no endedAt, so the log is not ok, and otherwise only the
    // calls in flight may lack a result and the records lost with the cut lines leave seq gaps.
    const notEnded = verification.problems.filter((p: any) => p.kind === 'run_not_ended')
    if (notEnded.length === 0) {
      expect(verification).toMatchObject({ ok: true, problems: [] })
    } else {
      expect(verification.ok).toBe(false)
      expect(notEnded).toHaveLength(1)
      for (const problem of verification.problems) expect(['missing_result', 'seq_gap', 'run_not_ended']).toContain(problem.kind)
      expect(verification.problems.length).toBeLessThanOrEqual(12)
    }
  })

  it('names a bad audit option and refuses a replay of nothing', () => {
    expect(() => new ToolRuntime({ audit: { dir: '' } })).toThrow(/options\.audit\.dir must be a non-empty path/)
    expect(() => new ToolRuntime({ audit: { dir: root, flushMs: 1 } as any })).toThrow(/unknown key "flushMs"/)
    expect(() => replayRun(join(root, 'nope'))).toThrow(/nope/)
  })
})

/** Every file of a run directory as one text. */
function everything(runDir: string) {
  return ['run.json', 'calls.jsonl', 'results.jsonl', 'events.jsonl'].map((f) => readFileSync(join(runDir, f), 'utf8')).join('\n')
}

// Seen by a new user (issue 19): an audit dir under a regular file was accepted, the calls ran
// `ok` and the log was silently off (only a process warning said so).
describe('audit log: a directory that cannot be written is never silent', () => {
  it('refuses at construction a dir that cannot be created or is not a directory, naming the path and the OS error', async () => {
    const base = mkdtempSync(join(tmpdir(), 'audit-off-'))
    const file = join(base, 'not-a-dir')
    writeFileSync(file, 'x')
    const cases: [string, RegExp][] = [
      [join(file, 'under'), /ENOTDIR/],
      [file, /EEXIST|not a directory/],
      [join(file, 'a', 'b'), /ENOTDIR/],
    ]
    for (const [dir, os] of cases) {
      for (const make of [
        () => new ToolRuntime({ audit: { dir } }),
        () => new ToolRuntime().dispatch([], { audit: { dir } }),
        () => auditOption('run: options.audit', { dir }),
      ]) {
        let thrown: any
        try {
          await make()
        } catch (error) {
          thrown = error
        }
        expect(thrown?.code, dir).toBe('VALIDATION_ERROR')
        expect(thrown.message, dir).toContain(JSON.stringify(dir).slice(1, -1).slice(0, 40))
        expect(thrown.message, dir).toMatch(os)
      }
    }
    new ToolRuntime({ audit: { dir: join(base, 'made', 'here') } })
    expect(statSync(join(base, 'made', 'here')).isDirectory()).toBe(true)
  })

  // Attack review 21 (c1, beside it): the engine's writer opens its logs for append, following a
  // link planted where one goes, and cut the target's partial last line (or added a newline) before
  // its check of what the file is failed the flush. The run's files are checked first.
  it('a link or a directory planted where a log file goes turns the log off, naming it, and its target is untouched', async () => {
    const base = mkdtempSync(join(tmpdir(), 'audit-planted-'))
    for (const name of ['calls.jsonl', 'results.jsonl', 'events.jsonl']) {
      const dir = auditRunDir(base, `planted-${name}`)
      mkdirSync(dir, { recursive: true })
      const victim = join(base, `victim-${name}`)
      writeFileSync(victim, 'IMPORTANT, no newline at the end {"partial')
      symlinkSync(victim, join(dir, name))
      const runtime = runtimeIn(base)
      const warnings = await warningsDuring(async () => {
        const [result] = await runtime.dispatch([{ id: 'p', name: 'login', arguments: { token: 't' } }], { runId: `planted-${name}` })
        expect(result.status).toBe('ok')
        expect(result.auditFailed).toContain(`${join(dir, name)} is a symlink: refused`)
      })
      expect(warnings.some((w) => w.includes(`${join(dir, name)} is a symlink: refused`))).toBe(true)
      expect(readFileSync(victim, 'utf8')).toBe('IMPORTANT, no newline at the end {"partial')
      expect(existsSync(join(dir, 'run.json'))).toBe(false)
    }
    const dir = auditRunDir(base, 'a-directory')
    mkdirSync(join(dir, 'events.jsonl'), { recursive: true })
    const [result] = await runtimeIn(base).dispatch([{ id: 'p', name: 'login', arguments: { token: 't' } }], { runId: 'a-directory' })
    expect(result.auditFailed).toContain(`${join(dir, 'events.jsonl')} is a directory, not a log file: refused`)
  })

  it('a root that stops being writable later flags every result and emits audit_failed', async () => {
    const base = mkdtempSync(join(tmpdir(), 'audit-later-'))
    const dir = join(base, 'log')
    const events: any[] = []
    const runtime = new ToolRuntime({ audit: { dir }, onEvent: (e) => events.push(e) })
    runtime.register({ name: 't', parameters: { type: 'object' }, execute: async () => 'ran' })
    rmSync(dir, { recursive: true })
    writeFileSync(dir, 'now a file')
    const warnings = await warningsDuring(async () => {
      const results = await runtime.dispatch(
        [
          { id: 'c1', name: 't', arguments: {} },
          { id: 'c2', name: 't', arguments: {} },
        ],
        { runId: 'r1' },
      )
      for (const result of results) {
        expect(result.status).toBe('ok')
        expect(result.auditFailed).toMatch(/audit log of run "r1" cannot be written/)
      }
    })
    expect(warnings.some((w) => w.includes('r1'))).toBe(true)
    const failed = events.filter((e) => e.type === 'audit_failed')
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ toolCallId: 'c1', toolName: 't', runId: 'r1', message: expect.stringContaining('cannot be written') })
    // A log that works flags nothing.
    const fine = new ToolRuntime({ audit: { dir: join(base, 'fine') }, onEvent: (e) => events.push(e) })
    fine.register({ name: 't', parameters: { type: 'object' }, execute: async () => 'ran' })
    const [ok] = await fine.dispatch([{ id: 'c3', name: 't', arguments: {} }], { runId: 'r2' })
    expect(ok.auditFailed).toBeUndefined()
    expect(events.filter((e) => e.type === 'audit_failed')).toHaveLength(1)
  })
})

// Seen in the issue 19 round 8 review: a log file replaced (or the run directory removed)
// between the write of a call and the flush of its result took the result into a file no path
// reaches, and nothing said so; a failure of the run's last flush was a process warning only.
describe('audit log: a write that fails after the call was recorded is never silent', () => {
  it('results.jsonl replaced by a directory while the tool runs: the result says so, audit_failed, verifyRun sees the loss', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-replaced-'))
    const events: any[] = []
    const runtime = new ToolRuntime({ audit: { dir, flushIntervalMs: 0 }, onEvent: (e) => events.push(e) })
    let calls = ''
    runtime.register({
      name: 'swap',
      parameters: { type: 'object' },
      execute: async () => {
        const runDir = auditRunDir(dir, 'swapped')
        // the call's record reaches the disk first (the flush timer), then the file is replaced
        for (let i = 0; i < 200 && calls === ''; i++) {
          await sleep(5)
          calls = readFileSync(join(runDir, 'calls.jsonl'), 'utf8')
        }
        rmSync(join(runDir, 'results.jsonl'))
        mkdirSync(join(runDir, 'results.jsonl'))
        return 'ran'
      },
    })
    const warnings = await warningsDuring(async () => {
      const [result] = await runtime.dispatch([{ id: 'c1', name: 'swap', arguments: {} }], { runId: 'swapped' })
      expect(result!.status).toBe('ok')
      expect(result!.auditFailed).toMatch(/results\.jsonl/)
    })
    expect(calls).toContain('"callId":"c1"')
    expect(warnings.some((w) => w.includes('swapped'))).toBe(true)
    const failed = events.filter((e) => e.type === 'audit_failed')
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ toolCallId: 'c1', runId: 'swapped', message: expect.stringContaining('replaced') })
    const kinds = verifyRun(dir, 'swapped').problems.map((p: any) => p.kind)
    expect(kinds).toEqual(expect.arrayContaining(['missing_file', 'missing_result', 'run_not_ended']))
  })

  it('the run directory replaced by a regular file between two turns: the later result and the run say so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-run-gone-'))
    const events: any[] = []
    const runtime = new ToolRuntime({ audit: { dir, flushIntervalMs: 0 } })
    runtime.register({ name: 't', parameters: { type: 'object' }, execute: async () => 'ran' })
    const { model } = scriptedModel('openai-chat', [
      { calls: [{ id: 'k1', name: 't', args: '{}' }] },
      { calls: [{ id: 'k2', name: 't', args: '{}' }] },
      { text: 'done' },
    ])
    let turn = 0
    let outcome: any
    const warnings = await warningsDuring(async () => {
      outcome = await runtime.run({
        wire: 'openai-chat',
        runId: 'gone',
        onEvent: (e) => events.push(e),
        model: (request: any) => {
          // after the first dispatch resolved and its records were written
          if (turn++ === 1) {
            const runDir = auditRunDir(dir, 'gone')
            rmSync(runDir, { recursive: true })
            writeFileSync(runDir, 'not a directory')
          }
          return model(request)
        },
      })
    })
    expect(outcome.stopReason).toBe('stop')
    expect(outcome.auditFailed).toMatch(/audit log of run "gone"/)
    expect(warnings.some((w) => w.includes('gone'))).toBe(true)
    const results = events.filter((e) => e.type === 'tool_execution_end').map((e) => e.result)
    expect(results.map((r: any) => r.callId)).toEqual(['k1', 'k2'])
    expect(results[0].auditFailed).toBeUndefined()
    const failed = events.filter((e) => e.type === 'audit_failed')
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ toolCallId: 'k2', runId: 'gone' })
    expect(verifyRun(dir, 'gone').problems.map((p: any) => p.kind)).toEqual(['unreadable_run'])
  })
})

// Seen by a new user (issue 19): a hook's argsHash of {"n":1.0} was the hash of the model's
// spelling, the audit log's (after JavaScript) of {"n":1}.
describe('argsHash: one canonical form, numbers by value', () => {
  it("a hook's argsHash is the audit log's for every spelling of a number, and the run verifies", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'argshash-'))
    const runtime = new ToolRuntime({ audit: { dir } })
    runtime.register({ name: 't', parameters: { type: 'object' }, execute: async () => 'x' })
    const spellings = ['1', '1.0', '1e0', '10E-1', '-0', '0.0', '2.50', '25e-1', '1e300', '-7.000']
    const calls = spellings.map((n, i) => ({ id: `c${i}`, name: 't', arguments: `{"n":${n},"list":[${n},{"m":${n}}]}` }))
    const hooked: Record<string, string> = {}
    await runtime.dispatch(calls, {
      runId: 'r',
      beforeToolCall: ({ call }) => {
        hooked[call.callId] = call.argsHash
        return undefined
      },
    })
    const logged = Object.fromEntries(replayRun(dir, 'r').calls.map((c: any) => [c.callId, c.argsHash]))
    for (const call of calls) expect(hooked[call.id], call.arguments).toBe(logged[call.id])
    const byValue = (n: string) => hooked[`c${spellings.indexOf(n)}`]
    expect(byValue('1.0')).toBe(byValue('1'))
    expect(byValue('10E-1')).toBe(byValue('1'))
    expect(byValue('-0')).toBe(byValue('0.0'))
    expect(byValue('2.50')).toBe(byValue('25e-1'))
    expect(byValue('1')).not.toBe(byValue('-0'))
    expect(verifyRun(dir, 'r').ok).toBe(true)
  })
})

// Seen by a new user (issue 19): two calls with one id in a batch both ran, and verifyRun then
// reported duplicate_call for a run that lost nothing.
describe('a call id repeated in a batch', () => {
  it('is refused before it runs, naming the id, and the audit log verifies clean', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dup-'))
    const runtime = new ToolRuntime({ audit: { dir } })
    const ran: number[] = []
    runtime.register({ name: 'add', parameters: { type: 'object' }, execute: async (_id: string, a: any) => { ran.push(a.n); return `n=${a.n}` } })
    const results = await runtime.dispatch(
      [
        { id: 'call_0', name: 'add', arguments: '{"n":1}' },
        { id: 'call_0', name: 'add', arguments: '{"n":2}' },
        { id: 'call_1', name: 'add', arguments: '{"n":3}' },
        { id: 'call_0', name: 'add', arguments: '{"n":4}' },
      ],
      { runId: 'dups' },
    )
    expect(ran.sort()).toEqual([1, 3])
    expect(results.map((r) => r.status)).toEqual(['ok', 'error', 'ok', 'error'])
    for (const slot of [1, 3]) {
      expect(results[slot]!.error?.code).toBe('VALIDATION_ERROR')
      expect(results[slot]!.error?.message).toContain('"call_0" is already the id of call 0')
      expect(results[slot]!.error?.details).toEqual({ duplicateOf: 0 })
    }
    const verdict = verifyRun(dir, 'dups')
    expect(verdict.problems).toEqual([])
    expect(verdict.ok).toBe(true)
    expect(replayRun(dir, 'dups').calls.map((c: any) => c.callId)).toEqual(['call_0', 'call_1'])
  })
})

// The engine alone decides which calls repeat an id (it marks them on their start and end);
// the JavaScript layer once decided again with a Set of its own, which disagreed where the
// engine refuses first (an unknown or denied tool under a repeated id) or sees one id (two lone
// surrogates, both U+FFFD once in the engine).
describe('a call id repeated in a batch: one call and one result per id, with and without audit', () => {
  type Case = { name: string; calls: [string, string][]; refused: [number, number][] }
  const cases: Case[] = [
    { name: 'twice', calls: [['a', 't'], ['a', 't']], refused: [[1, 0]] },
    { name: 'three times', calls: [['a', 't'], ['b', 't'], ['a', 't'], ['a', 't']], refused: [[2, 0], [3, 0]] },
    { name: 'a repeat naming an unknown tool', calls: [['a', 't'], ['a', 'nope']], refused: [[1, 0]] },
    { name: 'a repeat naming a denied tool', calls: [['a', 't'], ['a', 'denied'], ['a', 't']], refused: [[1, 0], [2, 0]] },
    { name: 'a first call of an unknown tool', calls: [['a', 'nope'], ['a', 't']], refused: [[1, 0]] },
    // ids are compared as given, before a lone surrogate becomes U+FFFD (issue 19 round 9 attack review, 13.mjs)
    { name: 'two lone surrogates and U+FFFD, three ids', calls: [['x\ud800', 't'], ['x\udc00', 't'], ['x\ufffd', 't']], refused: [] },
    { name: 'a lone surrogate repeated', calls: [['x\ud800', 't'], ['x\ufffd', 't'], ['x\ud800', 't']], refused: [[2, 0]] },
  ]
  for (const audited of [true, false]) {
    for (const { name, calls, refused } of cases) {
      it(`${name}${audited ? ', audited' : ''}`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'dup-table-'))
        const events: any[] = []
        const runtime = new ToolRuntime({ policy: { deny: ['denied'] }, ...(audited ? { audit: { dir } } : {}) })
        const ran: number[] = []
        runtime.register({ name: 't', parameters: { type: 'object' }, execute: async (_id: string, a: any) => (ran.push(a.n), `n=${a.n}`) })
        runtime.register({ name: 'denied', parameters: { type: 'object' }, execute: async () => 'never' })
        const results = await runtime.dispatch(
          calls.map(([id, tool], n) => ({ id, name: tool, arguments: { n } })),
          { runId: 'dups', onEvent: (e) => events.push(e) },
        )
        const repeats = new Map(refused)
        const firsts = calls.map((_, slot) => slot).filter((slot) => !repeats.has(slot))
        expect(ran.sort()).toEqual(firsts.filter((slot) => calls[slot]![1] === 't'))
        for (const [slot, first] of refused) {
          expect(results[slot]!.status, `slot ${slot}`).toBe('error')
          expect(results[slot]!.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { duplicateOf: first } })
          expect(results[slot]!.error?.message).toContain(`is already the id of call ${first}`)
        }
        // every call, refused or not, has its start and end events; a refusal's end says what it is
        const ends = events.filter((e) => e.type === 'tool_execution_end')
        expect(ends).toHaveLength(calls.length)
        expect(events.filter((e) => e.type === 'tool_execution_start')).toHaveLength(calls.length)
        const refusals = ends.filter((e) => e.result.error?.details?.duplicateOf !== undefined)
        expect(refusals.map((e) => e.result.error.details.duplicateOf).sort()).toEqual(refused.map(([, first]) => first).sort())
        if (!audited) return
        const replay = replayRun(dir, 'dups')
        // logged as events show them: a lone surrogate as U+FFFD, the id then marked by a digest
        const ids = firsts.map((slot) => calls[slot]![0].replace(/[\ud800-\udfff]/g, '\ufffd'))
        const logged = replay.calls.map((c: any) => c.callId)
        expect(logged.map((id: string) => id.replace(/~[0-9a-f]{16}$/, ''))).toEqual(ids)
        expect(new Set(logged).size).toBe(ids.length)
        expect(replay.results.map((r: any) => r.callId).sort()).toEqual([...logged].sort())
        expect(replay.results.every((r: any) => r.error?.details?.duplicateOf === undefined)).toBe(true)
        const refusedEnds = replay.events.filter((e: any) => e.type === 'tool_execution_end' && e.result.error?.details?.duplicateOf !== undefined)
        expect(refusedEnds).toHaveLength(refused.length)
        for (const event of refusedEnds) expect(event.result.error.code).toBe('VALIDATION_ERROR')
        expect(verifyRun(dir, 'dups')).toEqual({ ok: true, problems: [] })
      })
    }
  }
})

describe('audit log: secrets never reach the disk', () => {
  const AWS = 'AKIAIOSFODNN7EXAMPLE'
  const GITHUB = 'ghp_' + 'x1'.repeat(18)

  it('scrubs a plan: its vars and args in run.json, the confirmation request in events.jsonl', async () => {
    const dir = join(root, 'plan-secrets')
    const runtime = runtimeIn(dir)
    const plan = {
      runId: 'secret-plan',
      confirmationsRequired: true,
      vars: { apiKey: TOKEN, nested: { aws: AWS } },
      steps: [
        { id: 'use', tool: 'login', args: { token: '$vars.apiKey' } },
        { id: 'raw', tool: 'login', args: { token: GITHUB, note: `key ${AWS}` } },
      ],
    }
    const requests: any[] = []
    const outcome = await runtime.executePlan(plan, { confirm: async (request) => (requests.push(request), true) })
    expect(outcome.status).toBe('ok')
    // The confirmation request itself carries the raw args (the caller's own), the log does not.
    expect(JSON.stringify(requests)).toContain(GITHUB)
    const runDir = join(dir, 'secret-plan')
    const text = everything(runDir)
    for (const secret of [TOKEN, AWS, GITHUB]) expect(text).not.toContain(secret)
    const replay = replayRun(runDir)
    expect(replay.run.plan.vars).toEqual({ apiKey: '[redacted:openai-key]', nested: { aws: '[redacted:aws-access-key]' } })
    const asked = replay.events.find((e: any) => e.type === 'run.confirmationRequested')
    expect(JSON.stringify(asked.steps)).toContain('[redacted:github-token]')
    expect(verifyRun(runDir)).toEqual({ ok: true, problems: [] })
  })

  it("scrubs with the runtime's own secret patterns", async () => {
    const dir = join(root, 'custom-secrets')
    const runtime = runtimeIn(dir, { sanitize: { secrets: { patterns: [{ kind: 'acme', pattern: 'acme_[0-9]{8}' }] } } })
    const plan = { runId: 'custom', vars: { id: 'acme_12345678' }, steps: [{ id: 'a', tool: 'login', args: { token: '$vars.id' } }] }
    expect((await runtime.executePlan(plan)).status).toBe('ok')
    const text = everything(join(dir, 'custom'))
    expect(text).not.toContain('acme_12345678')
    expect(text).toContain('[redacted:acme]')
  })
})

describe('audit log: per-run options, progress and the flush timer', () => {
  it("a run's own audit option records it there, not in the runtime's log", async () => {
    const runtimeDir = join(root, 'per-run-runtime')
    const ownDir = join(root, 'per-run-own')
    const runtime = runtimeIn(runtimeDir)
    const { model } = scriptedModel('anthropic', [{ calls: [{ id: 'p1', name: 'login', args: '{"token":"a"}' }] }, { text: 'ok' }])
    await runtime.run({ wire: 'anthropic', model, runId: 'own-run', audit: { dir: ownDir } })
    const plan = { runId: 'own-plan', steps: [{ id: 'a', tool: 'login', args: { token: 'b' } }] }
    await runtime.executePlan(plan, { audit: { dir: ownDir } })
    expect(replayRun(join(ownDir, 'own-run')).calls.map((c: any) => c.callId)).toEqual(['p1'])
    expect(replayRun(join(ownDir, 'own-plan')).calls.map((c: any) => c.stepId)).toEqual(['a'])
    for (const id of ['own-run', 'own-plan']) {
      expect(existsSync(join(runtimeDir, id))).toBe(false)
      expect(verifyRun(join(ownDir, id)).ok).toBe(true)
    }
    // Without a runtime-level log, a run's own option still records.
    const bare = new ToolRuntime()
    bare.register({ name: 'noop', parameters: { type: 'object' }, execute: async () => 'ok' })
    await bare.executePlan({ runId: 'bare-plan', steps: [{ id: 'a', tool: 'noop', args: {} }] }, { audit: { dir: ownDir } })
    expect(replayRun(join(ownDir, 'bare-plan')).run).toMatchObject({ kind: 'plan', status: 'ok' })
  })

  it('records step.progress with no listener', async () => {
    const dir = join(root, 'progress')
    const runtime = runtimeIn(dir)
    runtime.register({
      name: 'slow',
      parameters: { type: 'object' },
      execute: async (_id, _args, _signal, onUpdate) => {
        onUpdate?.({ content: [{ type: 'text', text: 'half way' }], details: {} })
        return 'done'
      },
    })
    const outcome = await runtime.executePlan({ runId: 'progress-plan', steps: [{ id: 'work', tool: 'slow', args: {} }] })
    expect(outcome.status).toBe('ok')
    const progress = replayRun(join(dir, 'progress-plan')).events.filter((e: any) => e.type === 'step.progress')
    expect(progress).toEqual([expect.objectContaining({ type: 'step.progress', stepId: 'work', tool: 'slow', attempt: 1, runId: 'progress-plan' })])
  })

  it('writes records to disk on the flushIntervalMs timer while the run is still going', async () => {
    const dir = join(root, 'interval')
    // Longer than the burst of records before the stall, so only the timer can write them.
    const runtime = new ToolRuntime({ audit: { dir, flushIntervalMs: 50 } })
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    runtime.register({ name: 'quick', parameters: { type: 'object' }, execute: async () => 'quick' })
    runtime.register({
      name: 'held',
      parameters: { type: 'object' },
      execute: async () => {
        started()
        await released
        return 'held'
      },
    })
    const plan = {
      runId: 'interval-plan',
      steps: [
        { id: 'first', tool: 'quick', args: {} },
        { id: 'second', tool: 'held', args: {}, dependsOn: ['first'] },
      ],
    }
    const done = runtime.executePlan(plan)
    await running
    const callsFile = join(dir, 'interval-plan', 'calls.jsonl')
    // The timer writes what is buffered while the second step is still running.
    for (let i = 0; i < 400 && !readFileSync(callsFile, 'utf8').includes('"stepId":"second"'); i++) await sleep(5)
    const midRun = replayRun(join(dir, 'interval-plan'))
    expect(midRun.calls.map((c: any) => c.stepId)).toEqual(['first', 'second'])
    expect(midRun.results.map((r: any) => r.callId)).toEqual(['interval-plan:first'])
    expect(midRun.run.endedAt).toBeUndefined()
    release()
    expect((await done).status).toBe('ok')
    expect(replayRun(join(dir, 'interval-plan')).run.status).toBe('ok')
  })
})

describe('audit log and approvals', () => {
  it('records the pending result and, once resolved, the final one in the same run, which verifies', async () => {
    const dir = join(root, 'approvals')
    const runtime = new ToolRuntime({ audit: { dir }, approvals: { ask: 'always' } })
    runtime.register({ name: 'write', parameters: { type: 'object' }, execute: async () => 'written' })
    const [pending] = await runtime.dispatch([{ id: 'w1', name: 'write', arguments: '{}' }], { runId: 'ap-1' })
    expect(pending.status).toBe('pending')
    const final = await runtime.resolveApproval((pending.details as any).approvalId, 'allow-once')
    expect(final.ok).toBe(true)
    const replay = replayRun(join(dir, 'ap-1'))
    expect(replay.calls.map((c: any) => c.callId)).toEqual(['w1'])
    expect(replay.results.map((r: any) => r.status)).toEqual(['pending', 'ok'])
    expect(verifyRun(join(dir, 'ap-1'))).toEqual({ ok: true, problems: [] })
  })
})

/** `{ a: { a: ... 1 } }`, `depth` objects deep. */
function nestedArgs(depth: number): object {
  let value: any = 1
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

/** Collects the ToolwireWarnings emitted while `body` runs. */
async function warningsDuring(body: () => Promise<void>) {
  const warnings: string[] = []
  const listener = (warning: Error) => warnings.push(warning.message)
  process.on('warning', listener)
  try {
    await body()
    // Warnings are emitted on the next tick.
    await sleep(5)
  } finally {
    process.off('warning', listener)
  }
  return warnings
}

describe('audit log: a call that ran is always recorded', () => {
  it('records calls whose arguments nest at any depth, whether or not their tool ran', async () => {
    const dir = join(root, 'deep')
    const runtime = new ToolRuntime({ audit: { dir } })
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async () => 'ran' })
    const depths = [1, 60, 63, 64, 65, 100, 126, 127, 128, 130, 200]
    const calls = depths.flatMap((depth) => [
      { id: `text-${depth}`, name: 'echo', arguments: JSON.stringify(nestedArgs(depth)) },
      { id: `object-${depth}`, name: 'echo', arguments: nestedArgs(depth) },
    ])
    let results: any[] = []
    const warnings = await warningsDuring(async () => {
      results = await runtime.dispatch(calls, { runId: 'deep-run' })
    })
    expect(warnings).toEqual([])
    expect(results).toHaveLength(calls.length)
    // The tool ran up to the value depth limit; deeper arguments are that call's LIMIT_EXCEEDED.
    const ran = results.filter((r) => r.ok).map((r) => Number(r.callId.split('-')[1]))
    const refused = results.filter((r) => !r.ok)
    expect(ran).toEqual(expect.arrayContaining([1, 60, 63]))
    for (const r of refused) expect(r.error.code).toBe('LIMIT_EXCEEDED')
    expect(Math.max(...ran)).toBeLessThan(Math.min(...refused.map((r) => Number(r.callId.split('-')[1]))))
    const replay = replayRun(dir, 'deep-run')
    expect(replay.malformed).toEqual([])
    // Every call has its call record and its one result, whether or not its tool ran.
    const ids = calls.map((c) => c.id)
    expect(replay.calls.map((c: any) => c.callId)).toEqual(ids)
    expect(replay.results.map((r: any) => r.callId).sort()).toEqual([...ids].sort())
    const ends = replay.events.filter((e: any) => e.type === 'tool_execution_end').map((e: any) => e.toolCallId)
    expect(ends.sort()).toEqual([...ids].sort())
    // Nothing had to be cut to be written: every record is whole.
    expect(verifyRun(dir, 'deep-run')).toMatchObject({ ok: true, problems: [] })
    for (const record of [...replay.calls, ...replay.results]) expect(record.auditIncomplete).toBeUndefined()
  })

  it('cuts a record nested too deep to be written, marks it, and verifyRun names it', () => {
    const dir = join(root, 'deep-direct')
    const log = new AuditLog(auditOption('test', { dir, flushIntervalMs: 0 }), {}, undefined)
    const recorder = log.open('deep-direct', { kind: 'dispatch' })
    for (const depth of [10, 126, 127, 200, 5000]) {
      const args = nestedArgs(depth)
      recorder.call({ callId: `d-${depth}`, tool: 'echo', attempt: 1, args })
      recorder.result({ callId: `d-${depth}`, tool: 'echo', status: 'ok', ok: true, args, content: [] })
    }
    log.release(recorder, {})
    const replay = replayRun(dir, 'deep-direct')
    expect(replay.calls.map((c: any) => c.callId)).toEqual(['d-10', 'd-126', 'd-127', 'd-200', 'd-5000'])
    expect(replay.results.map((r: any) => r.callId)).toEqual(['d-10', 'd-126', 'd-127', 'd-200', 'd-5000'])
    const verification = verifyRun(dir, 'deep-direct')
    expect(verification.ok).toBe(false)
    for (const problem of verification.problems) {
      expect(problem.kind).toBe('incomplete_record')
      // Too deep for the engine's writer, or (5000 levels) for JSON.stringify's stack itself.
      expect(problem.message).toMatch(/was not written whole: .*(nested deeper than 127 levels|Maximum call stack size exceeded)/)
    }
    const cut = new Set(verification.problems.map((p: any) => p.callId))
    // A record puts its args one level down: 126 levels fit in 127, 127 do not.
    expect([...cut].sort()).toEqual(['d-127', 'd-200', 'd-5000'])
    for (const record of [...replay.calls, ...replay.results]) {
      expect(record.auditIncomplete !== undefined).toBe(cut.has(record.callId))
    }
  })

  it('records a record JavaScript cannot serialize by its plain fields, and verifyRun names it', () => {
    // Every record dispatch, run() and executePlan() make today is plain JSON; this is the
    // writer's own guard (lib/audit.js) for a value that is not: BigInt, a cycle, a throwing toJSON.
    const dir = join(root, 'unserializable')
    const log = new AuditLog(auditOption('test', { dir, flushIntervalMs: 0 }), {}, undefined)
    const recorder = log.open('odd', { kind: 'dispatch' })
    const cycle: any = { name: 'loop' }
    cycle.self = cycle
    const throwing = {
      toJSON() {
        throw new Error('no JSON for you')
      },
    }
    const odd: [string, unknown][] = [
      ['big', { n: 10n }],
      ['cycle', cycle],
      ['throws', throwing],
    ]
    for (const [callId, args] of odd) {
      recorder.call({ callId, tool: 'echo', attempt: 1, args })
      recorder.event({ type: 'tool_execution_start', toolCallId: callId, toolName: 'echo', args })
      recorder.result({ callId, tool: 'echo', status: 'ok', ok: true, args, content: [] })
    }
    // A head without the callId a result needs: its loss is recorded.
    recorder.result({ tool: 'echo', args: { n: 1n } })
    log.release(recorder, {})
    const replay = replayRun(dir, 'odd')
    expect(replay.calls.map((c: any) => [c.callId, c.tool, c.args])).toEqual([
      ['big', 'echo', undefined],
      ['cycle', 'echo', undefined],
      ['throws', 'echo', undefined],
    ])
    expect(replay.calls[0].auditIncomplete.reason).toMatch(/cannot be serialized to JSON: .*BigInt/)
    // one line naming where the cycle closes, not V8's multi-line text (user review r8)
    expect(replay.calls[1].auditIncomplete.reason).toMatch(/^the record cannot be serialized to JSON: it holds a circular reference at \$\.[\w.]*self$/)
    expect(replay.calls[2].auditIncomplete.reason).toMatch(/no JSON for you/)
    expect(replay.results.map((r: any) => [r.callId, r.status])).toEqual([
      ['big', 'ok'],
      ['cycle', 'ok'],
      ['throws', 'ok'],
    ])
    const problems = verifyRun(dir, 'odd').problems
    expect(problems.map((p: any) => [p.kind, p.callId])).toEqual([
      ...odd.flatMap(([id]) => [
        ['incomplete_record', id],
        ['incomplete_record', id],
        ['incomplete_record', id],
      ]),
      ['lost_record', null],
    ])
    expect(problems[problems.length - 1].message).toMatch(/a record of results\.jsonl could not be written .*needs a string callId/)
  })

  it('run ids that differ only in lone surrogates get directories of their own', async () => {
    const dir = join(root, 'surrogate-ids')
    const ids = ['team\ud800', 'team\udc00', 'team\ufffd', 'team\ud800\ud800', '\udfff', 'team']
    const runtime = runtimeIn(dir)
    for (const [i, runId] of ids.entries()) {
      const [result] = await runtime.dispatch([{ id: `c${i}`, name: 'login', arguments: '{}' }], { runId })
      expect(result.runId).toBe(runId)
    }
    const dirs = ids.map((id) => auditRunDir(dir, id))
    expect(new Set(dirs).size).toBe(ids.length)
    expect(readdirSync(dir)).toHaveLength(ids.length)
    for (const [i, runId] of ids.entries()) {
      expect(replayRun(dir, runId).calls.map((c: any) => c.callId)).toEqual([`c${i}`])
      expect(verifyRun(dir, runId)).toEqual({ ok: true, problems: [] })
    }
  })

  it('names run ids with lone surrogates in the engine: four ids, four directories, each found by verifyRun and toolwire audit', async () => {
    const dir = join(root, 'surrogate-names')
    // The engine names every id from its UTF-16 code units: a lone surrogate is ~u and its hex,
    // U+FFFD is its UTF-8 percent-encoded, so no two of these share a directory.
    const named = [
      ['\ud800', '~uD800'],
      ['\ufffd', '%EF%BF%BD'],
      ['a\udc00b', 'a~uDC00b'],
      ['a\ufffdb', 'a%EF%BF%BDb'],
    ]
    const runtime = runtimeIn(dir)
    for (const [i, [runId, name]] of named.entries()) {
      const [result] = await runtime.dispatch([{ id: `s${i}`, name: 'login', arguments: '{}' }], { runId })
      expect(result.runId).toBe(runId)
      expect(auditRunDir(dir, runId)).toBe(join(dir, name))
    }
    expect(readdirSync(dir).sort()).toEqual(named.map(([, name]) => name).sort())
    for (const [i, [runId]] of named.entries()) {
      expect(replayRun(dir, runId).calls.map((c: any) => c.callId)).toEqual([`s${i}`])
      expect(verifyRun(dir, runId)).toEqual({ ok: true, problems: [] })
    }
    const cli = (...args: string[]) => {
      const out: string[] = []
      const io = { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => out.push(text) } }
      return { code: main(['audit', ...args, '--json'], io), json: JSON.parse(out.join('')) }
    }
    const whole = cli(dir)
    expect(whole.code).toBe(0)
    expect(whole.json.summary).toMatchObject({ runs: 4, calls: 4, runsWithProblems: 0 })
    expect(whole.json.runs.map((r: any) => basename(r.dir)).sort()).toEqual(named.map(([, name]) => name).sort())
    for (const [i, [runId]] of named.entries()) {
      const one = cli(dir, '--run', runId)
      expect(one.code).toBe(0)
      expect(one.json.calls.map((c: any) => c.callId)).toEqual([`s${i}`])
    }
  })

  // Seen in the issue 19 round 9 attack review (13.mjs): call ids `a\ud800` and `a\ufffd` were
  // one id once the lone surrogate became U+FFFD (the second never ran), and two ids holding
  // different tokens were one id in the log once redacted (verifyRun: duplicate_call and
  // duplicate_result on a clean run).
  it('call ids that read alike once changed stay two calls: both run, keep their ids, and the log verifies', async () => {
    const dir = join(root, 'alike-ids')
    const runtime = new ToolRuntime({ audit: { dir } })
    const seen: string[] = []
    runtime.register({ name: 't', parameters: { type: 'object' }, execute: async (id: string) => (seen.push(id), 'ok') })
    const token = (n: number) => `call_ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r${n}`
    const batches: [string, string[]][] = [
      ['lone', ['a\ud800', 'a\ufffd', 'a\udc00', 'a']],
      ['secret', [token(1), token(2), 'plain']],
    ]
    for (const [runId, ids] of batches) {
      const results = await runtime.dispatch(
        ids.map((id) => ({ id, name: 't', arguments: {} })),
        { runId },
      )
      expect(results.map((r) => r.status), runId).toEqual(ids.map(() => 'ok'))
      // the model gets each result under the id it sent
      expect(results.map((r) => r.callId), runId).toEqual(ids)
      expect(seen.splice(0), runId).toEqual(ids)
      // what the wire carries is valid text (a lone surrogate as U+FFFD): JSON.stringify escapes
      // lone surrogates only
      const encoded = JSON.stringify(runtime.encodeResults(results, 'openai-chat'))
      expect(encoded, runId).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i)
      expect(verifyRun(dir, runId), runId).toEqual({ ok: true, problems: [] })
      const replay = replayRun(dir, runId)
      const logged = replay.calls.map((c: any) => c.callId)
      expect(new Set(logged).size, runId).toBe(ids.length)
      expect(replay.results.map((r: any) => r.callId).sort(), runId).toEqual([...logged].sort())
      const text = LOG_FILES.map((f) => readFileSync(join(auditRunDir(dir, runId), f), 'utf8')).join('')
      expect(text, runId).not.toContain('ghp_A1b2')
    }
  })

  // Seen in the issue 19 round 8 review: run.json held the run id with each lone surrogate as
  // U+FFFD, so three runs of one root printed as one id in `toolwire audit`.
  it('keeps a run id that is not well-formed UTF-16 exactly: three runs, three ids printed', async () => {
    const dir = join(root, 'lone-ids')
    const runtime = runtimeIn(dir)
    const ids = ['a\ud800', 'a\udc00', 'a\ufffd']
    for (const [i, runId] of ids.entries()) await runtime.dispatch([{ id: `c${i}`, name: 'login', arguments: '{}' }], { runId })
    for (const runId of ids) {
      const replay = replayRun(dir, runId)
      expect(replay.run.runId).toBe(runId)
      expect(verifyRun(dir, runId)).toEqual({ ok: true, problems: [] })
    }
    // run.json: the display form, and the exact id where the display form loses it
    const stored = ids.map((runId) => JSON.parse(readFileSync(join(auditRunDir(dir, runId), 'run.json'), 'utf8')))
    expect(stored.map((run) => run.runId)).toEqual(['a\ufffd', 'a\ufffd', 'a\ufffd'])
    expect(stored.map((run) => run.runIdEscaped)).toEqual(['a\\ud800', 'a\\udc00', undefined])
    const cli = (...args: string[]) => {
      const out: string[] = []
      const io = { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => out.push(text) } }
      const code = main(['audit', ...args], io)
      return { code, text: out.join('') }
    }
    const json = JSON.parse(cli(dir, '--json').text)
    expect(json.runs.map((r: any) => r.run.runId).sort()).toEqual([...ids].sort())
    const { code, text } = cli(dir)
    expect(code).toBe(0)
    // printed: lone surrogates as visible escapes (written raw they would become U+FFFD)
    const shown = text.split('\n').filter((line) => /^ {2}a/.test(line)).map((line) => line.trim().split(' ')[0])
    expect(shown).toHaveLength(3)
    expect(shown.sort()).toEqual(['a\\uD800', 'a\\uDC00', 'a\ufffd'].sort())
    for (const runId of ids) expect(cli(dir, '--run', runId).text.split('\n')[0]).toContain(`Run ${runId.replace('\ud800', '\\uD800').replace('\udc00', '\\uDC00')} `)
  })

  it('one run directory reached through a symlink and by its real path has one writer', async () => {
    const real = join(root, 'real-root')
    const link = join(root, 'link-root')
    mkdirSync(real, { recursive: true })
    symlinkSync(real, link)
    const batch = (p: string) => Array.from({ length: 4 }, (_, i) => ({ id: `${p}${i}`, name: 'login', arguments: '{}' }))
    await Promise.all([
      runtimeIn(real).dispatch(batch('a'), { runId: 'linked' }),
      runtimeIn(link).dispatch(batch('b'), { runId: 'linked' }),
    ])
    expect(replayRun(real, 'linked').calls).toHaveLength(8)
    expect(verifyRun(real, 'linked')).toEqual({ ok: true, problems: [] })
  })

  it('records lone surrogates in arguments and results as U+FFFD, whole', async () => {
    const dir = join(root, 'surrogates')
    const runtime = new ToolRuntime({ audit: { dir } })
    const cut = '😀'.slice(0, 1)
    runtime.register({
      name: 'slice',
      parameters: { type: 'object' },
      execute: async () => ({ content: [{ type: 'text', text: `cut ${cut}` }], details: { cut } }),
    })
    const warnings = await warningsDuring(async () => {
      await runtime.dispatch(
        [
          { id: 's1', name: 'slice', arguments: '{"s":"\\ud83d"}' },
          { id: 's2', name: 'slice', arguments: { s: cut, [cut]: 1 } },
        ],
        { runId: 'surrogates' },
      )
    })
    expect(warnings).toEqual([])
    const replay = replayRun(dir, 'surrogates')
    expect(replay.calls.map((c: any) => c.callId)).toEqual(['s1', 's2'])
    expect(replay.results.map((r: any) => r.callId).sort()).toEqual(['s1', 's2'])
    expect(replay.events.filter((e: any) => e.type === 'tool_execution_end')).toHaveLength(2)
    expect(JSON.stringify(replay.calls)).not.toMatch(/\\ud83d/i)
    expect(verifyRun(dir, 'surrogates')).toEqual({ ok: true, problems: [] })
  })

  it('two audit options naming one directory share its writer: one seq, no duplicate lines', async () => {
    const dir = join(root, 'shared-writer')
    const runtime = new ToolRuntime()
    runtime.register({ name: 'wait', parameters: { type: 'object' }, execute: async () => (await sleep(5), 'done') })
    const batch = (prefix: string) => Array.from({ length: 4 }, (_, i) => ({ id: `${prefix}${i}`, name: 'wait', arguments: '{}' }))
    await Promise.all([
      runtime.dispatch(batch('a'), { runId: 'shared', audit: { dir } }),
      runtime.dispatch(batch('b'), { runId: 'shared', audit: { dir } }),
      new ToolRuntime({ audit: { dir } }).dispatch([], { runId: 'shared' }),
    ])
    expect(replayRun(dir, 'shared').calls).toHaveLength(8)
    expect(verifyRun(dir, 'shared')).toEqual({ ok: true, problems: [] })
  })
})

describe('audit log: run ids map to directories one-to-one', () => {
  const awkward = [
    'team/a',
    'team_a',
    'team%2Fa',
    'team\\a',
    'team a',
    '.',
    '..',
    '../escape',
    '.hidden',
    'trailing.',
    'Run',
    'run',
    'con',
    'nul.txt',
    'é',
    'e\u0301',
    '日本語/😀',
    '%',
    '~',
    'a'.repeat(127),
    'a'.repeat(129),
    'a'.repeat(2000),
    'a'.repeat(2000) + 'b',
  ]

  it('gives every awkward run id its own directory under the root, found again by id', async () => {
    const dir = join(root, 'ids')
    const runtime = new ToolRuntime({ audit: { dir } })
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async (_id, args: any) => `got ${args.i}` })
    for (const [i, runId] of awkward.entries()) {
      await runtime.dispatch([{ id: `call-${i}`, name: 'echo', arguments: JSON.stringify({ i }) }], { runId })
    }
    const dirs = awkward.map((runId) => auditRunDir(dir, runId))
    expect(new Set(dirs.map((d) => d.toLowerCase())).size).toBe(awkward.length)
    // One component under the root each: nothing written beside or above it.
    for (const runDir of dirs) {
      expect(dirname(runDir)).toBe(dir)
      expect(basename(runDir).length).toBeLessThanOrEqual(128)
    }
    expect(readdirSync(dir).sort()).toEqual(dirs.map((d) => basename(d)).sort())
    expect(existsSync(join(root, 'escape'))).toBe(false)
    for (const [i, runId] of awkward.entries()) {
      const replay = replayRun(dir, runId)
      expect(replay.run.runId).toBe(runId)
      expect(replay.calls.map((c: any) => c.callId)).toEqual([`call-${i}`])
      expect(replayRun(dirs[i])).toEqual(replay)
      expect(verifyRun(dir, runId)).toEqual({ ok: true, problems: [] })
    }
  })

  it('keeps simple run ids as their directory names', () => {
    for (const runId of ['r-1', 'agent-1', 'plan_2', 'dispatch_lz3k_1a', '550e8400-e29b-41d4-a716-446655440000', 'v1.2']) {
      expect(auditRunDir('/audit', runId)).toBe(join('/audit', runId))
    }
    expect(auditRunDir('/audit', 'team/a')).toBe(join('/audit', 'team%2Fa'))
    expect(() => auditRunDir('/audit', 3 as any)).toThrow(/auditRunDir: runId must be a string, got number 3/)
    expect(() => replayRun(root, 5 as any)).toThrow(/runId must be a string/)
  })

  it('a dispatch without a runId carries the run id it was recorded under', async () => {
    const dir = join(root, 'generated')
    const runtime = new ToolRuntime({ audit: { dir }, approvals: { security: 'full', ask: 'off' } })
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async () => 'ok' })
    runtime.register({ name: 'write', parameters: { type: 'object' }, approval: { ask: 'always' }, execute: async () => 'written' })
    const results = await runtime.dispatch([
      { id: 'g1', name: 'echo', arguments: '{}' },
      { id: 'g2', name: 'nope', arguments: '{}' },
      { id: 'g3', name: 'write', arguments: '{}' },
    ])
    const runId = results[0].runId!
    expect(runId).toMatch(/^dispatch_/)
    expect(results.map((r) => r.runId)).toEqual([runId, runId, runId])
    expect(results[2].status).toBe('pending')
    // The approved call's final result joins the same run.
    const final = await runtime.resolveApproval((results[2].details as any).approvalId, 'allow-once')
    expect(final.runId).toBe(runId)
    const replay = replayRun(dir, runId)
    expect(replay.calls.map((c: any) => c.callId)).toEqual(['g1', 'g2', 'g3'])
    expect(replay.results.map((r: any) => [r.callId, r.status]).sort()).toEqual([
      ['g1', 'ok'],
      ['g2', 'error'],
      ['g3', 'ok'],
      ['g3', 'pending'],
    ])
    expect(verifyRun(dir, runId)).toEqual({ ok: true, problems: [] })
    // Another dispatch gets another run.
    const [other] = await runtime.dispatch([{ id: 'g4', name: 'echo', arguments: '{}' }])
    expect(other.runId).not.toBe(runId)
  })
})

describe('result envelope: durationMs and argsHash', () => {
  it('durationMs is rounded to microseconds', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'wait', parameters: { type: 'object' }, execute: async () => (await sleep(1), 'done') })
    const results = await runtime.dispatch(Array.from({ length: 12 }, (_, i) => ({ id: `w${i}`, name: 'wait', arguments: '{}' })))
    for (const result of results) {
      expect(result.durationMs).toBeGreaterThan(0)
      expect(String(result.durationMs)).toMatch(/^\d+(\.\d{1,3})?$/)
    }
  })

  it("a ToolCall's argsHash is the audit log's: SHA-256 of the canonical arguments", async () => {
    const dir = join(root, 'hash')
    const seen: string[] = []
    const runtime = new ToolRuntime({ audit: { dir } })
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async () => 'ok' })
    await runtime.dispatch([{ id: 'h1', name: 'echo', arguments: '{"b":1,"a":[true,null,"x"]}' }], {
      runId: 'hash',
      beforeToolCall: ({ call }: any) => {
        seen.push(call.argsHash)
      },
    })
    // printf '%s' '{"a":[true,null,"x"],"b":1}' | sha256sum
    const expected = '54a65415ad370228851a1da4b31b6fd42dc58b19a50d35cae759325f7388ce64'
    expect(seen).toEqual([expected])
    expect(replayRun(dir, 'hash').calls[0].argsHash).toBe(expected)
  })
})
