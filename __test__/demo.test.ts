// The README's main command: the demo runs the whole story with no network and says where its
// audit log and timeline are.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { verifyRun } from '../dist/index.js'

// The demo keeps its workspace (it says where the audit log and timeline are); the test runs it
// under a temporary directory of its own, with spaces in its name, and removes that afterwards.
const temp = mkdtempSync(join(tmpdir(), 'toolwire demo test '))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

describe('the demo', () => {
  it('runs the scripted agent end to end: parallel tools, a timeout, refusals, sanitization, an audit log and a timeline', () => {
    const env = { ...process.env }
    delete env.OPENAI_API_KEY
    delete env.ANTHROPIC_API_KEY
    env.TMPDIR = temp
    const demo = spawnSync(process.execPath, [join(__dirname, '..', 'examples', 'demo.mjs')], { encoding: 'utf8', env, timeout: 30_000 })
    expect(demo.stderr).toBe('')
    expect(demo.status).toBe(0)
    const out = demo.stdout
    expect(out).toContain('a scripted model')
    // The model's text, streamed (the text_delta events' `delta`).
    expect(out).toContain('── model turn 1\nLet me look around the workspace first.\n')
    expect(out).toContain('── model turn 2\nNow the release checks.\n')
    // Five calls of the first turn in flight at once.
    expect(out).toContain('[in flight: 5]')
    expect(out).toMatch(/search_issues timeout\s+TIMEOUT/)
    expect(out).toMatch(/delete_file\s+blocked\s+POLICY_DENIED/)
    expect(out).toMatch(/exec\s+blocked\s+POLICY_DENIED\s+Tool "exec" was not run: the approval was denied/)
    expect(out).toMatch(/read_file\s+blocked\s+POLICY_DENIED\s+Tool "read_file" may only use paths inside the workspace/)
    expect(out).toMatch(/read_file\s+error\s+INVALID_JSON/)
    expect(out).toContain('1 openai-key scrubbed')
    expect(out).toContain('OPENAI_API_KEY=[redacted:openai-key]')
    expect(out).not.toContain('DemoKeyNotReal0')
    expect(out).toMatch(/characters cut/)
    expect(out).toContain('The run stopped (stop) after 3 turns')

    // Whole-line matches: the paths may hold spaces.
    const workspace = /; workspace (.+)$/m.exec(out)?.[1]
    const runDir = /^Audit log: +(.+) \(verified\)$/m.exec(out)?.[1]
    const timeline = /^Timeline: +(.+)$/m.exec(out)?.[1]
    expect(workspace).toBeDefined()
    expect(dirname(workspace!)).toBe(temp)
    expect(runDir!.startsWith(join(workspace!, '.audit'))).toBe(true)
    expect(timeline).toBe(join(workspace!, 'timeline.html'))
    expect(verifyRun(runDir!).ok).toBe(true)
    expect(existsSync(timeline!)).toBe(true)
    const html = readFileSync(timeline!, 'utf8')
    expect(html).toContain('search_issues')
    expect(html).not.toContain('DemoKeyNotReal0')
  })
})
