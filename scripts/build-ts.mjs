// Builds the JavaScript facade: ts/ compiled by tsc into dist/ (tsconfig.build.json). A module
// written in TypeScript has its declarations emitted; one still written in JavaScript keeps its
// hand-written declarations (types/, copied over) or has none, never ones tsc guessed from it.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const dist = join(root, 'dist')
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

rmSync(dist, { recursive: true, force: true })
const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
if (build.status !== 0) process.exit(build.status ?? 1)
for (const file of readdirSync(join(root, 'ts'), { recursive: true, encoding: 'utf8' })) {
  if (/\.c?js$/.test(file)) rmSync(join(dist, file.replace(/\.(c?)js$/, '.d.$1ts')), { force: true })
  else if (file.endsWith('.mjs')) rmSync(join(dist, file.replace(/\.mjs$/, '.d.mts')), { force: true })
}
if (existsSync(join(root, 'types'))) cpSync(join(root, 'types'), dist, { recursive: true })
