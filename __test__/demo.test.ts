// The README's main command: the demo runs the whole story with no network and says where its
// audit log and timeline are.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

import { verifyRun } from '../index.js'

describe('the demo', () => {
  it('runs the scripted agent end to end: parallel tools, a timeout, refusals, sanitization, an audit log and a timeline', () => {
    const env = { ...process.env }
    delete env.OPENAI_API_KEY
    delete env.ANTHROPIC_API_KEY
    const demo = spawnSync(process.execPath, [join(__dirname, '..', 'examples', 'demo.mjs')], { encoding: 'utf8', env, timeout: 30_000 })
    expect(demo.stderr).toBe('')
    expect(demo.status).toBe(0)
    const out = demo.stdout
    expect(out).toContain('a scripted model')
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

    const runDir = /Audit log: +(\S+) \(verified\)/.exec(out)?.[1]
    const timeline = /Timeline: +(\S+)/.exec(out)?.[1]
    expect(runDir).toBeDefined()
    expect(verifyRun(runDir!).ok).toBe(true)
    expect(existsSync(timeline!)).toBe(true)
    const html = readFileSync(timeline!, 'utf8')
    expect(html).toContain('search_issues')
    expect(html).not.toContain('DemoKeyNotReal0')
  })
})
