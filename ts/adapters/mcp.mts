// toolwire/mcp for ESM: the CommonJS adapter, given the SDK's ESM build so that serveMcp returns
// the very McpServer class an ESM user imports from @modelcontextprotocol/sdk (and its types are
// those of the SDK's ESM build: this module's own, emitted as mcp.d.mts). Importing this module
// loads no SDK: serveMcp loads it on its first call (synchronously, as it returns the server),
// and addMcpServer needs no SDK of its own (it uses the Client it is given). serveMcp says which
// package to install when @modelcontextprotocol/sdk is missing. Named exports only.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'

import type { ToolRuntime } from '../runtime.js'
import { importPeer } from './import-peer.mjs'
import { addMcpServer as addMcpServerCjs, type AddMcpServerOptions } from './mcp.js'
import { serveMcpWith, type ServeMcpOptions } from './mcp-server.js'

export type { AddMcpServerOptions, ServeMcpOptions }

/** The SDK's ESM build, loaded when serveMcp is first called. */
const importSdk = importPeer('mcp')

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
  // (the instance is of the ESM build's class, loaded through `import`'s resolution)
  return serveMcpWith(importSdk, runtime, options) as unknown as McpServer
}
