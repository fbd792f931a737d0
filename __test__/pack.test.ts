// The package as users get it: `npm pack`, installed from the tarball into a fresh temporary
// project (offline: toolwire has no runtime dependencies, and the per-platform optional
// dependencies are not published from here), then used there from CommonJS, ESM, TypeScript
// (node16 resolution) and the `toolwire` bin.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
// The binding `napi build --platform` wrote for this machine (toolwire.linux-x64-gnu.node here).
const binaries = readdirSync(root).filter((file) => /^toolwire\.[a-z0-9-]+\.node$/.test(file))

// npm as a user runs it: none of the npm_* variables of an enclosing `npm test`.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)))

function npm(args: string[], cwd: string): string {
  const result = spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 120_000, shell: process.platform === 'win32' })
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${result.status}):\n${result.stderr}`)
  return result.stdout
}

/** tsc run on the project `config` (a tsconfig file) in `cwd`: its exit status and what it printed. */
function tscIn(cwd: string, config: string): { status: number | null; stdout: string } {
  return spawnSync(process.execPath, [tsc, '-p', config], { cwd, env, encoding: 'utf8' })
}

function node(args: string[], cwd: string): string {
  return execFileSync(process.execPath, args, { cwd, env, encoding: 'utf8' }).trim()
}

let dir = ''
let app = ''
let packed: { filename: string; size: number; unpackedSize: number; files: { path: string; size: number }[] }

// A tool registered and a call dispatched, as the README shows it; prints what came back.
const script = (importLine: string) => `${importLine}
const runtime = new ToolRuntime()
runtime.register({
  name: 'add',
  description: 'Adds two numbers',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: async (_id, { a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], details: { sum: a + b } }),
})
const results = await runtime.dispatch([
  { id: 'call_1', name: 'add', arguments: '{"a":2,"b":3}' },
  { id: 'call_2', name: 'add', arguments: '{"a":"x"}' },
])
const decoder = new StreamDecoder('openai-chat')
decoder.push('data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"add","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}\\n\\n')
const turn = decoder.finish()
const binding = Object.keys(require.cache).filter((path) => path.endsWith('.node'))
console.log(JSON.stringify({
  entry: require.resolve('toolwire'),
  binding,
  results: results.map((r) => [r.callId, r.status, r.content[0].text, r.details ?? null, r.error?.code ?? null]),
  calls: turn.toolCalls.map((c) => [c.id, c.name, c.complete]),
}))
`

describe('npm pack', { timeout: 120_000 }, () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolwire-pack-'))
    // --ignore-scripts: `prepare` would rebuild the binding; the suite tests the one built.
    const out = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root)
    packed = JSON.parse(out)[0]
    mkdirSync(join(dir, 'app'))
    app = realpathSync(join(dir, 'app'))
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'toolwire-pack-check', version: '1.0.0', private: true }))
    npm(['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', join(dir, packed.filename)], app)
  }, 180_000)

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('holds the entry points, the declarations, the CLI and this platform binary, and no sources, tests or benches', () => {
    const paths = packed.files.map((f) => f.path)
    expect(binaries).toHaveLength(1)
    for (const file of ['package.json', 'README.md', 'LICENSE', 'THIRD_PARTY_NOTICES', 'dist/index.js', 'dist/index.d.ts', 'native.js', 'native.d.ts', 'bin/toolwire.js', 'dist/adapters/mcp.mjs', 'dist/binding.js', 'dist/protocol.generated.js', ...binaries]) {
      expect(paths).toContain(file)
    }
    // Every file the exports map and the bin name is in the tarball.
    type Target = string | { [condition: string]: Target }
    const flat = (t: Target): string[] => (typeof t === 'string' ? [t] : Object.values(t).flatMap(flat))
    const targets = Object.values(pkg.exports as Record<string, Target>).flatMap(flat)
    expect(targets).toContain('./dist/adapters/mcp.d.mts')
    for (const target of [...targets, ...Object.values(pkg.bin as Record<string, string>)]) {
      expect(paths).toContain(target.replace(/^\.\//, ''))
    }
    const allowed = /^(package\.json|README\.md|LICENSE|THIRD_PARTY_NOTICES|native\.(js|d\.ts)|toolwire\.[a-z0-9-]+\.node|bin\/[^/]+\.js|dist\/.+\.(js|mjs|d\.ts|d\.mts)|schemas\/[^/]+\.json)$/
    expect(paths.filter((p) => !allowed.test(p))).toEqual([])
    // Everything but the binary is small (no stray build output or recording slipped in): no
    // file over 512 KB (the largest is THIRD_PARTY_NOTICES, the crates' license texts, about
    // 420 KB) and 2 MB in all (about 1.55 MB with issue 21's kit: toolwire/testing, the
    // presets, each adapter's ESM and CommonJS entries, the CLI); the binary is one file of this
    // platform.
    const rest = packed.files.filter((f) => !f.path.endsWith('.node'))
    expect(rest.filter((f) => f.size > 512 * 1024).map((f) => f.path)).toEqual([])
    expect(rest.reduce((sum, f) => sum + f.size, 0)).toBeLessThan(2_000_000)
    expect(paths.filter((p) => p.endsWith('.node'))).toEqual(binaries)
  })

  it('installs offline without running prepare, the platform packages named as optional dependencies', () => {
    const installed = join(app, 'node_modules', 'toolwire')
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    expect(manifest.version).toBe(pkg.version)
    expect(Object.keys(manifest.optionalDependencies).sort()).toEqual(
      ['darwin-arm64', 'darwin-x64', 'linux-arm64-gnu', 'linux-arm64-musl', 'linux-x64-gnu', 'linux-x64-musl', 'win32-x64-msvc'].map((t) => `toolwire-${t}`),
    )
    expect(Object.values(manifest.optionalDependencies)).toEqual(Array(7).fill(pkg.version))
    expect(manifest.dependencies ?? {}).toEqual({})
    // No build ran in the installed copy (prepare is not run for a tarball install).
    expect(existsSync(join(installed, 'target'))).toBe(false)
    expect(existsSync(join(installed, 'Cargo.toml'))).toBe(false)
  })

  it('registers a tool and dispatches calls from CommonJS, the binary loaded from the installed package', () => {
    writeFileSync(join(app, 'check.cjs'), `const { ToolRuntime, StreamDecoder } = require('toolwire')\n;(async () => {\n${script('')}\n})()`)
    const out = JSON.parse(node(['check.cjs'], app))
    expect(out.entry).toBe(join(app, 'node_modules', 'toolwire', 'dist', 'index.js'))
    expect(out.binding).toEqual([join(app, 'node_modules', 'toolwire', binaries[0])])
    expect(out.results).toEqual([
      ['call_1', 'ok', '5', { sum: 5 }, null],
      ['call_2', 'error', expect.stringContaining('b'), null, 'VALIDATION_ERROR'],
    ])
    expect(out.calls).toEqual([['c', 'add', true]])
  })

  it('works from ESM with named imports', () => {
    writeFileSync(
      join(app, 'check.mjs'),
      script(`import { ToolRuntime, StreamDecoder } from 'toolwire'\nimport toolwire from 'toolwire'\nimport { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)\nif (toolwire.ToolRuntime !== ToolRuntime) throw new Error('default and named exports differ')`),
    )
    const out = JSON.parse(node(['check.mjs'], app))
    expect(out.entry).toBe(join(app, 'node_modules', 'toolwire', 'dist', 'index.js'))
    expect(out.binding).toEqual([join(app, 'node_modules', 'toolwire', binaries[0])])
    expect(out.results.map((r: unknown[]) => r.slice(0, 2))).toEqual([
      ['call_1', 'ok'],
      ['call_2', 'error'],
    ])
  })

  it("type-checks a user's TypeScript against the installed declarations (node16, ESM and CommonJS files)", () => {
    const code = `import { ToolRuntime, StreamDecoder, type ToolResult, type StreamEvent } from 'toolwire'
const runtime = new ToolRuntime({ concurrency: 4 })
runtime.register({ name: 'add', execute: (_id: string, p: { a: number; b: number }) => String(p.a + p.b) })
export const results: Promise<ToolResult[]> = runtime.dispatch([{ id: '1', name: 'add', arguments: { a: 1, b: 2 } }])
export const events: StreamEvent[] = new StreamDecoder('anthropic').push('')
`
    writeFileSync(join(app, 'esm.mts'), code)
    writeFileSync(join(app, 'cjs.cts'), code)
    writeFileSync(join(app, 'wrong.mts'), `import { ToolRuntime } from 'toolwire'\nnew ToolRuntime().dispatch([{ name: 'add' }])\n`)
    const options = { compilerOptions: { strict: true, noEmit: true, module: 'node16', moduleResolution: 'node16', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] } }
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ ...options, files: ['esm.mts', 'cjs.cts'] }))
    writeFileSync(join(app, 'tsconfig.wrong.json'), JSON.stringify({ ...options, files: ['wrong.mts'] }))
    const ok = tscIn(app, 'tsconfig.json')
    expect(ok.stdout).toBe('')
    expect(ok.status).toBe(0)
    // The declarations are really in use: a call without its id does not compile.
    const wrong = tscIn(app, 'tsconfig.wrong.json')
    expect(wrong.status).not.toBe(0)
    expect(wrong.stdout).toMatch(/wrong\.mts\(2,\d+\): error TS2322: Type '\{ name: string; \}' is not assignable to type 'DispatchCall'/)
  })

  it('toolwire/mcp without an MCP SDK installed: addMcpServer loads, serveMcp names the packages to install', () => {
    expect(existsSync(join(app, 'node_modules', '@modelcontextprotocol'))).toBe(false)
    const check = `const rt = new ToolRuntime()
let message = 'no error'
try { serveMcp(rt) } catch (error) { message = error.message }
console.log(JSON.stringify([typeof addMcpServer, message]))`
    writeFileSync(join(app, 'mcp-check.mjs'), `import { ToolRuntime } from 'toolwire'\nimport { addMcpServer, serveMcp } from 'toolwire/mcp'\n${check}`)
    writeFileSync(join(app, 'mcp-check.cjs'), `const { ToolRuntime } = require('toolwire')\nconst { addMcpServer, serveMcp } = require('toolwire/mcp')\n${check}`)
    const expected = ['function', 'toolwire/mcp needs the package "@modelcontextprotocol/sdk" (the MCP SDK 1) or "@modelcontextprotocol/server" (the MCP SDK 2): install one next to toolwire']
    expect(JSON.parse(node(['mcp-check.mjs'], app))).toEqual(expected)
    expect(JSON.parse(node(['mcp-check.cjs'], app))).toEqual(expected)
  })

  it("types toolwire/mcp for import with named exports only (no default) and for require as CommonJS", () => {
    writeFileSync(join(app, 'mcp-named.mts'), `import { addMcpServer, serveMcp, type ServeMcpOptions } from 'toolwire/mcp'\nexport const options: ServeMcpOptions = { name: 'x' }\nexport const fns = [addMcpServer, serveMcp]\n`)
    writeFileSync(join(app, 'mcp-require.cts'), `import mcp = require('toolwire/mcp')\nexport const fns = [mcp.addMcpServer, mcp.serveMcp]\n`)
    writeFileSync(join(app, 'mcp-default.mts'), `import mcp from 'toolwire/mcp'\nexport const fn = mcp.serveMcp\n`)
    // skipLibCheck: the declarations import the SDK's types, and this project does not install the SDK.
    const options = { compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, module: 'node16', moduleResolution: 'node16', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] } }
    writeFileSync(join(app, 'tsconfig.mcp.json'), JSON.stringify({ ...options, files: ['mcp-named.mts', 'mcp-require.cts'] }))
    writeFileSync(join(app, 'tsconfig.mcp-default.json'), JSON.stringify({ ...options, files: ['mcp-default.mts'] }))
    const ok = tscIn(app, 'tsconfig.mcp.json')
    expect(ok.stdout).toBe('')
    expect(ok.status).toBe(0)
    const wrong = tscIn(app, 'tsconfig.mcp-default.json')
    expect(wrong.status).not.toBe(0)
    expect(wrong.stdout).toMatch(/mcp-default\.mts\(1,8\): error TS1192: Module '"[^"]*mcp"' has no default export/)
  })

  it('types each adapter with its library for import (.mts) and require (.cts) under nodenext: new ToolNode(toLangChainTools(runtime)) compiles as ESM', () => {
    // A second project from the same tarball, the libraries linked from this repository's
    // node_modules (the first project must stay without the MCP SDK).
    const peersApp = join(dir, 'peers-app')
    mkdirSync(peersApp)
    writeFileSync(join(peersApp, 'package.json'), JSON.stringify({ name: 'toolwire-pack-peers', version: '1.0.0', private: true }))
    npm(['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', join(dir, packed.filename)], peersApp)
    for (const name of ['@langchain', '@mariozechner', '@modelcontextprotocol', 'ai']) {
      symlinkSync(join(root, 'node_modules', name), join(peersApp, 'node_modules', name), process.platform === 'win32' ? 'junction' : 'dir')
    }
    const code = (entry: 'import' | 'require') => `${entry === 'import' ? "import { ToolNode } from '@langchain/langgraph/prebuilt'\nimport { MessagesAnnotation, StateGraph } from '@langchain/langgraph'" : "import { ToolNode } from '@langchain/langgraph/prebuilt'"}
import { streamText, type LanguageModel } from 'ai'
import { ToolRuntime } from 'toolwire'
import { createToolNode, toLangChainTools } from 'toolwire/langchain'
import { toAiSdkTools } from 'toolwire/ai-sdk'
import { toPiTools, piEvents } from 'toolwire/pi'
import { addMcpServer, serveMcp } from 'toolwire/mcp'
const runtime = new ToolRuntime()
export const prebuilt = new ToolNode(toLangChainTools(runtime))
${entry === 'import' ? "export const graph = new StateGraph(MessagesAnnotation).addNode('tools', createToolNode(runtime))" : 'export const node = createToolNode(runtime).invoke({ messages: [] })'}
export const run = (model: LanguageModel) => streamText({ model, tools: toAiSdkTools(runtime, { preliminaryResults: true }), prompt: 'x' })
export const pi = [toPiTools(runtime), piEvents(() => {})]
export const mcp = [addMcpServer, serveMcp(runtime)]
`
    writeFileSync(join(peersApp, 'esm.mts'), code('import'))
    writeFileSync(join(peersApp, 'cjs.cts'), code('require'))
    // What an ESM user got before the ESM entries: the CommonJS declarations' tools, which
    // LangGraph's ESM ToolNode refuses.
    writeFileSync(
      join(peersApp, 'wrong.mts'),
      `import { ToolNode } from '@langchain/langgraph/prebuilt'\nimport type { toLangChainTools } from 'toolwire/langchain' with { 'resolution-mode': 'require' }\ndeclare const tools: ReturnType<typeof toLangChainTools>\nexport const node = new ToolNode(tools)\n`,
    )
    // skipLibCheck: pi-ai's own declarations do not compile without it (see tsconfig.pi.json).
    const options = { compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] } }
    writeFileSync(join(peersApp, 'tsconfig.json'), JSON.stringify({ ...options, files: ['esm.mts', 'cjs.cts'] }))
    writeFileSync(join(peersApp, 'tsconfig.wrong.json'), JSON.stringify({ ...options, files: ['wrong.mts'] }))
    const ok = tscIn(peersApp, 'tsconfig.json')
    expect(ok.stdout).toBe('')
    expect(ok.status).toBe(0)
    const wrong = tscIn(peersApp, 'tsconfig.wrong.json')
    expect(wrong.stdout).toMatch(/wrong\.mts\(4,\d+\): error TS2345/)
  }, 180_000)

  it('runs the toolwire bin', () => {
    writeFileSync(join(app, 'schema.json'), JSON.stringify({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } } }))
    // The bin as package.json declares it (node_modules/.bin holds a link to it, a .cmd on Windows).
    const installed = JSON.parse(readFileSync(join(app, 'node_modules', 'toolwire', 'package.json'), 'utf8'))
    const bin = join(app, 'node_modules', 'toolwire', installed.bin.toolwire)
    expect(existsSync(join(app, 'node_modules', '.bin', process.platform === 'win32' ? 'toolwire.cmd' : 'toolwire'))).toBe(true)
    const out = execFileSync(process.execPath, [bin, 'schema', 'schema.json', '--target', 'gemini', '--json'], { cwd: app, env, encoding: 'utf8' })
    expect(JSON.parse(out)).toMatchObject({ schema: { type: 'object' } })
    const usage = spawnSync(process.execPath, [bin, 'nonsense'], { cwd: app, env, encoding: 'utf8' })
    expect(usage.status).toBe(2)
  })
})
