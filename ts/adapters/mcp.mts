// toolwire/mcp for ESM: the CommonJS adapter, given the SDK's ESM build so that serveMcp returns
// the very McpServer class an ESM user imports from @modelcontextprotocol/sdk (and its types are
// those of the SDK's ESM build: this module's own, emitted as mcp.d.mts). Importing this module
// loads no SDK: serveMcp loads it on its first call (synchronously, as it returns the server),
// and addMcpServer needs no SDK of its own (it uses the Client it is given, of the SDK 1 or 2).
// serveMcp makes an SDK 1 McpServer when @modelcontextprotocol/sdk is installed, else an SDK 2
// one (@modelcontextprotocol/server), or serves through the McpServer handed in as
// options.server; it names both packages when neither is installed. Named exports only.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'

import type { ToolRuntime } from '../runtime.js'
import { importPeer } from './import-peer.mjs'
import { addMcpServer as addMcpServerCjs, type AddMcpServerOptions, type McpClientV2 } from './mcp.js'
import { serveMcpWith, type McpServerInstance, type ServeMcpOptions } from './mcp-server.js'

export type { AddMcpServerOptions, McpClientV2, McpServerInstance, ServeMcpOptions }

/** The SDK's ESM build (the SDK 1's, else the SDK 2's), loaded when serveMcp is first called. */
const importSdk = importPeer('mcp')

/**
 * Registers the tools the connected `client`'s server lists and returns the registered names;
 * `client` is an SDK 1 Client (@modelcontextprotocol/sdk) or an SDK 2 one (@modelcontextprotocol/client).
 * Calls carry the runtime's deadline and cancellation, progress becomes update events, images are
 * kept, `isError` is an error result, `structuredContent` is `details` checked against `outputSchema`.
 */
export function addMcpServer(runtime: ToolRuntime, client: Client | McpClientV2, options?: AddMcpServerOptions): Promise<string[]> {
  // (the SDK's ESM and CommonJS builds declare Client apart, with private fields, so TypeScript
  // sees two types; the adapter uses only its public methods, which both builds have)
  return addMcpServerCjs(runtime, client as unknown as Parameters<typeof addMcpServerCjs>[1], options)
}

/**
 * An SDK McpServer whose tools/list and tools/call are the runtime's; connect it with
 * `.connect(transport)`. It owns the server's tool handlers: do not also call its `registerTool`.
 * `options.server` is an unconnected McpServer of either SDK major to serve through (returned);
 * without it the server is made of @modelcontextprotocol/sdk when installed, else of
 * @modelcontextprotocol/server. Throws, naming both packages, when neither is installed.
 */
export function serveMcp<S extends McpServerInstance>(runtime: ToolRuntime, options: ServeMcpOptions & { server: S }): S
export function serveMcp(runtime: ToolRuntime, options?: ServeMcpOptions): McpServer
export function serveMcp(runtime: ToolRuntime, options?: ServeMcpOptions): McpServerInstance {
  // (the instance is of the ESM build's class, loaded through `import`'s resolution)
  return serveMcpWith(importSdk, runtime, options) as unknown as McpServer
}
