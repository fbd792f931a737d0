// The third attack review's secrets findings (its 6 and 9) through a real dispatch: a private
// key's lines as a list whose items end in CR (a Windows file split on '\n'), carry a diff's
// prefix or are [n, line] pairs (JSON and Python), lines joined by NEL, VT or FF, a PuTTY key as a
// list of lines; cookie records of Selenium (printed by Python), WebDriver BiDi and tough-cookie,
// and a Netscape cookies.txt. No exit (the model's text on every wire, data, events,
// toInvocationRecord, the audit files) holds a piece of the secret. Ordinary cookies (a theme,
// Google Analytics ids) keep their values.
import { describe, expect, it } from 'vitest'

import { sanitizeResult } from '../dist/index.js'
import { KEY_BODY as BODY, KEY_PEM as PEM, KEY_PIECES as PIECES, expectNoLeak, showingEach } from './helpers.js'

const run = showingEach('secret-shapes-r3')
const CRLF_FILE = PEM.join('\r\n') + '\r\n'
const SID = 'AbC123xyzQ9RsT0uVwX8pLmN'

describe("a private key's lines as lists and line breaks (attack review 3's 6)", () => {
  const rows: [string, unknown][] = [
    ['{ lines: text.split("\\n") } of a CRLF file', { path: 'id_rsa', lines: CRLF_FILE.split('\n') }],
    ['the JSON text of that list, pretty', JSON.stringify(CRLF_FILE.split('\n'), null, 2)],
    ['a diff as a list, added', { diff: PEM.map((line) => '+' + line) }],
    ['a diff as a list, removed', PEM.map((line) => '-' + line)],
    ['a diff as a list, context', { hunk: PEM.map((line) => ' ' + line) }],
    ['numbered pairs [[1, "-----BEGIN"], ...]', PEM.map((line, i) => [i + 1, line])],
    ["Python's list(enumerate(lines))", '[' + PEM.map((line, i) => `(${i + 1}, '${line}')`).join(', ') + ']'],
    ["Python's readlines() of a CRLF file", '[' + PEM.map((line) => `'${line}\\r\\n'`).join(', ') + ']'],
    ['lines joined by NEL', PEM.join('\u0085')],
    ['lines joined by VT', { text: PEM.join('\u000b') }],
    ['lines joined by FF', PEM.join('\u000c')],
  ]
  for (const [name, value] of rows) {
    it(`${name}: no exit holds the key's body`, async () => {
      const where = await run(value)
      expect(where.results).toContain('[redacted:private-key]')
      expectNoLeak(name, PIECES, where)
    })
  }

  it('a PuTTY key as a list of lines (CRLF items too): no exit holds its private lines', async () => {
    const ppk = ['PuTTY-User-Key-File-3: ssh-ed25519', 'Encryption: none', 'Comment: me', 'Public-Lines: 1', 'AAAAC3NzaC1lZDI1NTE5AAAAIExample', 'Private-Lines: 3', ...BODY, 'Private-MAC: 0123456789abcdef']
    for (const value of [{ lines: ppk }, { lines: (ppk.join('\r\n') + '\r\n').split('\n') }]) {
      const where = await run(value)
      expect(where.results).toContain('[redacted:private-key]')
      expect(where.results).toContain('AAAAC3NzaC1lZDI1NTE5AAAAIExample')
      expectNoLeak('PuTTY list', PIECES, where)
    }
  })

  it('line records keep their keys in data when the key spans records', async () => {
    const where = await run({ path: 'id_rsa', lines: PEM.map((text, line) => ({ line: line + 1, text })) })
    const [result] = JSON.parse(where.results) as { data: { lines: { line: number; text: string }[] } }[]
    const records = result.data.lines
    expect(records.map((record) => Object.keys(record))).toEqual(PEM.map(() => ['line', 'text']))
    expect(records.map((record) => record.line)).toEqual([1, 2, 3, 4, 5])
    expectNoLeak('line records', PIECES, where)
  })
})

describe("cookie records as other tools print them (attack review 3's 6)", () => {
  const rows: [string, unknown][] = [
    [
      "Selenium's driver.get_cookies() printed by Python",
      `[{'domain': 'app.example.com', 'httpOnly': True, 'name': 'sid', 'path': '/', 'secure': True, 'value': '${SID}'}]`,
    ],
    ["Puppeteer's cookies as Node's console.log prints them", `[ { name: 'sid', value: '${SID}', domain: 'x.io', path: '/', expires: -1, httpOnly: true } ]`],
    ['WebDriver BiDi storage.getCookies', { cookies: [{ name: 'sid', value: { type: 'string', value: SID }, domain: 'x.io', path: '/', httpOnly: true }] }],
    ['WebDriver BiDi, a base64 value', { cookies: [{ name: 'sid', value: { type: 'base64', value: btoa(SID) }, domain: 'x.io', path: '/' }] }],
    ["tough-cookie's toJSON() (got, jsdom)", { cookies: [{ key: 'sid', value: SID, domain: 'app.example.com', path: '/', httpOnly: true, hostOnly: true, creation: '2026-01-01T00:00:00.000Z' }] }],
    ['a Netscape cookies.txt (curl -c)', `# Netscape HTTP Cookie File\n\n#HttpOnly_app.example.com\tFALSE\t/\tTRUE\t0\tsid\t${SID}\n`],
  ]
  for (const [name, value] of rows) {
    it(`${name}: no exit holds the cookie's value`, async () => {
      const where = await run(value)
      expect(where.results).toContain('[redacted:credential-header]')
      expectNoLeak(name, [SID, btoa(SID)], where)
    })
  }
})

describe("ordinary cookies keep their values (attack review 3's 9)", () => {
  const rows: unknown[] = [
    [{ name: 'theme', value: 'solarized-dark-2', domain: 'docs.example.com', path: '/' }],
    [{ name: '_ga', value: 'GA1.1.1234567890.1700000000', domain: '.x.io', path: '/' }],
    [{ name: '_gid', value: 'GA1.1.987654321.1700000000', domain: '.x.io', path: '/' }],
    { cookies: [{ key: 'theme', value: 'solarized-dark-2', domain: 'x.io', hostOnly: true }] },
    [{ name: 'theme', value: 'dark', domain: 'x.io', path: '/' }],
  ]
  for (const value of rows) {
    const text = JSON.stringify(value)
    it(`passes unchanged: ${text}`, () => {
      const { result, report } = sanitizeResult({ content: [{ type: 'text', text }] })
      expect((result.content[0] as { text: string }).text).toBe(text)
      expect(report?.scrubbed ?? {}).toEqual({})
    })
  }
  it('a session cookie beside them is still replaced', () => {
    const text = JSON.stringify([
      { name: 'theme', value: 'solarized-dark-2', path: '/' },
      { name: 'session', value: 'b8f3k2l9m1n4p6q7', path: '/' },
    ])
    const out = (sanitizeResult({ content: [{ type: 'text', text }] }).result.content[0] as { text: string }).text
    expect(out).toContain('solarized-dark-2')
    expect(out).not.toContain('b8f3k2l9m1n4p6q7')
  })
})
