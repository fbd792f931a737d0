// Builds the JavaScript facade: ts/ compiled by tsc into dist/ (tsconfig.build.json: strict,
// declarations emitted), dist/ first emptied so that no output of a removed module lingers.
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

rmSync(join(root, 'dist'), { recursive: true, force: true })
const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
process.exit(build.status ?? 1)
