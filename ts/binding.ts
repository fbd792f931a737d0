// Loads the native engine through native.js (the loader `napi build` generates, regenerated on
// every build, so never edited by hand). When no binary fits this machine, the generated loader
// says only "Cannot find native binding"; this module says what was detected (platform,
// architecture, libc), which file and which package were looked for, and which targets the
// package was built for.

import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

import { ToolwireError } from './common.js'
import type * as Native from '../native.js'

/** What this module reads of the package's manifest. */
interface Manifest {
  name: string
  napi?: { binaryName?: string; targets?: string[] }
}

const manifest: Manifest = require('../package.json')

/** The package's root directory: where native.js and the local `.node` files live. */
const ROOT = dirname(__dirname)

/** Node's `process.arch` for a target triple's architecture. */
const ARCHES: Record<string, string | undefined> = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm', riscv64: 'riscv64', s390x: 's390x', powerpc64le: 'ppc64' }

/**
 * The napi-rs name of a target triple, `platform-arch[-abi]` as the binary and its package are
 * named: `x86_64-unknown-linux-gnu` is `linux-x64-gnu`, `aarch64-apple-darwin` is `darwin-arm64`.
 */
export function targetName(triple: string): string {
  const parts = triple.split('-')
  const arch = ARCHES[parts[0]] ?? parts[0]
  const platform = triple.includes('-apple-darwin') ? 'darwin' : triple.includes('-windows') ? 'win32' : triple.includes('-linux') ? 'linux' : triple.includes('-freebsd') ? 'freebsd' : parts[2]
  const abi = platform === 'darwin' || platform === 'freebsd' ? undefined : parts[3]
  return abi === undefined ? `${platform}-${arch}` : `${platform}-${arch}-${abi}`
}

/** The C library of a Linux system. */
export interface Libc {
  name: 'glibc' | 'musl' | 'unknown'
  version?: string
}

/** The C library of this Linux system: `{ name: 'glibc' | 'musl' | 'unknown', version? }`. */
function detectLibc(): Libc | undefined {
  if (process.platform !== 'linux') return undefined
  let header: { glibcVersionRuntime?: unknown } | undefined
  try {
    header = (process.report.getReport() as { header?: { glibcVersionRuntime?: unknown } }).header
  } catch {
    header = undefined
  }
  if (header !== undefined && typeof header.glibcVersionRuntime === 'string') return { name: 'glibc', version: header.glibcVersionRuntime }
  try {
    if (readFileSync('/usr/bin/ldd', 'utf8').includes('musl')) return { name: 'musl' }
  } catch {
    // no ldd to read: fall through
  }
  return { name: 'unknown' }
}

/** The ABI suffix napi-rs gives this machine's binary (`gnu`, `musl`, `msvc`, or none). */
function abiOf(platform: string, arch: string, libc: Libc | undefined): string | undefined {
  if (platform === 'win32') return 'msvc'
  if (platform !== 'linux') return undefined
  const musl = libc !== undefined && libc.name === 'musl'
  if (arch === 'arm') return musl ? 'musleabihf' : 'gnueabihf'
  return musl ? 'musl' : 'gnu'
}

/** What {@link expectedBinary} finds. */
export interface ExpectedBinary {
  platform: string
  arch: string
  libc: Libc | undefined
  /** The napi-rs target name (`linux-x64-gnu`). */
  target: string
  file: string
  package: string
  built: { triple: string; target: string }[]
}

/**
 * What this machine needs: the detected platform, architecture and libc, the target name, the
 * file (next to the loader, in `dir`) and the package looked for, and the targets the package was
 * built for.
 */
export function expectedBinary(dir: string = ROOT, platform: string = process.platform, arch: string = process.arch, libc: Libc | undefined = detectLibc()): ExpectedBinary {
  const abi = abiOf(platform, arch, libc)
  const target = abi === undefined ? `${platform}-${arch}` : `${platform}-${arch}-${abi}`
  const binaryName = (manifest.napi && manifest.napi.binaryName) || manifest.name
  const triples = (manifest.napi && manifest.napi.targets) || []
  return {
    platform,
    arch,
    libc,
    target,
    file: join(dir, `${binaryName}.${target}.node`),
    package: `${manifest.name}-${target}`,
    built: triples.map((triple) => ({ triple, target: targetName(triple) })),
  }
}

/** The error for a machine no loaded binary fits: what was detected and looked for, the targets built. */
export interface MissingBinaryError extends Error {
  /** `ERR_TOOLWIRE_NATIVE_BINARY_MISSING` (a Node-style code, not one of the engine's). */
  code: string
  platform: string
  arch: string
  libc: Libc | undefined
  file: string
  package: string
  targets: string[]
  cause: unknown
}

/** The error for a machine no loaded binary fits, `cause` the generated loader's own error. */
export function missingBinaryError(cause: unknown, expected: ExpectedBinary = expectedBinary()): MissingBinaryError {
  const libc = expected.libc === undefined ? 'not applicable' : expected.libc.version === undefined ? expected.libc.name : `${expected.libc.name} ${expected.libc.version}`
  const built = expected.built.map((b) => b.target)
  const supported = built.includes(expected.target)
  const lines = [
    `toolwire: no native binary for this machine (platform ${expected.platform}, architecture ${expected.arch}, libc ${libc}).`,
    `Looked for the file ${expected.file} and the package "${expected.package}".`,
    `This package was built for: ${expected.built.map((b) => `${b.target} (${b.triple})`).join(', ') || 'no targets'}.`,
    supported
      ? `"${expected.package}" is one of them: it is an optional dependency, so reinstall with optional dependencies enabled (npm skips them with --omit=optional, and after a lockfile made on another platform; see https://github.com/npm/cli/issues/4828), or build from source with \`npm run build\`.`
      : `${expected.target} is not among them: build from source with \`npm run build\` (needs a Rust toolchain).`,
  ]
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (override) lines.push(`NAPI_RS_NATIVE_LIBRARY_PATH is set (to ${override}): only that file was tried.`)
  const error = new Error(lines.join('\n')) as MissingBinaryError
  error.code = 'ERR_TOOLWIRE_NATIVE_BINARY_MISSING'
  error.platform = expected.platform
  error.arch = expected.arch
  error.libc = expected.libc
  error.file = expected.file
  error.package = expected.package
  error.targets = built
  error.cause = cause
  return error
}

/** Whether `error` is the generated loader's "no binary found" failure. */
function isMissingBinary(error: unknown): boolean {
  const message = error instanceof Error ? error.message : ''
  return message.startsWith('Cannot find native binding') || message.startsWith('Failed to load native binding')
}

/**
 * The native binding, loaded through the generated loader at `loader` (default: the package's
 * native.js); a missing binary throws {@link missingBinaryError}, any other failure as it is.
 */
export function loadBinding(loader: string = join(ROOT, 'native.js')): typeof Native {
  try {
    return require(loader)
  } catch (error) {
    if (isMissingBinary(error)) throw missingBinaryError(error, expectedBinary(dirname(loader)))
    throw error
  }
}

/**
 * The optional parts of the engine, cargo features of the binding that a slim build can leave
 * out (both are in the default and published builds), each with what it serves.
 */
export const OPTIONAL_FEATURES = {
  image: 'image sanitization (decoding, resizing and re-encoding the images tools return)',
  rap: 'remote tools over the Reactive Agent Protocol (RAP)',
} as const

/** An optional part of the engine: a key of {@link OPTIONAL_FEATURES}. */
export type OptionalFeature = keyof typeof OPTIONAL_FEATURES

/** The optional parts a loaded binding has: what its `features()` lists. */
export function featuresOf(binding: Pick<typeof Native, 'features'>): string[] {
  return binding.features()
}

/**
 * Throws when `feature` is not among `features` (the binding's list): `entry`, the JavaScript
 * entry that needs it, cannot work in this slim build. A ToolwireError with code
 * PRECONDITION_FAILED naming the feature and how to build with it, the feature as `.feature`.
 */
export function requireFeature(features: readonly string[], feature: OptionalFeature, entry: string): void {
  if (features.includes(feature)) return
  const error = new ToolwireError(
    'PRECONDITION_FAILED',
    `${entry}: ${OPTIONAL_FEATURES[feature]} is not in this build of toolwire: its binary was built without the cargo feature \`${feature}\` (on by default). ` +
      `Install the published package, or build with the default features (\`npm run build\`) or with \`--features ${feature}\` added to a \`--no-default-features\` build.`,
  ) as ToolwireError & { feature: OptionalFeature }
  error.feature = feature
  throw error
}
