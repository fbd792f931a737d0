// The leaks a second attacker review found on the packed package, each through a real dispatch:
// the model's text (encodeResults on every wire), `data`, events, toInvocationRecord and the
// audit files must hold no piece of the secret.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { ToolRuntime, encodeResults, toInvocationRecord } from '../dist/index.js'
import { exits, expectNoLeak, filesUnder, showing } from './helpers.js'

const root = mkdtempSync(join(tmpdir(), 'toolwire-secret-leaks-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let runs = 0
const run = (value: unknown) => showing(join(root, `run-${(runs += 1)}`), value)

// Made-up material.
const TOKEN = 'q8Z2mX4vL9pR7tY1wK3nB6cH0dF5gJ'
const GH = `ghp_${TOKEN}abcdef`
const KEY_LINE = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj'
const ESC = '\u001b'
/** A 1x1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

const text = (...texts: string[]) => ({ content: texts.map((t) => ({ type: 'text', text: t })) })

describe('a secret split across the text blocks of one result', () => {
  const rows: [string, unknown, string, string][] = [
    ['a token cut in two', text(`see ${GH.slice(0, 14)}`, `${GH.slice(14)} done`), GH.slice(14), 'github-token'],
    ['the header in one block, the token in the next', text('Authorization: Bearer ', `${TOKEN}\nok`), TOKEN, 'bearer-token'],
    [
      "a private key's lines in three blocks",
      text('-----BEGIN PRIVATE KEY-----', KEY_LINE, '-----END PRIVATE KEY-----'),
      KEY_LINE.slice(8, 40),
      'private-key',
    ],
    // Two kinds over one boundary: a URL password starting with a GitHub token (matched alone in
    // the first block), cut inside the password: its rest up to the @ is not token characters.
    ['a URL password starting with a token, cut inside it', text(`postgres://app:${GH}`, 'Xy!pw$9@db/app'), '!pw$9', 'url-password'],
    ['blocks around an image', { content: [{ type: 'text', text: `x ${GH.slice(0, 10)}` }, { type: 'image', data: PNG, mimeType: 'image/png' }, { type: 'text', text: GH.slice(10) }] }, GH.slice(10), 'github-token'],
  ]
  for (const [name, value, material, kind] of rows) {
    it(`${name}: the joined text the model reads holds none of it`, async () => {
      const where = await run(value)
      expect(where.results).toContain(`[redacted:${kind}]`)
      expectNoLeak(name, [material], where)
    })
  }
})

describe('credential headers in the shapes they are printed in', () => {
  const rows: [string, string][] = [
    ["Go's http.Header", `map[Accept:[*/*] Authorization:[Bearer ${TOKEN}]]`],
    ['a JSON array of pairs', `["Host","api","Authorization","Bearer ${TOKEN}"]`],
    ["Node's rawHeaders inspected", `[ 'Host', 'api', 'Authorization', 'Bearer ${TOKEN}' ]`],
    ['HAR', `{"name":"Authorization","value":"Bearer ${TOKEN}"}`],
    ['Ruby and PHP', `{"Authorization" => "Bearer ${TOKEN}"}`],
    ['form text', `a=1&Authorization=Bearer+${TOKEN}&b=2`],
    ['percent-encoded', `h=Authorization%3A%20Bearer%20${TOKEN}`],
    ['double percent-encoded', `h=Authorization%253A%2520Bearer%2520${TOKEN}`],
    ['x-api-key', `curl -H 'x-api-key: ${TOKEN}' https://api.example.com`],
    ['Cookie', `Cookie: theme=dark; session=${TOKEN}`],
    ['Basic', `Authorization: Basic ${TOKEN}==`],
  ]
  for (const [name, header] of rows) {
    it(`${name}: as text`, async () => expectNoLeak(name, [TOKEN], await run(header)))
  }
  it('as data: the header objects and arrays a tool returns', async () => {
    const value = {
      header: { Authorization: [`Bearer ${TOKEN}`] },
      rawHeaders: ['Host', 'api', 'Authorization', `Bearer ${TOKEN}`],
      entries: [{ name: 'X-Api-Key', value: TOKEN }],
      cookies: [{ key: 'Cookie', value: `sid=${TOKEN}` }],
    }
    const where = await run(value)
    expect(where.results).toContain('[redacted:bearer-token]')
    expect(where.results).toContain('[redacted:credential-header]')
    expectNoLeak('header data', [TOKEN], where)
  })
})

describe('encoded URL passwords, mail text and colours', () => {
  const PASSWORD = 'Pw0rd-Tr0ub4dor'
  const rows: [string, string, string][] = [
    ['a URL in a query parameter', `next=https%3A%2F%2Fu%3A${PASSWORD}%40h.example%2F`, PASSWORD],
    ['an HTML entity for @', `<a href="https://u:${PASSWORD}&#64;x@h.example">`, PASSWORD],
    ['an &amp;-escaped URL', `<a href="https:&#x2F;&#x2F;u&#58;${PASSWORD}&commat;h.example">`, PASSWORD],
    ['escaped slashes in JSON', `{"url":"https:\\/\\/u:${PASSWORD}@h.example"}`, PASSWORD],
    ['a quoted-printable soft break', `token: ${GH.slice(0, 20)}=\r\n${GH.slice(20)}`, GH.slice(20)],
    ['quoted-printable escapes', `Authorization:=20Bearer=20${TOKEN}=3D`, TOKEN],
    ['colours around Bearer', `${ESC}[1mAuthorization${ESC}[0m: ${ESC}[33mBearer${ESC}[0m ${TOKEN}`, TOKEN],
    ['a colour inside a token', `${GH.slice(0, 14)}${ESC}[32m${GH.slice(14)}`, GH.slice(14)],
    ['a colour before a URL password', `postgres://app:${ESC}[31m${PASSWORD}${ESC}[0m@db/app`, PASSWORD],
    ['a colour inside key=value', `${ESC}[32mapi_key${ESC}[0m=${ESC}[1m${TOKEN}`, TOKEN],
  ]
  for (const [name, value, material] of rows) {
    it(name, async () => expectNoLeak(name, [material], await run(value)))
  }
  it('a colour code inside a token of an object a tool returns (JSON text escapes ESC)', async () => {
    const where = await run({ log: `${GH.slice(0, 14)}${ESC}[32m${GH.slice(14)}` })
    expectNoLeak('object', [GH.slice(14)], where)
  })
})

describe('a secret in a tool name or a call id', () => {
  it('reaches no event, audit record or invocation record; the result keeps the exact id for its wire', async () => {
    const dir = join(root, 'ids')
    const runtime = new ToolRuntime({ audit: { dir } })
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async () => 'done' })
    const events: unknown[] = []
    const calls = [
      { id: `call_${GH}`, name: 'echo', arguments: '{}' },
      { id: 'c2', name: `tool_${GH}`, arguments: '{}' },
    ]
    const results = await runtime.dispatch(calls, { runId: 'ids', onEvent: (event) => events.push(event) })
    expect(results.map((r) => r.status)).toEqual(['ok', 'error'])
    expect(results[1].error?.code).toBe('NOT_FOUND')
    const shown = JSON.stringify(events)
    expect(shown).toContain('call_[redacted:github-token]')
    expect(shown).toContain('tool_[redacted:github-token]')
    expectNoLeak('ids', [TOKEN], {
      events: shown,
      audit: filesUnder(dir),
      toInvocationRecord: JSON.stringify(results.map(toInvocationRecord)),
      // What the model reads of the results: their text.
      content: JSON.stringify(results.map((r) => r.content)),
    })
    // The wires pair a result with its call by the exact id the model wrote.
    expect(results[0].callId).toBe(`call_${GH}`)
    for (const wire of ['openai-chat', 'anthropic'] as const) {
      expect(JSON.stringify(encodeResults([results[0]], wire))).toContain(`call_${GH}`)
    }
  })
})

describe("the third attacker review's findings", () => {
  // 11: the first block's part is a whole match on its own.
  const ANT = `sk-ant-api03-${'Ab1_Cd2-Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op1Qr2St3Uv4Wx5Yz6Ab7Cd8Ef9Gh0Ij'}AA`
  const SLACK = 'xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'
  const split: [string, string, number, string][] = [
    ['an Anthropic key', ANT, 54, 'anthropic-key'],
    ['a Slack token', SLACK, 27, 'slack-token'],
  ]
  for (const [name, secret, cut, kind] of split) {
    it(`${name} whose head in one block matches alone: the rest in the next block is replaced too`, async () => {
      const where = await run(text(`stdout: ${secret.slice(0, cut)}`, `${secret.slice(cut)}\n`))
      expect(where.results).toContain(`[redacted:${kind}]`)
      expectNoLeak(name, [secret.slice(cut, cut + 16)], where)
    })
  }

  // 14: a VALIDATION_ERROR quotes about 1 KB of the value; a token straddling the cut.
  it('a token straddling the cut of a VALIDATION_ERROR quote leaves no fragment', async () => {
    const dir = join(root, `run-${(runs += 1)}`)
    const runtime = new ToolRuntime({ audit: { dir } })
    runtime.register({
      name: 'count',
      parameters: { type: 'object', properties: { count: { type: 'integer' } } },
      execute: async () => 'x',
    })
    const gh = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0'
    for (const before of [980, 1000, 1010, 1020]) {
      const events: unknown[] = []
      const args = JSON.stringify({ count: 'z'.repeat(before) + gh + 'z'.repeat(1500) })
      const results = await runtime.dispatch([{ id: 'c1', name: 'count', arguments: args }], {
        runId: `r${before}`,
        onEvent: (event) => events.push(event),
      })
      expect(results[0].error?.code).toBe('VALIDATION_ERROR')
      expectNoLeak(`cut after ${before}`, [gh.slice(0, 12), gh.slice(12, 24), gh.slice(24)], exits(results, events, dir))
    }
  })

  // 15: a header object with its value before its name (HAR exports, headers listed by hand).
  it('a header object whose value comes before its name, as data and as text', async () => {
    const value = {
      request: {
        headers: [
          { value: `Bearer ${TOKEN}`, name: 'Authorization' },
          { value: `sid=${TOKEN.toLowerCase()}`, name: 'Cookie' },
        ],
      },
    }
    const where = await run(value)
    expect(where.results).toContain('[redacted:')
    expectNoLeak('value before name', [TOKEN, TOKEN.toLowerCase()], where)
  })

  // 17: ordinary source code is not a credential.
  it('ordinary source lines pass unchanged', async () => {
    const lines = [
      'api_key = os.environ.get("OPENAI_API_KEY")',
      'const apiKey = process.env.OPENAI_API_KEY',
      'client = OpenAI(api_key=settings.openai_api_key)',
      'headers["X-Api-Key"] = self.config.api_key_value',
      'document.cookie = "theme=dark; path=/"',
      'private_token = gitlab_config.private_token_for(user)',
      'API_KEY=YOUR_API_KEY_HERE',
    ]
    const where = await run(lines.join('\n'))
    expect(where.results).not.toContain('[redacted:')
    for (const line of lines) expect(where.results).toContain(JSON.stringify(line).slice(1, -1))
  })
})

describe("the fourth attacker review's findings", () => {
  // 12: a mail body with a quoted-printable soft break inside a token, returned as an object:
  // the model reads `=\r\n` escaped in JSON text (`=\\r\\n`), `data` holds the raw CRLF.
  it('a soft line break inside a token of an object a tool returns', async () => {
    for (const brk of ['=\r\n', '=\n', '= \r\n']) {
      const where = await run({ subject: 'CI', body: `token: ${GH.slice(0, 20)}${brk}${GH.slice(20)}` })
      expect(where.results).toContain('[redacted:github-token]')
      expectNoLeak(`soft break ${JSON.stringify(brk)}`, [GH.slice(20)], where)
    }
  })

  // 13: a private key in the ordinary shapes its lines are printed in.
  const body = 'MIIEowIBAAKCAQEAvN0aXZ4b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ'
  const tail = 'AAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBq5v3Jd5sFqVf1a8cGkD1mN0Tu=='
  const pem = (label: string) => [`-----BEGIN ${label}-----`, body, tail, `-----END ${label}-----`]
  const shapes: [string, (lines: string[]) => unknown][] = [
    ['lines as an array of data', (l) => ({ file: 'id.pem', lines: l })],
    ['percent-encoded', (l) => `key=${encodeURIComponent(l.join('\n'))}`],
    ['HTML-escaped newlines', (l) => `<k v="${l.join('&#10;')}"/>`],
    ['a quoted mail reply', (l) => l.map((line) => `> ${line}`).join('\n')],
    ['cat -A', (l) => l.map((line) => `${line}$`).join('\n')],
    ['CRLF', (l) => l.join('\r\n')],
    ['a YAML block', (l) => `tls:\n  key: |\n    ${l.join('\n    ')}\n`],
    ['a JSON string in data', (l) => ({ pem: l.join('\n') })],
    ['a quoted reply in data', (l) => ({ body: l.map((line) => `> ${line}`).join('\n') })],
  ]
  for (const label of ['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'PGP PRIVATE KEY BLOCK']) {
    for (const [shape, print] of shapes) {
      it(`${label} as ${shape}: no line of its body reaches any exit`, async () => {
        const where = await run(print(pem(label)))
        expect(where.results).toContain('[redacted:private-key]')
        expectNoLeak(`${label} as ${shape}`, [body.slice(8, 40), tail.slice(8, 40)], where)
      })
    }
  }
})
