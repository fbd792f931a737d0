// toolwire/mcp with the oldest @modelcontextprotocol/sdk its peer range takes (1.10.0: the first
// whose request handlers can send notifications, which serveMcp's progress needs; 1.8 and 1.9
// lose it) and with 1.23.0 (the first on zod 4), each in a project of its own, from ESM and from
// CommonJS. mcp.test.ts covers the version this repository installs.
import { execFileSync } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

import { pngBase64 } from './fixtures.js'
import { peerProject } from './peer-project.js'

const check = join(dirname(fileURLToPath(import.meta.url)), 'peers', 'mcp-check.mjs')

describe.each(['1.10.0', '1.23.0'])('toolwire/mcp with @modelcontextprotocol/sdk %s', { timeout: 120_000 }, (version) => {
  it.each(['import', 'require'])('%s: serves a runtime to the SDK Client and adds that server to another runtime', async (entry) => {
    const project = peerProject([`@modelcontextprotocol/sdk@${version}`])
    if (project.dir === undefined) throw new Error(project.failure)
    const png = await pngBase64()
    copyFileSync(check, join(project.dir, 'mcp-check.mjs'))
    const out = JSON.parse(execFileSync(process.execPath, ['mcp-check.mjs', entry, png], { cwd: project.dir, encoding: 'utf8' }))
    expect(out).toEqual({
      sdk: version,
      serverIsSdkClass: true,
      listed: [['greet', false], ['picture', false], ['explode', false], ['measure', true], ['work', false]],
      worked: [{ type: 'text', text: 'worked' }],
      progress: [[1, 'working 1'], [2, 'working 2']],
      names: ['remote_greet', 'remote_picture', 'remote_explode', 'remote_measure', 'remote_work'],
      results: [
        ['a', 'ok', [{ type: 'text', text: 'hello there' }], null],
        ['b', 'ok', [{ type: 'text', text: 'pic' }, { type: 'image', data: png, mimeType: 'image/png' }], null],
        ['c', 'error', [{ type: 'text', text: 'kaboom' }], null],
        ['d', 'ok', [{ type: 'text', text: 'size 9' }], { size: 9 }],
        ['e', 'ok', [{ type: 'text', text: 'worked' }], null],
      ],
      events: [['e', 'working 1'], ['e', 'working 2']],
      cancelled: 'cancelled',
      serverSawAbort: true,
    })
  })
})
