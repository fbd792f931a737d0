// Credentials a tool prints outside the shapes first covered, each through a real dispatch: the
// model's text (encodeResults on every wire), `data`, events, toInvocationRecord and the audit
// files must hold none of them (issue 19: the user review's 9, the attack review's 16). Ordinary
// source lines holding the same words pass unchanged.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { sanitizeResult } from '../dist/index.js'
import { expectNoLeak, showing } from './helpers.js'

const root = mkdtempSync(join(tmpdir(), 'toolwire-secret-shapes-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let runs = 0
const run = (value: unknown) => showing(join(root, `run-${(runs += 1)}`), value)

// Made-up material.
const T = 'Zq8mX2pL9vR4tN7wK3yB6cF1'
const HEX = '0123456789abcdef0123456789abcdef'

describe('credentials outside an Authorization header (user review 9)', () => {
  const rows: [string, string, string, string][] = [
    ['a Bearer token in a variable', `AUTH_HEADER="Bearer ${T}"`, T, 'bearer-token'],
    ['a Bearer token in a JSON field', `{"auth": "Bearer ${T}"}`, T, 'bearer-token'],
    ['an OAuth token response as text', `token_type=Bearer access_token=${T}`, T, 'credential-parameter'],
    ['access_token in a URL', `GET https://api.example.com/v1/me?access_token=${T} 200`, T, 'credential-parameter'],
    ['refresh_token in a form body', `grant_type=refresh_token&refresh_token=${T}`, T, 'credential-parameter'],
    ['client_secret in key=value text', `client_id=app client_secret=${T}`, T, 'credential-parameter'],
    ['curl -u', `curl -u admin:${T} https://example.com`, T, 'credential-parameter'],
    ['wget --http-password', `wget --http-password=${T} https://example.com/f`, T, 'credential-parameter'],
    ['an npm _authToken', `//registry.npmjs.org/:_authToken=${T}`, T, 'credential-parameter'],
    ['an npm token', `//registry.npmjs.org/:_authToken=npm_${T}abcdefghijkl`, T, 'npm-token'],
    ['a Stripe key', `STRIPE_KEY=sk_live_${T}abcdef`, T, 'stripe-key'],
    ['a GitLab token', `GITLAB_TOKEN=glpat-${T}`, T, 'gitlab-token'],
    ['a Twilio key', `TWILIO_API_KEY=SK${HEX}`, HEX, 'twilio-key'],
    ['an AWS secret key line', `aws_secret_access_key = ${T}abcdefgh/ijklmnop+Q`, T, 'aws-secret-key'],
    ['an Azure connection string', `DefaultEndpointsProtocol=https;AccountName=a;AccountKey=${T}${T}==;`, T, 'azure-key'],
  ]
  for (const [name, text, material, kind] of rows) {
    it(`${name}: no exit holds it`, async () => {
      const where = await run(text)
      expect(where.results).toContain(`[redacted:${kind}]`)
      expectNoLeak(name, [material], where)
    })
  }
  it('as data: an OAuth token response a tool returns', async () => {
    const where = await run({ access_token: T, token_type: 'Bearer', refresh_token: `r${T}`, expires_in: 3600 })
    expectNoLeak('token response', [T], where)
  })
})

describe('credential headers printed as tables, maps and markup (attack review 16)', () => {
  const rows: [string, string][] = [
    ['a markdown table', `| Header | Value |\n|---|---|\n| Authorization | Bearer ${T} |\n| X-Api-Key | ${T} |`],
    ['a padded markdown table', `| Authorization            | Bearer ${T}     |`],
    ['a Scala Map', `Map(Authorization -> Bearer ${T}, Accept -> */*)`],
    ['XML name and value elements', `<header><name>Authorization</name><value>Bearer ${T}</value></header>`],
    ['an XML element', `<Authorization>Bearer ${T}</Authorization>`],
    ['YAML', `headers:\n  authorization: Bearer ${T}\n`],
    ['a YAML list of name/value entries', `headers:\n- name: Authorization\n  value: Bearer ${T}\n- name: X-Api-Key\n  value: ${T}\n`],
    ['TOML', `[headers]\nauthorization = "Bearer ${T}"\n`],
  ]
  for (const [name, text] of rows) {
    it(`${name}: no exit holds the token`, async () => expectNoLeak(name, [T], await run(text)))
  }
})

describe('ordinary source lines with the same words', () => {
  const lines = [
    'token_type = response.json()["token_type"]',
    'access_token = get_access_token(client_id, client_secret)',
    'const accessToken = await auth.getAccessToken()',
    'client_secret: SecretStr = Field(...)',
    'curl -u "$USER:$PASS" https://api.example.com',
    'Use your secret key: sk_live_... (or sk_live_xxx in test mode).',
    '//registry.npmjs.org/:_authToken=${NPM_TOKEN}',
    'headers: { Authorization: "Bearer " + token }',
    'Bearer tokens are sent in the Authorization header.',
    '| `access_token` | string | The token issued by the server |',
  ]
  for (const line of lines) {
    it(`passes unchanged: ${line}`, () => {
      const { result, report } = sanitizeResult({ content: [{ type: 'text', text: line }] })
      expect((result.content[0] as { text: string }).text).toBe(line)
      expect(report?.scrubbed ?? {}).toEqual({})
    })
  }
})
