// The package ships its LICENSE and the notices of the Rust crates linked into the binding; the
// committed THIRD_PARTY_NOTICES must follow Cargo.lock (the generator's check mode says so).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const script = join(root, 'scripts', 'third-party-notices.mjs')
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

function generator(args: string[], cwd = root) {
  return spawnSync(process.execPath, [script, ...args], { cwd, encoding: 'utf8' })
}

describe('licenses', { timeout: 120_000 }, () => {
  it('ships an MIT LICENSE held by the toolwire contributors, as package.json says', () => {
    const text = readFileSync(join(root, 'LICENSE'), 'utf8')
    expect(manifest.license).toBe('MIT')
    expect(text).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} toolwire contributors\n/)
    expect(manifest.files).toEqual(expect.arrayContaining(['LICENSE', 'THIRD_PARTY_NOTICES']))
  })

  it('the committed THIRD_PARTY_NOTICES is up to date with Cargo.lock', () => {
    const check = generator(['--check'])
    // (cargo may say on stderr that it waits for the package cache lock: only the verdict counts)
    expect(check.stderr).not.toContain('out of date')
    expect(check.status).toBe(0)
    expect(check.stdout).toMatch(/^THIRD_PARTY_NOTICES is up to date \(\d+ crates\)/)
    const notices = readFileSync(join(root, 'THIRD_PARTY_NOTICES'), 'utf8')
    // Linked crates are listed with their license; build-time and dev-only crates are not.
    expect(notices).toMatch(/^crate serde_json [\d.]+: MIT OR Apache-2\.0 /m)
    expect(notices).toMatch(/^crate napi [\d.]+: MIT /m)
    for (const compileTimeOnly of ['napi-derive', 'napi-build', 'serde_derive', 'syn', 'proptest', 'toolwire-core']) {
      expect(notices).not.toMatch(new RegExp(`^crate ${compileTimeOnly} `, 'm'))
    }
    expect(notices).toContain('Permission is hereby granted, free of charge')
    expect(notices).toContain('Apache License')
  })

  it('check mode fails, naming the crate, when the committed file misses a crate of Cargo.lock or lists one no longer linked', () => {
    // What a dependency bump without regenerating leaves behind.
    const notices = readFileSync(join(root, 'THIRD_PARTY_NOTICES'), 'utf8')
    const regex = /^crate (regex [\d.]+): .*\n/m.exec(notices)!
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-notices-'))
    for (const [stale, message] of [
      [notices.replace(regex[0], ''), `missing: ${regex[1]}`],
      [notices.replace(regex[0], `${regex[0]}crate left-pad 1.0.0: MIT\n`), 'no longer linked: left-pad 1.0.0'],
    ]) {
      const file = join(dir, 'THIRD_PARTY_NOTICES')
      writeFileSync(file, stale)
      const check = generator(['--check', '--file', file])
      expect(check.status).toBe(1)
      expect(check.stderr).toContain('THIRD_PARTY_NOTICES is out of date with Cargo.lock')
      expect(check.stderr).toContain(message)
    }
  })
})
