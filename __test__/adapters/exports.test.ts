import { execFileSync } from 'node:child_process'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** Runs a script in a fresh Node process inside the package (self-reference resolves 'toolwire'). */
function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }).trim()
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
})
