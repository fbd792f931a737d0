// The sizes README's "Package size" reports: builds the binding with a cargo profile (default
// `dist`, the published one) for the default features and each slim variant, one after another,
// and prints a Markdown table of the stripped binary's size and the build's time.
//
//   node scripts/package-size.mjs [--profile dist|release] [--only default,none,image,rap]
//
// Builds with cargo directly (`cargo build -p toolwire-node`), not `napi build`: a slim build
// must not rewrite native.js and native.d.ts, which list what the default build exports. Each
// row's time is that build alone after the previous row (the first row builds every dependency
// unless the profile's target directory already has them); the CPU time (user + sys of cargo and
// everything it ran) is less sensitive to other work on the machine than the wall time.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const VARIANTS = {
  default: [],
  none: ['--no-default-features'],
  image: ['--no-default-features', '--features', 'image'],
  rap: ['--no-default-features', '--features', 'rap'],
}

function option(name, fallback) {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : process.argv[at + 1]
}

const profile = option('--profile', 'dist')
const only = option('--only', Object.keys(VARIANTS).join(',')).split(',')
const dir = profile === 'dev' ? 'debug' : profile
const library = join('target', dir, process.platform === 'darwin' ? 'libtoolwire_node.dylib' : process.platform === 'win32' ? 'toolwire_node.dll' : 'libtoolwire_node.so')
const keep = mkdtempSync(join(tmpdir(), 'toolwire-size-'))

/** Bytes of `file` once stripped (a copy; the profile may have stripped it already). */
function strippedSize(file) {
  if (process.platform === 'win32') return statSync(file).size
  const copy = join(keep, 'stripped')
  copyFileSync(file, copy)
  const strip = spawnSync('strip', process.platform === 'darwin' ? ['-x', copy] : [copy])
  return strip.status === 0 ? statSync(copy).size : statSync(file).size
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`
const rows = []
for (const name of only) {
  const flags = VARIANTS[name]
  if (flags === undefined) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(', ')}`)
  const args = ['build', '-p', 'toolwire-node', '--profile', profile, ...flags]
  console.error(`=== ${name}: cargo ${args.join(' ')}`)
  const started = process.hrtime.bigint()
  const build = spawnSync('cargo', args, { stdio: 'inherit' })
  const wall = Number(process.hrtime.bigint() - started) / 1e9
  if (build.status !== 0) process.exit(build.status ?? 1)
  const cpu = childCpuSeconds() - (rows.at(-1)?.cpuTotal ?? 0)
  rows.push({ name, flags: flags.join(' ') || '(default features)', size: strippedSize(library), wall, cpu, cpuTotal: childCpuSeconds() })
}

/**
 * User + system seconds of the waited-for children of this process so far (cargo, and through it
 * rustc and the linker), from /proc in clock ticks of 1/100 s; 0 where there is no /proc.
 */
function childCpuSeconds() {
  try {
    // After the command name: state is field 0, cutime and cstime are fields 13 and 14.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')
    return (Number(fields[13]) + Number(fields[14])) / 100
  } catch {
    return 0
  }
}

console.log(`| build (profile ${profile}) | stripped .node | build time (wall) | CPU time |`)
console.log('|---|---|---|---|')
for (const row of rows) console.log(`| ${row.flags} | ${mb(row.size)} | ${row.wall.toFixed(0)} s | ${row.cpu.toFixed(0)} s |`)
