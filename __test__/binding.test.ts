import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)
const { loadBinding, expectedBinary, targetName } = require('../dist/binding.js')
const manifest = require('../package.json')

describe('loading the native binary', () => {
  it('a missing binary names the platform, architecture and libc detected, the file and package looked for, and the targets built', () => {
    // The generated loader, copied where no binary sits next to it and no platform package
    // resolves: what a user gets when the optional dependency of their platform was not installed.
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-binding-'))
    copyFileSync(require.resolve('../native.js'), join(dir, 'native.js'))
    const saved = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
    delete process.env.NAPI_RS_NATIVE_LIBRARY_PATH
    let error: any
    try {
      loadBinding(join(dir, 'native.js'))
    } catch (e) {
      error = e
    } finally {
      if (saved !== undefined) process.env.NAPI_RS_NATIVE_LIBRARY_PATH = saved
    }
    expect(error).toBeInstanceOf(Error)
    expect(error.code).toBe('ERR_TOOLWIRE_NATIVE_BINARY_MISSING')
    const expected = expectedBinary(dir)
    expect(error.message).toContain(`platform ${process.platform}, architecture ${process.arch}, libc `)
    if (process.platform === 'linux') expect(error.message).toMatch(/libc (glibc [\d.]+|musl|unknown)\)/)
    expect(error.message).toContain(`the file ${join(dir, `toolwire.${expected.target}.node`)}`)
    expect(error.message).toContain(`the package "toolwire-${expected.target}"`)
    for (const triple of manifest.napi.targets) expect(error.message).toContain(`(${triple})`)
    expect(error.targets).toEqual(manifest.napi.targets.map(targetName))
    // The generated loader's own error (with every load attempt) is kept as the cause.
    expect(String(error.cause.message)).toMatch(/^Cannot find native binding/)
  })

  it('names targets as napi-rs names the binaries and their packages', () => {
    for (const [triple, name] of [
      ['x86_64-unknown-linux-gnu', 'linux-x64-gnu'],
      ['aarch64-unknown-linux-musl', 'linux-arm64-musl'],
      ['x86_64-apple-darwin', 'darwin-x64'],
      ['aarch64-apple-darwin', 'darwin-arm64'],
      ['x86_64-pc-windows-msvc', 'win32-x64-msvc'],
    ]) {
      expect(targetName(triple)).toBe(name)
    }
    // (platform, arch, libc) -> the target looked for
    for (const [platform, arch, libc, target] of [
      ['linux', 'x64', { name: 'glibc', version: '2.36' }, 'linux-x64-gnu'],
      ['linux', 'arm64', { name: 'musl' }, 'linux-arm64-musl'],
      ['linux', 'arm', { name: 'glibc' }, 'linux-arm-gnueabihf'],
      ['darwin', 'arm64', undefined, 'darwin-arm64'],
      ['win32', 'x64', undefined, 'win32-x64-msvc'],
    ] as const) {
      const expected = expectedBinary('/pkg', platform, arch, libc)
      expect(expected.target).toBe(target)
      expect(expected.file).toBe(join('/pkg', `toolwire.${target}.node`))
      expect(expected.package).toBe(`toolwire-${target}`)
    }
  })

  it("require('toolwire') throws that error when its binary cannot be loaded", () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'toolwire-binding-')), 'absent.node')
    const out = execFileSync(
      process.execPath,
      ['-e', `try { require('toolwire'); console.log('loaded') } catch (e) { console.log(JSON.stringify([e.code, e.message])) }`],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8', env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: missing } },
    )
    const [code, message] = JSON.parse(out)
    expect(code).toBe('ERR_TOOLWIRE_NATIVE_BINARY_MISSING')
    expect(message).toContain(`architecture ${process.arch}`)
    expect(message).toContain(`NAPI_RS_NATIVE_LIBRARY_PATH is set (to ${missing})`)
  })
})
