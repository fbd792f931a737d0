// Secrets never leave the engine: for every built-in secret kind (read from the engine's list, so
// a new kind is covered as soon as it has a sample here), placed where real tools and models put
// them (inside JSON strings after an escape, after a percent escape, in URLs, as object keys,
// glued to identifiers) and reaching every exit (results, events, provider messages,
// projections, audit files), including the error paths (validation, policy, approval, hooks).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { ToolRuntime, encodeResults, toInvocationRecord, toToolResultMessage, type ToolResult, type Wire } from '../dist/index.js'
import { filesUnder } from './helpers.js'

const root = mkdtempSync(join(tmpdir(), 'toolwire-secrets-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The built-in kinds, as the engine lists them. */
const KINDS: string[] = [
  ...new Set(
    [...readFileSync(join(__dirname, '../crates/toolwire-core/src/secrets/builtin.rs'), 'utf8').matchAll(/^\s*name: "([a-z0-9-]+)",$/gm)].map(
      (match) => match[1],
    ),
  ),
]

/** Deterministic fake key material (made up for these tests). */
function fake(alphabet: string, length: number, seed: number): string {
  let state = seed * 2654435761
  let out = ''
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2147483648
    out += alphabet[state % alphabet.length]
  }
  return out
}
if (KINDS.length < 10) throw new Error(`the built-in kinds were not found in builtin.rs: ${KINDS}`)

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** Each built-in kind as it appears in text, and its key material, which must never get out. */
function sampleOf(kind: string): { sample: string; material: string } {
  const body = fake(ALNUM, 48, kind.length)
  switch (kind) {
    case 'openai-key':
      return { sample: `sk-proj-${body}`, material: body }
    case 'anthropic-key':
      return { sample: `sk-ant-api03-${body}AA`, material: body }
    case 'aws-access-key': {
      const id = fake(UPPER, 16, 3)
      return { sample: `AKIA${id}`, material: id }
    }
    case 'github-token':
      return { sample: `ghp_${body.slice(0, 36)}`, material: body.slice(0, 36) }
    case 'slack-token':
      return { sample: `xoxb-1234567890-${body.slice(0, 24)}`, material: body.slice(0, 24) }
    case 'google-api-key': {
      const key = fake(ALNUM, 35, 5)
      return { sample: `AIza${key}`, material: key }
    }
    case 'jwt': {
      const signature = fake(ALNUM, 43, 7)
      return { sample: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.${signature}`, material: signature }
    }
    case 'private-key': {
      const line = fake(ALNUM, 64, 11)
      return { sample: `-----BEGIN PRIVATE KEY-----\n${line}\n${body}\n-----END PRIVATE KEY-----`, material: line }
    }
    case 'bearer-token':
      return { sample: `Authorization: Bearer ${body}`, material: body }
    case 'url-password':
      return { sample: `https://deploy:${body}@ci.example.com/hook`, material: body }
    case 'credential-header':
      return { sample: `X-Api-Key: ${body}`, material: body }
    // Kinds whose prefix must not follow a letter or digit appear after their variable's `=`.
    case 'stripe-key':
      return { sample: `STRIPE_KEY=sk_live_${body.slice(0, 24)}`, material: body.slice(0, 24) }
    case 'huggingface-token':
      return { sample: `HF_TOKEN=hf_${body.slice(0, 34)}`, material: body.slice(0, 34) }
    case 'twilio-key': {
      const hex = fake('0123456789abcdef', 32, 13)
      return { sample: `TWILIO_KEY=SK${hex}`, material: hex }
    }
    case 'gitlab-token':
      return { sample: `glpat-${body.slice(0, 20)}`, material: body.slice(0, 20) }
    case 'npm-token':
      return { sample: `npm_${body.slice(0, 36)}`, material: body.slice(0, 36) }
    case 'sendgrid-key': {
      const key = `${body.slice(0, 22)}.${fake(ALNUM, 43, 17)}`
      return { sample: `SG.${key}`, material: key }
    }
    case 'shopify-token': {
      const hex = fake('0123456789abcdef', 32, 19)
      return { sample: `shpat_${hex}`, material: hex }
    }
    case 'digitalocean-token': {
      const hex = fake('0123456789abcdef', 64, 23)
      return { sample: `dop_v1_${hex}`, material: hex }
    }
    case 'doppler-token':
      return { sample: `dp.st.dev.${body.slice(0, 44)}`, material: body.slice(0, 44) }
    case 'pypi-token':
      return { sample: `pypi-AgEIcHlwaS5vcmc${body}${body.slice(0, 8)}`, material: body }
    case 'vendor-token':
      return { sample: `pplx-${body}`, material: body }
    case 'aws-secret-key':
      return { sample: `aws_secret_access_key = ${body.slice(0, 40)}`, material: body.slice(0, 40) }
    case 'azure-key':
      return { sample: `AccountKey=${body}${body}==`, material: body }
    case 'credential-parameter':
      return { sample: `client_secret=${body}`, material: body }
    default:
      throw new Error(`no sample for the built-in secret kind ${kind}: add one to sampleOf`)
  }
}

/** A password holding `@`: URL parsers end the userinfo at the last `@` before the host. */
const AT_PASSWORD = 'p@ss@W0rd-5ecret'
/** A bearer token whose header is the object key it sits under. */
const KEYED_BEARER = fake(ALNUM, 40, 99)

/** Places a sample where tools put secrets: after JSON, percent and C escapes, glued to identifiers, in URLs. */
function placements(sample: string): string[] {
  return [
    `line one\n${sample}`,
    `tab\t${sample}`,
    `html <b>${sample}</b>`,
    `query?token%3D${sample}&x=1`,
    `double%253D${sample}`,
    `LEGACY_TOKEN_${sample}`,
    // Glued to words, digits and `_` on either side (a vendor prefix needs no edge).
    `auth=Bearer${sample}`,
    `abc${sample}Z9`,
    `token9${sample}_x`,
    `key_${sample}-y`,
    `https://api.example.com/cb?access_token=${sample}&state=1`,
    `GET /v1 HTTP/1.1\r\nHost: api.example.com\r\nX-Key: ${sample}\r\n\r\n`,
    `10.0.0.1 - - [26/Nov/2026:12:00:00 +0000] "GET /login?next=%2F&key=${sample} HTTP/1.1" 200`,
  ]
}


const WIRES: Wire[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mistral']

/**
 * Everything a result can reach: itself, its projections and its provider messages. A result's
 * `args` are the caller's own arguments as run (kept whole, for retries and resumption); every
 * copy of them that leaves (events, audit, toInvocationRecord) is checked.
 */
function exits(results: ToolResult[]): Record<string, string> {
  const out: Record<string, string> = {
    results: JSON.stringify(results.map(({ args: _args, ...rest }) => rest)),
    toToolResultMessage: JSON.stringify(results.map(toToolResultMessage)),
    toInvocationRecord: JSON.stringify(results.map(toInvocationRecord)),
  }
  for (const wire of WIRES) out[`encodeResults(${wire})`] = JSON.stringify(encodeResults(results, wire))
  return out
}

function expectNoLeak(kind: string, material: string, where: Record<string, string>) {
  for (const [exit, text] of Object.entries(where)) {
    const at = text.indexOf(material)
    if (at >= 0) throw new Error(`${kind}: the secret reached ${exit}: ...${text.slice(Math.max(0, at - 300), at + 100)}...`)
  }
}

describe('secrets never leave the engine', () => {
  for (const kind of KINDS) {
    const { sample, material } = sampleOf(kind)
    const placed = placements(sample)

    it(`${kind}: in results, data, details, keys, arguments, events, provider messages, projections and audit files`, async () => {
      const dir = join(root, `ok-${kind}`)
      const runtime = new ToolRuntime({ audit: { dir }, redaction: 'permissive' })
      const object = () => ({ log: placed, [sample]: 1, [`x_${sample}`]: { nested: [placed[0]] }, headers: { Authorization: `Bearer ${KEYED_BEARER}` } })
      runtime.register({ name: 'object', parameters: { type: 'object' }, execute: async () => object() })
      runtime.register({ name: 'json_text', parameters: { type: 'object' }, execute: async () => JSON.stringify(object()) })
      runtime.register({ name: 'dump', parameters: { type: 'object' }, execute: async () => placed.join('\n') })
      runtime.register({
        name: 'agent',
        parameters: { type: 'object' },
        execute: async () => ({ content: [{ type: 'text', text: JSON.stringify(placed) }], details: object() }),
      })
      runtime.register({
        name: 'progress',
        parameters: { type: 'object' },
        execute: async (_id: string, _args: unknown, _signal: unknown, onUpdate?: (partial: unknown) => void) => {
          onUpdate?.({ step: 1, [sample]: placed })
          onUpdate?.({ content: [{ type: 'text', text: placed[0] }], details: object() })
          return 'done'
        },
      })
      const events: unknown[] = []
      const args = JSON.stringify({ query: placed, [sample]: true, headers: { authorization: `bearer ${KEYED_BEARER}` } })
      const results = await runtime.dispatch(
        ['object', 'json_text', 'dump', 'agent', 'progress'].map((name, index) => ({ id: `c${index}`, name, arguments: args })),
        { runId: 'r', onEvent: (event) => events.push(event) },
      )
      expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok'])
      expect(JSON.stringify(results)).toContain(`[redacted:${kind}]`)
      expectNoLeak(kind, material, { ...exits(results), events: JSON.stringify(events), audit: filesUnder(dir) })
      expectNoLeak('bearer-token under its key', KEYED_BEARER, { ...exits(results), events: JSON.stringify(events), audit: filesUnder(dir) })
    })

    it(`${kind}: in error results (validation, policy, approval, hook and tool throws)`, async () => {
      const dir = join(root, `error-${kind}`)
      const workspace = mkdtempSync(join(root, 'ws-'))
      const runtime = new ToolRuntime({ audit: { dir }, workspaceRoot: workspace, redaction: 'permissive' })
      runtime.register({
        name: 'typed',
        parameters: { type: 'object', properties: { n: { type: 'integer' }, list: { type: 'array', items: { type: 'integer' } } }, additionalProperties: false },
        execute: async () => 'never',
      })
      runtime.register({ name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } }, workspaceOnly: true, execute: async () => 'never' })
      runtime.register({ name: 'throws', parameters: { type: 'object' }, execute: async () => { throw new Error(`failed with ${placed[0]}`) } })
      runtime.register({ name: 'after', parameters: { type: 'object' }, execute: async () => 'fine' })
      const events: unknown[] = []
      const calls = [
        { id: 'v', name: 'typed', arguments: JSON.stringify({ n: placed[3], list: [placed[0]], [sample]: 1 }) },
        { id: 'p', name: 'read', arguments: JSON.stringify({ path: `/etc/${placed[5]}` }) },
        { id: 't', name: 'throws', arguments: '{}' },
      ]
      const results = await runtime.dispatch(calls, { runId: 'errors', onEvent: (event) => events.push(event) })
      expect(results.map((r) => r.error?.code)).toEqual(['VALIDATION_ERROR', 'POLICY_DENIED', 'EXECUTION_ERROR'])

      const hooked: ToolResult[] = []
      for (const [index, hooks] of [
        { afterToolCall: () => { throw new Error(`after hook saw ${placed[0]}`) } },
        { onPersist: () => { throw new Error(`persist hook saw ${placed[1]}`) } },
        { afterToolCall: async () => { throw { message: `rejected with ${placed[2]}`, [sample]: 1 } } },
      ].entries()) {
        const [result] = await runtime.dispatch([{ id: `h${index}`, name: 'after', arguments: '{}' }], { runId: `hooks-${index}`, onEvent: (event) => events.push(event), ...hooks })
        expect(result.status).toBe('error')
        hooked.push(result)
      }

      const approving = new ToolRuntime({ audit: { dir }, approvals: { ask: 'always' } })
      approving.register({ name: 'deploy', parameters: { type: 'object' }, execute: async () => 'deployed' })
      const [pending] = await approving.dispatch([{ id: 'a', name: 'deploy', arguments: JSON.stringify({ target: placed[0], [sample]: placed[3] }) }], {
        runId: 'approval',
        onEvent: (event) => events.push(event),
      })
      expect(pending.error?.code).toBe('APPROVAL_REQUIRED')

      const all = [...results, ...hooked, pending]
      expect(JSON.stringify(all)).toContain('[redacted:')
      expectNoLeak(kind, material, { ...exits(all), events: JSON.stringify(events), audit: filesUnder(dir) })
    })
  }

  for (const kind of KINDS) {
    it(`${kind}: found at the end of 10 MB of letters, in content and in arguments shown in events`, async () => {
      const { sample, material } = sampleOf(kind)
      const runtime = new ToolRuntime()
      const long = 'x'.repeat(10 << 20) + sample
      runtime.register({ name: 'long', parameters: { type: 'object' }, execute: async () => ({ note: long }) })
      const events: unknown[] = []
      const [result] = await runtime.dispatch([{ id: 'c', name: 'long', arguments: JSON.stringify({ header: `token${sample}` }) }], {
        onEvent: (event) => events.push(event),
      })
      expect(result.status).toBe('ok')
      expect(JSON.stringify(result.content)).toContain(`[redacted:${kind}]`)
      expectNoLeak(kind, material, { ...exits([result]), events: JSON.stringify(events) })
    })
  }

  it('replaces a URL password holding @ up to the last @ before the host', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'env', parameters: { type: 'object' }, execute: async () => `DATABASE_URL=postgres://app:${AT_PASSWORD}@db.internal:5432/app` })
    const [result] = await runtime.dispatch([{ id: 'c', name: 'env', arguments: '{}' }])
    expect(result.content).toEqual([{ type: 'text', text: 'DATABASE_URL=postgres://app:[redacted:url-password]@db.internal:5432/app' }])
  })

  it('scrubs a secret after an escape, keeping ordinary identifiers and escaped text around it as they are', async () => {
    const runtime = new ToolRuntime()
    const { sample } = sampleOf('github-token')
    const value = {
      text: 'task-manager\nask-questions\tthe_ghost_of_x %3Dskip-proj-flag eyJustAWord xoxo-hugs',
      user_authorization_bearer_flag: 'Bearer of good news',
      url: 'https://example.com:8443/a@b ssh://git@github.com:22/org/repo.git',
      // A marker-less legacy `sk-` body after letters is an identifier and a hash.
      skills_risk_assessment: `mask-${'b'.repeat(48)} task-runner AKIApolka aizawa highp_float`,
      leak: `first line\n${sample}`,
    }
    runtime.register({ name: 'plain', parameters: { type: 'object' }, execute: async () => value })
    const [result] = await runtime.dispatch([{ id: 'c', name: 'plain', arguments: JSON.stringify(value) }])
    const expected = { ...value, leak: 'first line\n[redacted:github-token]' }
    expect(result.data).toEqual(expected)
    // Once in the text (the value's JSON), once in data.
    expect(result.sanitization?.scrubbed).toEqual({ 'github-token': 2 })
    expect(toInvocationRecord(result).args).toEqual(expected)
  })

  it('toInvocationRecord scrubs the arguments of any result it is given', () => {
    const { sample, material } = sampleOf('github-token')
    const result = {
      callId: 'c',
      tool: 't',
      args: { [sample]: [`a\n${sample}`] },
      ok: true,
      status: 'ok',
      content: [],
      startedAt: 1,
      endedAt: 2,
    } as unknown as ToolResult
    const record = toInvocationRecord(result)
    expect(JSON.stringify(record.args)).not.toContain(material)
    expect(record.args).toEqual({ '[redacted:github-token]': ['a\n[redacted:github-token]'] })
    // The caller's result is left as it was.
    expect(JSON.stringify(result.args)).toContain(material)
  })
})
