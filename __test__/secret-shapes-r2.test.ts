// The second attack review's secrets findings (its 3, 9, 10 and 13) through a real dispatch: a
// private key's lines as line-numbered file readers print them, SSH2 and PuTTY keys and PEM lines
// joined by markup or Unicode separators, cookies as browser tools return them. No exit (the
// model's text on every wire, data, events, toInvocationRecord, the audit files) holds a piece of
// the secret; the look-alikes it listed pass unchanged.
import { describe, expect, it } from 'vitest'

import { sanitizeResult } from '../dist/index.js'
import { KEY_BODY as BODY, KEY_PEM as PEM, KEY_PIECES as PIECES, expectNoLeak, showingEach } from './helpers.js'

const run = showingEach('secret-shapes-r2')
const SID = 'Zx9Qw8Er7Ty6Ui5Op4As3Df2'

describe("a private key's lines as line-numbered readers print them (attack review 2's 3)", () => {
  const rows: [string, unknown][] = [
    ['{ lines: [{ line, text }] }', { path: 'id_rsa', lines: PEM.map((text, i) => ({ line: i + 1, text })) }],
    ['{ lines: [{ lineNumber, content }] }', { lines: PEM.map((content, i) => ({ lineNumber: i + 1, content })) }],
    ['a list of "N: line"', PEM.map((line, i) => `${i + 1}: ${line}`)],
    ['the text of a JSON list of "N\\tline"', JSON.stringify(PEM.map((line, i) => `${i + 1}\t${line}`))],
    ['cat -n from line 8', PEM.map((line, i) => `${String(i + 8).padStart(6)}\t${line}`).join('\n')],
    ['N| lines as data', { output: PEM.map((line, i) => `${i + 98}| ${line}`) }],
  ]
  for (const [name, value] of rows) {
    it(`${name}: no exit holds the key's body`, async () => {
      const where = await run(value)
      expect(where.results).toContain('[redacted:private-key]')
      expectNoLeak(name, PIECES, where)
    })
  }
})

describe("other armours and line breaks of private keys (attack review 2's 10)", () => {
  const rows: [string, string][] = [
    ['SSH2 (RFC 4716)', ['---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----', 'Comment: "rsa-key-20240101"', ...BODY, '---- END SSH2 ENCRYPTED PRIVATE KEY ----'].join('\n')],
    [
      'PuTTY .ppk',
      ['PuTTY-User-Key-File-3: ssh-ed25519', 'Encryption: none', 'Comment: me', 'Public-Lines: 1', 'AAAAC3NzaC1lZDI1NTE5AAAAIExample', 'Private-Lines: 3', ...BODY, 'Private-MAC: 0123456789abcdef0123456789abcdef'].join('\n'),
    ],
    ['<br>', PEM.join('<br>')],
    ['<br />', `<p>${PEM.join('<br />\n')}</p>`],
    ['U+2028', PEM.join('\u2028')],
    ['U+2029', PEM.join('\u2029')],
    ['CR alone', PEM.join('\r')],
  ]
  for (const [name, key] of rows) {
    it(`${name}: no exit holds the key's body`, async () => {
      const where = await run({ content: [{ type: 'text', text: key }] })
      expect(where.results).toContain('[redacted:private-key]')
      expectNoLeak(name, PIECES, where)
    })
  }
})

describe("cookies as browser tools return them (attack review 2's 9)", () => {
  const cookie = { name: 'session', value: SID, domain: 'app.example.com', path: '/', httpOnly: true, secure: true, sameSite: 'Lax' }
  const rows: [string, unknown][] = [
    [
      'a HAR entry (Cookie header and cookies array)',
      { log: { entries: [{ request: { method: 'GET', url: 'https://app.example.com/', headers: [{ name: 'Cookie', value: `sid=${SID}` }], cookies: [{ name: 'sid', value: SID }] } }] } },
    ],
    ['a HAR response cookie', { response: { status: 200, cookies: [{ name: 'sid', value: SID, path: '/', httpOnly: true }] } }],
    ['Playwright storageState', { cookies: [cookie], origins: [] }],
    ['Playwright context.cookies() as text', JSON.stringify([cookie], null, 2)],
    ['Puppeteer page.cookies()', [{ ...cookie, expires: -1, size: 31, session: true, priority: 'Medium' }]],
  ]
  for (const [name, value] of rows) {
    it(`${name}: no exit holds the cookie's value`, async () => {
      const where = await run(value)
      expect(where.results).toContain('[redacted:credential-header]')
      expectNoLeak(name, [SID], where)
    })
  }
  it('a cookie that is no token and name/value lists that are no cookies pass', () => {
    const value = { cookies: [{ name: 'theme', value: 'dark', path: '/' }], queryString: [{ name: 'page', value: SID }] }
    const { result, report } = sanitizeResult({ content: [{ type: 'text', text: JSON.stringify(value) }] })
    expect((result.content[0] as { text: string }).text).toBe(JSON.stringify(value))
    expect(report?.scrubbed ?? {}).toEqual({})
  })
})

describe("look-alikes that pass unchanged (attack review 2's 13, the new-user review)", () => {
  const lines = [
    'interface Props { token: AuthToken2; password?: string }',
    '<span class="token punctuation">{</span><span class="token keyword2">',
    "SyntaxError: Unexpected token 'export2024', expected expression",
    'unexpected token ReturnStatement2 at position 45',
    'invalid character token a1b2c3d4e5 in string literal',
    'token tokenizer_v2_model_2048 loaded',
    'Secret Santa2024 registration open',
    'request token: 550e8400-e29b-41d4-a716-446655440000',
    'PASSWORD=$DB_PASS123',
    'Authorization: Bearer your-token-here',
  ]
  for (const line of lines) {
    it(`passes unchanged: ${line}`, () => {
      const { result, report } = sanitizeResult({ content: [{ type: 'text', text: line }] })
      expect((result.content[0] as { text: string }).text).toBe(line)
      expect(report?.scrubbed ?? {}).toEqual({})
    })
  }
  it('a digit-free key of random mixed case is still found', () => {
    const { result } = sanitizeResult({ content: [{ type: 'text', text: 'X-Api-Key: qZxRtYpLmNvBwKeJsDfGha' }] })
    expect((result.content[0] as { text: string }).text).toBe('X-Api-Key: [redacted:credential-header]')
  })
})
