// toolwire/mcp with the oldest @modelcontextprotocol/sdk its peer range takes (1.10.0: the first
// whose request handlers can send notifications, which serveMcp's progress needs; 1.8 and 1.9
// lose it) and with 1.23.0 (the first on zod 4), each in a project of its own, from ESM and from
// CommonJS. mcp.test.ts covers the version this repository installs. Then the MCP SDK 2
// (@modelcontextprotocol/client and @modelcontextprotocol/server, without the SDK 1), 2.0.0 (the
// first of the major) and 2.4.0, the same checks with the same outcome (mcp2-check.mjs), and what
// the SDK 2 adds: serveMcp given an McpServer, a deadline reaching the server, tools/list read a
// page at a time with a repeated nextCursor refused, structuredContent checked by the SDK.
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

import { pngBase64 } from './fixtures.js'
import { peerProject } from './peer-project.js'

const peers = join(dirname(fileURLToPath(import.meta.url)), 'peers')
const check = join(peers, 'mcp-check.mjs')
const check2 = join(peers, 'mcp2-check.mjs')

/** A check script copied into `dir` with the runtimes it imports. */
function copyCheck(script: string, dir: string): void {
  for (const file of [script, join(peers, 'mcp-runtimes.mjs')]) copyFileSync(file, join(dir, basename(file)))
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

/** The peer project of `packages`, or undefined after skipping the test, saying why (no registry here). */
function projectOrSkip(packages: string[], context: { skip: (note?: string) => void }): string | undefined {
  const project = peerProject(packages)
  if (project.dir !== undefined) return project.dir
  console.warn(`toolwire/mcp with ${packages.join(', ')}: skipped: ${project.failure}`)
  context.skip(project.failure)
  return undefined
}

/** What both SDK majors answer: the checks of mcp-check.mjs, `png` the picture tool's image. */
const sameOutcome = (png: string) => ({
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

describe.each(['1.10.0', '1.23.0'])('toolwire/mcp with @modelcontextprotocol/sdk %s', { timeout: 120_000 }, (version) => {
  it.each(['import', 'require'])('%s: serves a runtime to the SDK Client and adds that server to another runtime', async (entry) => {
    const project = peerProject([`@modelcontextprotocol/sdk@${version}`])
    if (project.dir === undefined) throw new Error(project.failure)
    const png = await pngBase64()
    copyCheck(check, project.dir)
    const out = JSON.parse(execFileSync(process.execPath, ['mcp-check.mjs', entry, png], { cwd: project.dir, encoding: 'utf8' }))
    expect(out).toEqual({ sdk: version, ...sameOutcome(png) })
  })
})

describe.each(['2.0.0', '2.4.0'])('toolwire/mcp with @modelcontextprotocol/client and @modelcontextprotocol/server %s', { timeout: 120_000 }, (version) => {
  it.for(['import', 'require'])('%s: the same checks as with the SDK 1, and serveMcp given an McpServer, deadlines, pages', async (entry, context) => {
    const dir = projectOrSkip([`@modelcontextprotocol/client@${version}`, `@modelcontextprotocol/server@${version}`], context)
    if (dir === undefined) return
    const png = await pngBase64()
    copyCheck(check2, dir)
    const out = JSON.parse(execFileSync(process.execPath, ['mcp2-check.mjs', entry, png], { cwd: dir, encoding: 'utf8' }))
    expect(out).toEqual({
      sdk: version,
      client: version,
      sdk1Installed: false,
      ...sameOutcome(png),
      late: ['timeout', 'TIMEOUT'],
      serverSawDeadline: true,
      ownServer: { returned: true, serverInfo: 'own', instructions: 'use greet', listed: ['greet'], called: [{ type: 'text', text: 'hello you' }] },
      paged: { names: ['t0', 't1', 't2'], requests: [null, 'page-1', 'page-2'], mismatch: ['error', expect.stringMatching(/^Structured content does not match the tool's output schema: /)] },
      repeated: {
        error: ['VALIDATION_ERROR', 'addMcpServer: MCP server "evil" answered tools/list page 2 with nextCursor "again", a cursor it gave before: following it would list the same pages forever'],
        requests: [null, 'again'],
        registered: 0,
      },
    })
  })
})

describe('toolwire/mcp with the MCP SDK 2 (2.4.0)', { timeout: 120_000 }, () => {
  const sdk2 = ['@modelcontextprotocol/client@2.4.0', '@modelcontextprotocol/server@2.4.0']

  it("types: addMcpServer takes the SDK 2's Client, serveMcp given its McpServer returns that type (import and require)", (context) => {
    const dir = projectOrSkip(sdk2, context)
    if (dir === undefined) return
    const body = (load: string) => `import { Client } from '@modelcontextprotocol/client'
import { McpServer } from '@modelcontextprotocol/server'
import { ToolRuntime } from 'toolwire'
${load}
const runtime = new ToolRuntime()
export const names: Promise<string[]> = mcp.addMcpServer(runtime, new Client({ name: 'c', version: '1' }), { prefix: 'x_' })
export const server: McpServer = mcp.serveMcp(runtime, { server: new McpServer({ name: 's', version: '1' }), tools: ['a'] })
`
    writeFileSync(join(dir, 'types.mts'), body("import * as mcp from 'toolwire/mcp'"))
    writeFileSync(join(dir, 'types.cts'), body("import mcp = require('toolwire/mcp')"))
    // A call the types refuse: the check is real. (skipLibCheck: toolwire/mcp's declarations also
    // name the SDK 1's types, not installed here.)
    writeFileSync(join(dir, 'wrong.mts'), `import { McpServer } from '@modelcontextprotocol/server'\nimport { ToolRuntime } from 'toolwire'\nimport { serveMcp } from 'toolwire/mcp'\nexport const n: number = serveMcp(new ToolRuntime(), { server: new McpServer({ name: 's', version: '1' }) })\n`)
    const compilerOptions = { strict: true, noEmit: true, skipLibCheck: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] }
    writeFileSync(join(dir, 'tsconfig.types.json'), JSON.stringify({ compilerOptions, files: ['types.mts', 'types.cts'] }))
    writeFileSync(join(dir, 'tsconfig.wrong.json'), JSON.stringify({ compilerOptions, files: ['wrong.mts'] }))
    const ok = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { cwd: dir, encoding: 'utf8' })
    expect(ok.stdout).toBe('')
    expect(ok.status).toBe(0)
    const wrong = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.wrong.json'], { cwd: dir, encoding: 'utf8' })
    expect(wrong.stdout).toMatch(/wrong\.mts\(4,14\): error TS2322: Type 'McpServer' is not assignable to type 'number'/)
  })

  it.for(['import', 'require'])('%s: beside the SDK 1, serveMcp makes the SDK 1 server unless given an SDK 2 one; each major\'s Client adds the other\'s server', (entry, context) => {
    const dir = projectOrSkip(['@modelcontextprotocol/sdk@1.32.2', ...sdk2], context)
    if (dir === undefined) return
    const script = `import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const load = (specifier) => (${JSON.stringify(entry)} === 'require' ? require(specifier) : import(specifier))
const v1 = { ...(await load('@modelcontextprotocol/sdk/client/index.js')), ...(await load('@modelcontextprotocol/sdk/server/mcp.js')), ...(await load('@modelcontextprotocol/sdk/inMemory.js')) }
const v2 = { ...(await load('@modelcontextprotocol/client')), ...(await load('@modelcontextprotocol/server')) }
const { ToolRuntime } = require('toolwire')
const { addMcpServer, serveMcp } = await load('toolwire/mcp')
const served = new ToolRuntime()
served.register({ name: 'greet', parameters: { type: 'object', properties: { who: { type: 'string' } } }, execute: (_id, { who }) => 'hello ' + who })
const made = serveMcp(served)
const given = serveMcp(served, { server: new v2.McpServer({ name: 'two', version: '2.0.0' }) })
const out = { made: [made instanceof v1.McpServer, made instanceof v2.McpServer], given: given instanceof v2.McpServer, calls: [] }
for (const [server, Client, InMemoryTransport] of [[given, v1.Client, v1.InMemoryTransport], [made, v2.Client, v2.InMemoryTransport]]) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'c', version: '1' })
  await client.connect(clientSide)
  const runtime = new ToolRuntime()
  const names = await addMcpServer(runtime, client, { prefix: 'r_' })
  const [result] = await runtime.dispatch([{ id: 'a', name: 'r_greet', arguments: { who: 'you' } }])
  out.calls.push([names, result.status, result.content[0].text])
  await client.close()
  await server.close()
}
console.log(JSON.stringify(out))
`
    writeFileSync(join(dir, 'mcp-both.mjs'), script)
    const out = JSON.parse(execFileSync(process.execPath, ['mcp-both.mjs'], { cwd: dir, encoding: 'utf8' }))
    expect(out).toEqual({
      made: [true, false],
      given: true,
      calls: [
        [['r_greet'], 'ok', 'hello you'],
        [['r_greet'], 'ok', 'hello you'],
      ],
    })
  })
})
