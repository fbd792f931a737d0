// User review, repro 16, run through analyzeCommand with the real git: a per-URL credential
// helper and a url.<base>.insteadOf leading a push to a repository on this machine. Each is
// confirmed to run code with git, and refused by the analysis; the same lines pass without them.
import { execFile, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createServer, type Server } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { analyzeCommand } from '../dist/index.js'

const run = promisify(execFile)
let root: string
let ws: string
let server: Server
let url: string

const gitEnv = (): NodeJS.ProcessEnv => ({
  PATH: '/usr/bin:/bin',
  HOME: root,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'a',
  GIT_AUTHOR_EMAIL: 'a@example.com',
  GIT_COMMITTER_NAME: 'a',
  GIT_COMMITTER_EMAIL: 'a@example.com',
})

const git = (args: string[], cwd = ws): string =>
  execFileSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8' })

const analyze = (command: string) =>
  analyzeCommand(command, { allowlist: ['git'], env: { PATH: '/usr/bin:/bin' }, cwd: ws })

/** Appends `text` to a fresh copy of the workspace's configuration. */
let baseConfig = ''
const configure = (text: string) => fs.writeFileSync(path.join(ws, '.git', 'config'), baseConfig + text)

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolwire-shell-git-'))
  ws = path.join(root, 'ws')
  fs.mkdirSync(ws)
  git(['init', '-q', '-b', 'main'])
  git(['commit', '-q', '--allow-empty', '-m', 'x'])
  baseConfig = fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')
  server = createServer((_q, s) => {
    s.writeHead(401, { 'WWW-Authenticate': 'Basic realm="x"' })
    s.end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})

afterAll(() => {
  server.close()
  fs.rmSync(root, { recursive: true, force: true })
})

describe('git configuration read as git reads it (repro 16)', () => {
  it('a credential helper configured for one URL runs, and is refused', async () => {
    const marker = path.join(root, 'helper-ran')
    configure(`[credential "${url}"]\n\thelper = "!touch '${marker}'"\n`)
    const command = `git fetch ${url}/x.git`
    await run('/bin/sh', ['-c', command], { cwd: ws, env: gitEnv(), timeout: 20_000 }).catch(() => {})
    expect(fs.existsSync(marker)).toBe(true)
    const analysis = analyze(command)
    expect(analysis.approved).toBe(false)
    expect(analysis.reason).toContain(`credential.${url}.helper`)
    configure(`[credential "${url}"]\n\tusername = me\n`)
    expect(analyze(command).approved).toBe(true)
  })

  it('url.<local path>.insteadOf makes an https push a local one, whose hook runs: refused', async () => {
    const bare = path.join(ws, 'vendor', 'cache.git')
    fs.mkdirSync(bare, { recursive: true })
    git(['init', '-q', '--bare'], bare)
    const marker = path.join(root, 'hook-ran')
    const hook = path.join(bare, 'hooks', 'pre-receive')
    fs.writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`)
    fs.chmodSync(hook, 0o755)
    const app = 'https://github.com/acme/app.git'
    for (const key of ['insteadOf', 'pushInsteadOf']) {
      configure(`[url "${bare}"]\n\t${key} = ${app}\n`)
      fs.rmSync(marker, { force: true })
      await run('git', ['push', '-q', app, 'HEAD:main'], { cwd: ws, env: gitEnv(), timeout: 20_000 }).catch(() => {})
      expect(fs.existsSync(marker), key).toBe(true)
      const analysis = analyze(`git push ${app} HEAD:main`)
      expect(analysis.approved, key).toBe(false)
      expect(analysis.reason).toContain('on this machine')
      expect(analyze(`git push https://github.com/acme/other.git HEAD:main`).approved, key).toBe(true)
    }
  })

  it('a refspec naming a directory is no repository', () => {
    configure('')
    fs.mkdirSync(path.join(ws, 'main'), { recursive: true })
    expect(analyze('git fetch origin main').approved).toBe(true)
    expect(analyze('git push origin HEAD:main').approved).toBe(true)
    expect(analyze('git fetch main').approved).toBe(false)
  })
})
