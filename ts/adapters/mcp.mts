// toolwire/mcp for ESM: the CommonJS adapter, given the SDK's ESM build so that serveMcp returns
// the very McpServer class an ESM user imports from @modelcontextprotocol/sdk (and its types are
// those of the SDK's ESM build: this module's own, emitted as mcp.d.mts). Importing this module
// loads no SDK: serveMcp loads it on its first call (synchronously, as it returns the server),
// and addMcpServer needs no SDK of its own (it uses the Client it is given). serveMcp says which
// package to install when @modelcontextprotocol/sdk is missing. Named exports only.
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'

import type { ToolRuntime } from '../runtime.js'
import { missingPeer } from './common.js'
import { addMcpServer as addMcpServerCjs, type AddMcpServerOptions } from './mcp.js'
import { serveMcpWith, type McpSdk, type ServeMcpOptions } from './mcp-server.js'

export type { AddMcpServerOptions, ServeMcpOptions }

const require = createRequire(import.meta.url)

/**
 * The module `specifier` resolves to for `import`, loaded now: Node's require of an ES module
 * shares the module instances `import` gets. Where Node cannot require an ES module (before 20.19
 * and 22.12), the package's CommonJS build is loaded instead.
 */
function importNow(specifier: string): unknown {
  if (typeof import.meta.resolve === 'function' && (process.features as { require_module?: boolean }).require_module === true) {
    return require(fileURLToPath(import.meta.resolve(specifier)))
  }
  return require(specifier)
}

let sdk: McpSdk | undefined

/** The SDK classes serveMcp needs, loaded on first use. */
function loadSdk(): McpSdk {
  if (sdk !== undefined) return sdk
  try {
    const { McpServer } = importNow('@modelcontextprotocol/sdk/server/mcp.js') as Pick<McpSdk, 'McpServer'>
    const { CallToolRequestSchema, ListToolsRequestSchema } = importNow('@modelcontextprotocol/sdk/types.js') as Omit<McpSdk, 'McpServer'>
    sdk = { McpServer, ListToolsRequestSchema, CallToolRequestSchema }
    return sdk
  } catch (error) {
    throw missingPeer('@modelcontextprotocol/sdk', 'mcp', error) ?? error
  }
}

/**
 * Registers the tools the connected `client`'s server lists and returns the registered names.
 * Calls carry the runtime's deadline and cancellation, progress becomes update events, images are
 * kept, `isError` is an error result, `structuredContent` is `details` checked against `outputSchema`.
 */
export function addMcpServer(runtime: ToolRuntime, client: Client, options?: AddMcpServerOptions): Promise<string[]> {
  // (the SDK's ESM and CommonJS builds declare Client apart, with private fields, so TypeScript
  // sees two types; the adapter uses only its public methods, which both builds have)
  return addMcpServerCjs(runtime, client as unknown as Parameters<typeof addMcpServerCjs>[1], options)
}

/**
 * An SDK McpServer whose tools/list and tools/call are the runtime's; connect it with
 * `.connect(transport)`. It owns the server's tool handlers: do not also call its `registerTool`.
 * Throws, naming the package to install, when @modelcontextprotocol/sdk is missing.
 */
export function serveMcp(runtime: ToolRuntime, options?: ServeMcpOptions): McpServer {
  // (the instance is of the ESM build's class, loaded above through `import`'s resolution)
  return serveMcpWith(loadSdk(), runtime, options) as unknown as McpServer
}
