// Writes THIRD_PARTY_NOTICES: the licenses of the Rust crates statically linked into the native
// binding (the normal dependencies of the toolwire-node package, followed through the locked
// graph; dev- and build-dependencies and proc-macro crates, which only run at compile time, are
// left out, and so are the workspace's own crates, under toolwire's LICENSE). For each crate: its
// name, version, license expression and repository, and the license and notice files found at the
// root of its source (~/.cargo/registry), each distinct text once with the crates it covers.
//
//   node scripts/third-party-notices.mjs           write THIRD_PARTY_NOTICES
//   node scripts/third-party-notices.mjs --check   exit 1 if the committed file is out of date
//   --file <path>                                  another file to write or check
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const fileArg = process.argv.indexOf('--file')
const output = fileArg === -1 ? join(root, 'THIRD_PARTY_NOTICES') : process.argv[fileArg + 1]
const BINDING = 'toolwire-node'

/** License and notice files at a crate's root: LICENSE, LICENSE-MIT, COPYING, NOTICE, ... */
const NOTICE_FILE = /^(licen[cs]e|copying|notice|copyright|unlicense)([-._].*)?$/i

/** The target triples the package is built for (package.json `napi.targets`). */
function targets() {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).napi.targets
}

/** `cargo metadata` of the workspace for one target, from Cargo.lock as it is (never updated). */
function metadata(triple) {
  const text = execFileSync('cargo', ['metadata', '--format-version', '1', '--locked', '--filter-platform', triple], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  })
  return JSON.parse(text)
}

/** Whether a package only runs at compile time (a proc-macro crate). */
function isProcMacro(pkg) {
  return pkg.targets.some((t) => t.kind.includes('proc-macro')) && pkg.targets.every((t) => t.kind.includes('proc-macro') || !t.kind.includes('lib'))
}

/**
 * The packages linked into the binding built for the target `meta` was filtered for: from
 * toolwire-node, every dependency edge of a normal kind, not into proc-macro crates.
 */
function linkedPackages(meta) {
  const packages = new Map(meta.packages.map((p) => [p.id, p]))
  const nodes = new Map(meta.resolve.nodes.map((n) => [n.id, n]))
  const members = new Set(meta.workspace_members)
  const start = meta.packages.find((p) => p.name === BINDING && members.has(p.id))
  if (start === undefined) throw new Error(`no workspace package ${BINDING}`)
  const seen = new Set([start.id])
  const queue = [start.id]
  while (queue.length > 0) {
    const node = nodes.get(queue.shift())
    for (const dep of node.deps) {
      const normal = dep.dep_kinds.some((k) => k.kind === null)
      if (!normal || seen.has(dep.pkg) || isProcMacro(packages.get(dep.pkg))) continue
      seen.add(dep.pkg)
      queue.push(dep.pkg)
    }
  }
  return [...seen].filter((id) => !members.has(id)).map((id) => packages.get(id))
}

/** The packages linked into the binding of any of `triples`, by name and version. */
function linkedForTargets(triples, metadataOf = metadata) {
  const all = new Map()
  for (const triple of triples) {
    for (const pkg of linkedPackages(metadataOf(triple))) all.set(pkg.id, pkg)
  }
  return [...all.values()].sort((a, b) => compareText(a.name, b.name) || compareVersions(a.version, b.version))
}

/** Code-unit order: the same on every machine, whatever its locale. */
function compareText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Versions by their numeric parts (`0.9.0` before `0.10.0`), then as text. */
function compareVersions(a, b) {
  const parts = (v) => v.split(/[.+-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p))
  const [x, y] = [parts(a), parts(b)]
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue
    if (typeof x[i] === 'number' && typeof y[i] === 'number') return x[i] - y[i]
    return compareText(String(x[i]), String(y[i]))
  }
  return x.length - y.length || compareText(a, b)
}

/** The license and notice files at the root of a crate's source, `[{ name, text }]`, by name. */
function noticeFiles(pkg) {
  const dir = dirname(pkg.manifest_path)
  const names = existsSync(dir) ? readdirSync(dir).filter((name) => NOTICE_FILE.test(name)) : []
  if (pkg.license_file) names.push(pkg.license_file)
  return [...new Set(names)]
    .sort()
    .filter((name) => existsSync(join(dir, name)))
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8').replace(/\r\n/g, '\n').trimEnd() }))
}

/** The whole THIRD_PARTY_NOTICES text. */
export function render(triples = targets()) {
  const crates = linkedForTargets(triples)
  const texts = new Map() // text with its whitespace collapsed -> { text, users: ['name version (file)'] }
  const lines = [
    'THIRD-PARTY NOTICES',
    '',
    'The native binding of toolwire (toolwire.*.node) statically links the Rust crates below',
    `(those linked for any of its targets: ${triples.join(', ')}).`,
    'Generated by scripts/third-party-notices.mjs from Cargo.lock; do not edit by hand.',
    '',
    `${crates.length} crates:`,
    '',
  ]
  for (const pkg of crates) {
    const files = noticeFiles(pkg)
    const license = pkg.license ?? (pkg.license_file ? `see ${pkg.license_file}` : 'not declared')
    const source = pkg.repository ? ` ${pkg.repository}` : ''
    const shipped = files.length === 0 ? ' (no license file in the crate)' : ''
    lines.push(`crate ${pkg.name} ${pkg.version}: ${license}${source}${shipped}`)
    for (const file of files) {
      // Copies of one license that differ only in line breaks and indentation are one text.
      const key = file.text.replace(/\s+/g, ' ').trim()
      const entry = texts.get(key) ?? { text: file.text, users: [] }
      entry.users.push(`${pkg.name} ${pkg.version} (${file.name})`)
      texts.set(key, entry)
    }
  }
  for (const { text, users } of texts.values()) {
    lines.push('', '='.repeat(78), '', `Used by: ${users.join(', ')}`, '', text)
  }
  return lines.join('\n') + '\n'
}

function main() {
  const text = render()
  if (process.argv.includes('--check')) {
    // A checkout may have turned the line ends into CRLF (git's autocrlf on Windows).
    const committed = existsSync(output) ? readFileSync(output, 'utf8').replace(/\r\n/g, '\n') : ''
    if (committed !== text) {
      const [was, now] = [crateNames(committed), crateNames(text)]
      const added = [...now].filter((n) => !was.has(n))
      const removed = [...was].filter((n) => !now.has(n))
      console.error(
        `THIRD_PARTY_NOTICES is out of date with Cargo.lock` +
          (added.length > 0 ? `; missing: ${added.join(', ')}` : '') +
          (removed.length > 0 ? `; no longer linked: ${removed.join(', ')}` : '') +
          '. Run: node scripts/third-party-notices.mjs',
      )
      process.exit(1)
    }
    console.log(`THIRD_PARTY_NOTICES is up to date (${crateNames(text).size} crates)`)
    return
  }
  writeFileSync(output, text)
  console.log(`wrote THIRD_PARTY_NOTICES`)
}

/** The `name version` of every crate a notices text lists. */
function crateNames(text) {
  return new Set(
    text
      .split('\n')
      .filter((line) => line.startsWith('crate '))
      .map((line) => line.slice('crate '.length).split(':')[0]),
  )
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
