// toolwire/mcp for ESM (the `import` condition): named exports only, as lib/adapters/mcp.mjs has
// no default export; the SDK types are those of its ESM build. The options are mcp.d.ts's.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'

import type { ToolRuntime } from '../index.js'
import type { AddMcpServerOptions, ServeMcpOptions } from './mcp.js'

export type { AddMcpServerOptions, ServeMcpOptions }

/**
 * Registers the tools the connected `client`'s server lists and returns the registered names.
 * Calls carry the runtime's deadline and cancellation, progress becomes update events, images are
 * kept, `isError` is an error result, `structuredContent` is `details` checked against `outputSchema`.
 */
export declare function addMcpServer(runtime: ToolRuntime, client: Client, options?: AddMcpServerOptions): Promise<string[]>

/**
 * An SDK McpServer whose tools/list and tools/call are the runtime's; connect it with
 * `.connect(transport)`. It owns the server's tool handlers: do not also call its `registerTool`.
 * Throws, naming the package to install, when @modelcontextprotocol/sdk is missing.
 */
export declare function serveMcp(runtime: ToolRuntime, options?: ServeMcpOptions): McpServer
