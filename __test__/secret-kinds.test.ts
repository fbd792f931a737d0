import { readFileSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { sanitizeResult } from '../dist/index.js'

const root = path.join(__dirname, '..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

/** The members of the SecretKind union in ts/types.ts. */
function declaredKinds(): string[] {
  const match = /export type SecretKind =([^]*?)\n\n/.exec(read('ts/types.ts'))
  expect(match, 'SecretKind in ts/types.ts').not.toBeNull()
  return [...match![1]!.matchAll(/'([a-z0-9-]+)'/g)].map((m) => m[1]!).sort()
}

/** Every kind the engine's built-in detectors emit (`name: "..."` in builtin.rs). */
function engineKinds(): string[] {
  const source = read('crates/toolwire-core/src/secrets/builtin.rs')
  const tests = source.indexOf('#[cfg(test)]')
  const body = tests < 0 ? source : source.slice(0, tests)
  return [...new Set([...body.matchAll(/name: "([a-z0-9-]+)"/g)].map((m) => m[1]!))].sort()
}

// Seen by a new user (issue 19): the engine emitted 'credential-header', which SecretKind lacked,
// so a strict TypeScript switch over a report's kinds could not name it.
describe('SecretKind', () => {
  it('declares exactly the kinds the engine emits', () => {
    const engine = engineKinds()
    expect(engine.length).toBeGreaterThan(5)
    expect(declaredKinds()).toEqual(engine)
  })

  it('a kind the engine reports is a declared one (credential-header)', () => {
    const { report } = sanitizeResult({ content: [{ type: 'text', text: 'Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==' }] })
    const kinds = Object.keys(report.scrubbed)
    expect(kinds).toContain('credential-header')
    for (const kind of kinds) expect(declaredKinds()).toContain(kind)
  })
})
