// Secrets an attacker review found leaking past the scrubber, each checked at every exit a
// result reaches (the result, events, encodeResults on all five wires, toToolResultMessage,
// toInvocationRecord, audit files) or at the file it was written to (the approvals file).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { ToolRuntime, encodeResults } from '../dist/index.js'
import { WIRES, expectNoLeak, showing } from './helpers.js'

const root = mkdtempSync(join(tmpdir(), 'toolwire-secrets-exits-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Runs one tool returning `value` and returns every exit of its result. */
const run = (name: string, value: unknown) => showing(join(root, name.replace(/[^a-z0-9]+/gi, '-')), value)

// Made-up key material: a 64-character line and a shorter last line.
const LINE = 'MIIEowIBAAKCAQEAx8Qm1wLzj5b9Y3k2PqV7nRt0a4XyZc1dEf6gHi8JkLmNoPqR'
const LAST = 'Rs3TuVwXyZ0aB1cD2eF3gH4iJ5kL=='
/** The key's lines, each after `prefix` and before `suffix` (the BEGIN line after `first`). */
const quoted = (first: string, prefix: string, suffix = '') =>
  [
    `${first}-----BEGIN RSA PRIVATE KEY-----${suffix}`,
    `${prefix}${LINE}${suffix}`,
    `${prefix}${LAST}${suffix}`,
    `${prefix}-----END RSA PRIVATE KEY-----${suffix}`,
  ].join('\n')

describe('a private key with a prefix on every line', () => {
  const rows: [string, string][] = [
    ['git diff, a removed key', `diff --git a/id_rsa b/id_rsa\n--- a/id_rsa\n+++ /dev/null\n@@ -1,4 +0,0 @@\n${quoted('-', '-')}\n`],
    ['git diff, an added key', `@@ -0,0 +1,4 @@\n${quoted('+', '+')}\n`],
    ['a shell comment', `# old key:\n${quoted('# ', '# ')}\necho done`],
    ['a mail quote', `On Monday you wrote:\n${quoted('> ', '> ')}\n`],
    [
      'grep -n output',
      `id_rsa:1:-----BEGIN RSA PRIVATE KEY-----\nid_rsa:2:${LINE}\nid_rsa:3:${LAST}\nid_rsa:4:-----END RSA PRIVATE KEY-----\n`,
    ],
    ['JS string concatenation', `const key =\n  ${quoted('"', '  + "', '\\n"')};\n`],
    ['Python implicit concatenation', `KEY = (\n${quoted('    "', '    "', '\\n"')}\n)\n`],
  ]
  for (const [name, text] of rows) {
    it(`${name}: no line of the body reaches any exit`, async () => {
      const where = await run(name, text)
      expect(where.results).toContain('[redacted:private-key]')
      expectNoLeak(name, [LINE.slice(0, 24), LAST.slice(0, 20)], where)
    })
  }
})

describe('allow-always never writes a secret to the approvals file', () => {
  const token = 'tok3nAbCdEfGh1234567890xyz'
  const commands: [string, string][] = [
    // Wrappers and substitutions are remembered as their exact text (a plain program as its path).
    [`sh -c "curl -H 'Authorization: Bearer ${token}' https://api.example.com"`, token],
    [`env GIT_TRACE=1 git clone https://admin:${token}@git.example.com/repo`, token],
  ]
  it('a command holding a secret runs once, with a warning, and is not remembered', async () => {
    const file = join(root, 'state', 'approvals.json')
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(warning.message)
    process.on('warning', onWarning)
    try {
      const asked: string[] = []
      const runtime = new ToolRuntime({
        approvals: { ask: 'always', file, onApproval: (request: any) => (asked.push(request.command), 'allow-always' as const) },
      })
      const ran: string[] = []
      runtime.register({
        name: 'exec',
        command: 'command',
        parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
        execute: async (id: string) => (ran.push(id), 'ran'),
      })
      const calls = [...commands.map(([command], i) => ({ id: `c${i}`, name: 'exec', arguments: JSON.stringify({ command }) }))]
      calls.push({ id: 'plain', name: 'exec', arguments: JSON.stringify({ command: 'sh -c ls' }) })
      const results = await runtime.dispatch(calls)
      expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok'])
      await new Promise((resolve) => setImmediate(resolve))
      const saved = readFileSync(file, 'utf8')
      for (const [, secret] of commands) expect(saved).not.toContain(secret)
      // A command without a secret is still remembered.
      expect(JSON.parse(saved).commands.exec.exact).toEqual(['sh -c ls'])
      expect(warnings.filter((w) => w.includes('holds a secret'))).toHaveLength(2)
      expect(warnings.join('\n')).not.toContain(token)
      // Asked again next time: nothing was remembered for them.
      asked.length = 0
      await runtime.dispatch(calls.slice(0, 2))
      expect(asked).toHaveLength(2)
    } finally {
      process.off('warning', onWarning)
    }
  })
})

describe('fields of content blocks beside type and text', () => {
  const GH = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`
  const rows: [string, unknown][] = [
    ['annotations', { content: [{ type: 'text', text: 'ok', annotations: { k: GH } }] }],
    ['_meta', { content: [{ type: 'text', text: 'ok', _meta: { token: GH } }], details: { n: 1 } }],
    ['a secret as the field name', { content: [{ type: 'text', text: 'ok', [GH]: true }] }],
  ]
  for (const [name, value] of rows) {
    it(`${name}: the block reaches no exit with the field (only type and text are kept)`, async () => {
      const where = await run(`field ${name}`, value)
      expect(JSON.parse(where.results)[0].content).toEqual([{ type: 'text', text: 'ok' }])
      expectNoLeak(name, [GH.slice(4)], where)
    })
  }
})

describe('what a tool or the model names', () => {
  const GH = `ghp_${'f9E8d7C6b5'.repeat(4).slice(0, 36)}`
  it("an image's declared mimeType holding a secret is scrubbed in the report and events, and bounded", async () => {
    const where = await run('mime', { content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: `image/${GH}` }] })
    expect(where.results).toContain('image/[redacted:github-token]')
    expectNoLeak('declared mimeType', [GH.slice(4)], where)
    const long = await run('mime-long', { content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: `image/${'x'.repeat(100_000)}` }] })
    expect(long.results.length).toBeLessThan(4000)
  })

  it('an unknown tool name of a megabyte is echoed within 64 characters to gemini and mistral', async () => {
    const runtime = new ToolRuntime({})
    const name = `n${'x'.repeat(1 << 20)}`
    const [result] = await runtime.dispatch([{ id: 'c1', name, arguments: '{}' }])
    expect(result.error?.code).toBe('NOT_FOUND')
    const gemini = encodeResults([result], 'gemini') as any[]
    expect(gemini[0].parts[0].functionResponse.name).toBe(name.slice(0, 64))
    const mistral = encodeResults([result], 'mistral') as any[]
    expect(mistral[0].name).toBe(name.slice(0, 64))
    for (const wire of WIRES) expect(JSON.stringify(encodeResults([result], wire)).length, wire).toBeLessThan(8000)
  })
})
