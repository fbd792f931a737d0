import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** Runs a script in a fresh Node process inside the package (self-reference resolves 'toolwire'). */
function node(args: string[], env: Record<string, string> = {}): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } }).trim()
}

describe('package exports', () => {
  it("require('toolwire') and the adapters' subpaths work from CommonJS", () => {
    const out = node([
      '-e',
      `const { ToolRuntime, StreamDecoder } = require('toolwire')
       const pi = require('toolwire/pi'), lc = require('toolwire/langchain'), ai = require('toolwire/ai-sdk'), mcp = require('toolwire/mcp')
       const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
       const rt = new ToolRuntime(); rt.register({ name: 'a', execute: () => 'x' })
       console.log(JSON.stringify([typeof StreamDecoder, Object.keys(pi).sort(), Object.keys(lc).sort(), Object.keys(ai).sort(), Object.keys(mcp).sort(),
         pi.toPiTools(rt).length, lc.toLangChainTools(rt).length, Object.keys(ai.toAiSdkTools(rt)), mcp.serveMcp(rt) instanceof McpServer]))`,
    ])
    expect(JSON.parse(out)).toEqual([
      'function',
      ['piEvents', 'registerPiTools', 'toPiTools'],
      ['createToolNode', 'toLangChainTools'],
      ['aiSdkModelOutput', 'toAiSdkTools'],
      ['addMcpServer', 'serveMcp'],
      1,
      1,
      ['a'],
      true,
    ])
  })

  it("ESM named imports: import { ToolRuntime } from 'toolwire' and every adapter subpath", () => {
    const out = node([
      '--input-type=module',
      '-e',
      `import { ToolRuntime, StreamDecoder, normalizeSchema } from 'toolwire'
       import toolwire from 'toolwire'
       import { registerPiTools, toPiTools, piEvents } from 'toolwire/pi'
       import { toLangChainTools, createToolNode } from 'toolwire/langchain'
       import { toAiSdkTools } from 'toolwire/ai-sdk'
       import { addMcpServer, serveMcp } from 'toolwire/mcp'
       import * as mcpModule from 'toolwire/mcp'
       import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
       const rt = new ToolRuntime(); rt.register({ name: 'a', execute: () => 'x' })
       const [r] = await rt.dispatch([{ id: '1', name: 'a', arguments: {} }])
       console.log(JSON.stringify([toolwire.ToolRuntime === ToolRuntime, typeof StreamDecoder, typeof normalizeSchema, r.ok,
         [registerPiTools, toPiTools, piEvents, toLangChainTools, createToolNode, toAiSdkTools, addMcpServer].map((f) => typeof f),
         serveMcp(rt) instanceof McpServer, Object.keys(mcpModule).sort()]))`,
    ])
    // toolwire/mcp has named exports only (its import declarations, mcp.d.mts, say so too).
    expect(JSON.parse(out)).toEqual([true, 'function', 'function', true, Array(7).fill('function'), true, ['addMcpServer', 'serveMcp']])
  })

  it("ESM: toolwire/langchain and toolwire/ai-sdk use the libraries' ESM builds the user imports, one copy of each in the process", () => {
    const out = node([
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module'
       import { AIMessage, ToolMessage } from '@langchain/core/messages'
       import { Runnable } from '@langchain/core/runnables'
       import { DynamicStructuredTool, StructuredTool } from '@langchain/core/tools'
       import { ToolNode } from '@langchain/langgraph/prebuilt'
       import { generateText } from 'ai'
       import { MockLanguageModelV3 } from 'ai/test'
       import { ToolRuntime } from 'toolwire'
       import { toAiSdkTools } from 'toolwire/ai-sdk'
       import { createToolNode, toLangChainTools } from 'toolwire/langchain'
       const rt = new ToolRuntime()
       rt.register({ name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }, execute: (_id, p) => String(p.a + p.b) })
       const tools = toLangChainTools(rt)
       const call = () => new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'add', args: { a: 1, b: 2 } }] })
       const viaToolNode = await new ToolNode(tools).invoke({ messages: [call()] })
       const node = createToolNode(rt)
       const viaNode = await node.invoke({ messages: [call()] })
       const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
       const model = new MockLanguageModelV3({ doGenerate: [
         { content: [{ type: 'tool-call', toolCallId: 'g1', toolName: 'add', input: '{"a":2,"b":2}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] },
       ] })
       const generated = await generateText({ model, tools: toAiSdkTools(rt), prompt: 'add' })
       // CommonJS builds in require's cache: @langchain/core's are .cjs files, ai's is dist/index.js.
       const cjs = Object.keys(createRequire(import.meta.url).cache).filter((p) => /[\\/]@langchain[\\/]core[\\/].*\.cjs$|[\\/]node_modules[\\/]ai[\\/]dist[\\/]index\.js$/.test(p))
       console.log(JSON.stringify([tools[0] instanceof StructuredTool, tools[0] instanceof DynamicStructuredTool, node instanceof Runnable,
         viaToolNode.messages.map((m) => [m instanceof ToolMessage, m.tool_call_id, m.content]), viaNode.messages.map((m) => [m instanceof ToolMessage, m.content]),
         generated.toolResults.map((r) => [r.toolCallId, r.output.content[0].text]), cjs]))`,
    ])
    expect(JSON.parse(out)).toEqual([true, true, true, [[true, 'c1', '3']], [[true, '3']], [['g1', '4']], []])
  })

  it('CommonJS: toolwire/langchain gives the classes require gives', () => {
    const out = node([
      '-e',
      `const { StructuredTool } = require('@langchain/core/tools')
       const { Runnable } = require('@langchain/core/runnables')
       const { ToolRuntime } = require('toolwire')
       const { createToolNode, toLangChainTools } = require('toolwire/langchain')
       const rt = new ToolRuntime(); rt.register({ name: 'a', execute: () => 'x' })
       console.log(JSON.stringify([toLangChainTools(rt)[0] instanceof StructuredTool, createToolNode(rt) instanceof Runnable]))`,
    ])
    expect(JSON.parse(out)).toEqual([true, true])
  })

  it('the main entry loads none of the peer packages', () => {
    const out = node([
      '-e',
      `require('toolwire'); require('toolwire/pi'); require('toolwire/langchain'); require('toolwire/ai-sdk'); require('toolwire/mcp')
       const peers = () => [...new Set(Object.keys(require.cache).map((p) => /node_modules[\\\\/](@langchain|ai|@modelcontextprotocol|@mariozechner|zod)[\\\\/]/.exec(p)?.[1]).filter(Boolean))]
       const before = peers()
       const { ToolRuntime } = require('toolwire'); const rt = new ToolRuntime(); rt.register({ name: 'a', execute: () => 'x' })
       require('toolwire/langchain').toLangChainTools(rt)
       console.log(JSON.stringify([before, peers().includes('@langchain')]))`,
    ])
    // Nothing before use; using the LangChain adapter loads @langchain/core (the check can see it).
    expect(JSON.parse(out)).toEqual([[], true])
  })

  it("require('toolwire/mcp') loads the MCP SDK only when serveMcp is called", () => {
    const out = node([
      '-e',
      `const mcp = require('toolwire/mcp')
       const sdk = () => Object.keys(require.cache).some((p) => /node_modules[\\\\/]@modelcontextprotocol[\\\\/]/.test(p))
       const before = sdk()
       const { ToolRuntime } = require('toolwire'); const rt = new ToolRuntime(); rt.register({ name: 'a', execute: () => 'x' })
       mcp.serveMcp(rt)
       console.log(JSON.stringify([before, sdk()]))`,
    ])
    expect(JSON.parse(out)).toEqual([false, true])
  })

  it("import 'toolwire/mcp' loads the MCP SDK only when serveMcp is called (and serves the SDK's ESM class)", () => {
    // A resolve hook logs every module of the SDK that ESM resolution is asked for.
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-mcp-lazy-'))
    const log = join(dir, 'resolved.log')
    writeFileSync(log, '')
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs'
       export async function resolve(specifier, context, next) {
         const resolved = await next(specifier, context)
         if (resolved.url.includes('@modelcontextprotocol')) appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n')
         return resolved
       }`,
    )
    const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})`
    const out = node([
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      '--input-type=module',
      '-e',
      `import { readFileSync } from 'node:fs'
       import { serveMcp } from 'toolwire/mcp'
       import { ToolRuntime } from 'toolwire'
       const before = readFileSync(${JSON.stringify(log)}, 'utf8')
       const rt = new ToolRuntime(); rt.register({ name: 'a', execute: () => 'x' })
       const server = serveMcp(rt)
       const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js')
       console.log(JSON.stringify([before, server instanceof McpServer]))`,
    ])
    expect(JSON.parse(out)).toEqual(['', true])
    expect(readFileSync(log, 'utf8')).toContain('/dist/esm/server/mcp.js')
  })
})
