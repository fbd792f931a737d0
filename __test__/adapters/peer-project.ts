// A project of its own for one version of an adapter's library: a directory with that library
// installed from the npm registry (exact versions, npm's cache first) and toolwire copied in as
// npm would install it, so `require`/`import` of the library from toolwire's adapters resolve to
// that version and not to this repository's devDependencies. Used by the tests of the peer
// versions the package declares (the AI SDK 7, older MCP SDKs) and to fetch Node 22.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

// npm as a user runs it: none of the npm_* variables of an enclosing `npm test`.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)))

/** A directory whose node_modules holds `packages` (specs such as `ai@7.0.173`), or why npm could not install them. */
export type PeerProject = { dir: string } | { dir: undefined; failure: string }

/** Where this checkout's peer projects are: apart from those of another checkout on the machine, which copies its own toolwire in. */
const projects = join(tmpdir(), 'toolwire-peer-projects', createHash('sha256').update(root).digest('hex').slice(0, 12))

/**
 * A project under the system's temporary directory holding `packages`, installed once (kept for
 * later runs, keyed by this checkout and the specs) and, with `withToolwire`, this package's files
 * copied in anew (its dist as last built). Install scripts are not run.
 */
export function peerProject(packages: string[], withToolwire = true): PeerProject {
  const dir = join(projects, packages.join('+').replace(/[^a-zA-Z0-9@.+_-]/g, '_'))
  const marker = join(dir, 'installed')
  if (!existsSync(marker)) {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'toolwire-peer-project', version: '1.0.0', private: true }))
    const args = ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock', '--save-exact', ...packages]
    const npm = spawnSync('npm', args, { cwd: dir, env, encoding: 'utf8', timeout: 300_000, shell: process.platform === 'win32' })
    if (npm.status !== 0) return { dir: undefined, failure: `npm ${args.join(' ')} failed (${npm.status ?? npm.signal}): ${npm.stderr.trim().split('\n').slice(-3).join(' ')}` }
    writeFileSync(marker, packages.join('\n'))
  }
  if (withToolwire) copyToolwire(join(dir, 'node_modules', 'toolwire'))
  return { dir }
}

/** This package's installed files (as `files` in package.json lists them, less the CLI and schemas) copied to `target`. */
function copyToolwire(target: string): void {
  rmSync(target, { recursive: true, force: true })
  mkdirSync(target, { recursive: true })
  const binaries = readdirSync(root).filter((file) => /^toolwire\.[a-z0-9-]+\.node$/.test(file))
  for (const file of ['package.json', 'native.js', 'native.d.ts', ...binaries]) cpSync(join(root, file), join(target, file))
  cpSync(join(root, 'dist'), join(target, 'dist'), { recursive: true })
}

/**
 * A Node.js 22 or later to run the AI SDK 7 with (it needs Node 22): this process's own when it is
 * one, else `TOOLWIRE_NODE22`, else the binary of npm's `node-<platform>-<arch>` package, 22.x,
 * installed in a peer project. Undefined, with the reason, when none is found.
 */
export function node22(): { path: string } | { path: undefined; reason: string } {
  if (Number(process.versions.node.split('.')[0]) >= 22) return { path: process.execPath }
  if (process.env.TOOLWIRE_NODE22) return { path: process.env.TOOLWIRE_NODE22 }
  const name = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`
  const project = peerProject([`${name}@22.23.3`], false)
  if (project.dir === undefined) return { path: undefined, reason: `no Node 22 (this is ${process.version}, TOOLWIRE_NODE22 is not set, and ${project.failure})` }
  const binary = join(project.dir, 'node_modules', name, 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  return existsSync(binary) ? { path: binary } : { path: undefined, reason: `no Node 22: ${name} holds no ${binary}` }
}
