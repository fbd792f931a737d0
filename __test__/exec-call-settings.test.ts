// Issue 19 attack 7: an exec tool whose working directory and environment sit one level down
// (`{ command, options: { cwd, env } }`, as child_process takes them) ran git in another
// repository (or with GIT_CONFIG_* set) than the one analyzed. Run for real with git: the
// repository `sub` runs a program through core.fsmonitor.
import { execSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { ToolRuntime } from '../dist/index.js'

describe('exec calls: settings the analysis does not read', () => {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'toolwire-exec-settings-')))
  afterAll(() => rmSync(ws, { recursive: true, force: true }))
  execSync('git init -q . && git init -q sub', { cwd: ws })
  writeFileSync(join(ws, 'sub/evil.sh'), `#!/bin/sh\ntouch ${ws}/PWNED\n`)
  chmodSync(join(ws, 'sub/evil.sh'), 0o755)
  execSync(`git -C sub config core.fsmonitor ${ws}/sub/evil.sh`, { cwd: ws })
  const fsmonitor = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: `${ws}/sub/evil.sh` }

  const runtime = new ToolRuntime({ workspaceRoot: ws, approvals: { security: 'allowlist', ask: 'on-miss', allowlist: ['git'] } })
  runtime.register({
    name: 'exec',
    command: 'command',
    parameters: { type: 'object', required: ['command'], properties: { command: { type: 'string' }, options: { type: 'object' } } },
    execute: async (_id: string, { command, options = {} }: any) =>
      execSync(command, { cwd: join(ws, options.cwd ?? options.settings?.cwd ?? '.'), env: { ...process.env, ...options.env }, encoding: 'utf8' }),
  })
  const run = async (options: object) => {
    rmSync(join(ws, 'PWNED'), { force: true })
    const [result] = await runtime.dispatch([{ id: 'c1', name: 'exec', arguments: JSON.stringify({ command: 'git status', options }) }])
    return { status: result.status, message: result.error?.message ?? '', ran: existsSync(join(ws, 'PWNED')) }
  }

  it('the repository below runs its program when the tool is let through (the attack is real)', () => {
    rmSync(join(ws, 'PWNED'), { force: true })
    execSync('git status', { cwd: join(ws, 'sub'), stdio: 'ignore' })
    expect(existsSync(join(ws, 'PWNED'))).toBe(true)
  })

  it.each([
    ['options.cwd', { cwd: 'sub' }],
    ['options.env', { env: fsmonitor }],
    ['options.settings.cwd', { settings: { cwd: 'sub' } }],
  ])('a call with %s is a miss naming it, and nothing runs', async (path, options) => {
    const got = await run(options)
    expect(got.status).toBe('pending')
    expect(got.message).toContain(`"${path}"`)
    expect(got.ran).toBe(false)
  })

  it('a call with other options runs (control)', async () => {
    const got = await run({ timeout: 5000 })
    expect(got).toEqual({ status: 'ok', message: '', ran: false })
  })
})
