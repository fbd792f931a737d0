// The whole test suite, as CI runs it: build, format and lint checks, the Rust tests, the
// TypeScript type check and the Vitest suites. Ends with one line `N passed, N failed` (Rust and
// JS test counts added; a failed check counts as one failure) and exits non-zero on any failure.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'

import { findBrowser, onPath } from './find-browser.mjs'

const report = '.vitest-report.json'
let passed = 0
let failed = 0

function run(title, command, args, { capture = false } = {}) {
  console.log(`\n=== ${title}: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8' })
  if (capture) process.stdout.write(result.stdout ?? '')
  const ok = result.status === 0
  if (!ok) console.log(`=== ${title} FAILED (exit ${result.status ?? result.signal})`)
  return { ok, stdout: result.stdout ?? '' }
}

function check(title, command, args) {
  if (!run(title, command, args).ok) failed += 1
}

check('build', 'npx', ['napi', 'build', '--platform', '--release', '--js', 'native.js', '--dts', 'native.d.ts'])
check('build (TypeScript facade)', 'node', ['scripts/build-ts.mjs'])
check('format', 'cargo', ['fmt', '--all', '--', '--check'])
check('lint', 'cargo', ['clippy', '--workspace', '--all-targets', '--', '-D', 'warnings'])

const rust = run('rust tests', 'cargo', ['test', '--workspace'], { capture: true })
let rustCounted = false
for (const match of rust.stdout.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
  passed += Number(match[1])
  failed += Number(match[2])
  rustCounted = true
}
if (!rust.ok && !rustCounted) failed += 1

check('lint (TypeScript facade)', 'npx', ['oxlint', '-c', '.oxlintrc.json', '--deny-warnings', 'ts'])
check('type check', 'npx', ['tsc', '-p', 'tsconfig.json'])
check('type check (pi adapter)', 'npx', ['tsc', '-p', 'tsconfig.pi.json'])
check('type check (strict consumer, nodenext)', 'npx', ['tsc', '-p', 'tsconfig.strict.json'])

// The CLI test renders the audit timeline in Chromium (driven by playwright-core, which downloads
// no browser; see scripts/find-browser.mjs for where it looks, CHROME_PATH first). When none is
// found, install Debian's once, if this runs as root with apt-get (as on a fresh machine of ours);
// otherwise that one test is skipped, or fails when CI is set.
if (findBrowser() === undefined) {
  if (process.getuid?.() === 0 && onPath('apt-get') !== undefined) {
    check('install chromium', 'sh', ['-c', 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium'])
  } else {
    console.log('\n=== no Chromium found (set CHROME_PATH); not root with apt-get to install it: the CLI timeline test will be skipped (and fail under CI)')
  }
}

rmSync(report, { force: true })
const js = run('js tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${report}`])
if (existsSync(report)) {
  const summary = JSON.parse(readFileSync(report, 'utf8'))
  passed += summary.numPassedTests
  failed += summary.numFailedTests
  if (!js.ok && summary.numFailedTests === 0) failed += 1
} else {
  failed += 1
}

console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
