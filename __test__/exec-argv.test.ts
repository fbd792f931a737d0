// An exec tool whose command is an argument vector (`{ command: ["git", "status"] }`, as Codex
// sends it) was refused as "missing or not a string" (user review r8, repro 20-exec-shapes). It
// is analyzed as the line of its elements each quoted for the shell, which the analysis reads
// back as exactly those words, and as its elements joined without quotes (what a tool that
// builds a shell line by joining them runs); it is approved only when both are. Run for real
// without a shell (execFileSync), the program gets the same words, and no element becomes an
// operator, an expansion or a second command.
import { execFileSync, execSync } from 'node:child_process'
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { ToolRuntime } from '../dist/index.js'

describe('exec calls with an argument array', () => {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'toolwire-exec-argv-')))
  afterAll(() => rmSync(ws, { recursive: true, force: true }))
  execSync('git init -q .', { cwd: ws })
  const pwned = join(ws, 'PWNED')

  const runtime = new ToolRuntime({ workspaceRoot: ws, approvals: { security: 'allowlist', ask: 'on-miss', allowlist: ['git', 'printf'] } })
  runtime.register({
    name: 'exec',
    command: 'command',
    parameters: { type: 'object', required: ['command'], properties: { command: {} } },
    execute: async (_id: string, { command }: any) => execFileSync(command[0], command.slice(1), { cwd: ws, encoding: 'utf8' }),
  })
  const run = async (command: unknown) => {
    rmSync(pwned, { force: true })
    const [result] = await runtime.dispatch([{ id: 'c1', name: 'exec', arguments: JSON.stringify({ command }) }])
    const text = result.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    return { status: result.status, text, message: result.error?.message ?? '', ran: existsSync(pwned) }
  }

  it('["git", "status"] is approved and runs', async () => {
    const got = await run(['git', 'status'])
    expect(got.status).toBe('ok')
    expect(got.text).toContain('On branch')
  })

  // Each element reaches the program as it is: printf prints each argument and a comma (a
  // format with no character a shell reads specially, so the unquoted reading passes too).
  it.each([
    ['spaces', ['two words', ' lead', 'trail ']],
    ['empty strings', ['', '', 'x']],
    ['quotes that balance when unquoted', ["it's", "'", '"', `a'b"c`]],
    ['text a shell reads as itself', ['é', '日本', '-n', 'a=b', '%s%%', 'src/x.ts:12']],
  ])('%s: approved, and the program gets exactly the elements', async (_label, words) => {
    const got = await run(['printf', '%s,', ...words])
    expect(got.status).toBe('ok')
    expect(got.text).toBe(words.map((word) => `${word},`).join(''))
    expect(got.ran).toBe(false)
  })

  // Run without a shell these would be harmless words, but a tool that joins the words into a
  // shell line (`exec(command.join(' '))`) would run something else: the approval cannot see
  // which kind of tool it is, so both readings must be approved.
  it.each([
    ['an unbalanced quote', ["it's"]],
    ['command substitution', ['$(touch PWNED)']],
    ['backquotes', ['`touch PWNED`']],
    ['a second command', [';', 'touch PWNED']],
    ['a redirection', ['>PWNED']],
    ['a pipe into a shell', ['|', 'sh']],
  ])('%s: refused, naming the unquoted reading, and nothing runs', async (_label, words) => {
    const got = await run(['printf', '%s,', ...words])
    expect(got.status).toBe('pending')
    expect(got.message).toContain('joined into a shell line without quotes')
    expect(got.ran).toBe(false)
  })

  it('an element holding a line break is refused (the analysis reads no line break), and nothing runs', async () => {
    const got = await run(['printf', '%s', 'a\ntouch PWNED'])
    expect(got.status).toBe('pending')
    expect(got.message).toContain('newline')
    expect(got.ran).toBe(false)
  })

  it('a program the allowlist does not hold is refused as in a string command', async () => {
    const got = await run(['sh', '-c', 'touch PWNED'])
    expect(got.status).toBe('pending')
    expect(got.message).toMatch(/sh/)
    expect(got.ran).toBe(false)
  })

  it.each([
    ['an empty array', [], 'is an empty argument array'],
    ['a number element', ['git', 5], 'is an argument array whose element 1 is not a string: 5'],
    ['a NUL in an element', ['printf', 'a\u0000b'], 'is an argument array whose element 1 holds a NUL'],
    ['an object', { argv: ['git'] }, 'is neither a string nor an argument array of strings'],
  ])('%s is a miss naming why', async (_label, command, why) => {
    const got = await run(command)
    expect(got.status).toBe('pending')
    expect(got.message).toContain(`the command parameter "command" ${why}`)
    expect(got.ran).toBe(false)
  })
})
