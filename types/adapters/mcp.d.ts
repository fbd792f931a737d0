// toolwire/mcp: MCP servers' tools in a runtime, and a runtime's tools as an MCP server.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { ServerOptions } from '@modelcontextprotocol/sdk/server/index.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'

import type { DispatchOptions, ToolRuntime } from '../index.js'

export interface AddMcpServerOptions {
  /** Prepended to each MCP tool name to form the registered name. */
  prefix?: string
  /** The MCP tool names to register (each must be listed by the server); default all. */
  tools?: string[]
  /** Each tool's deadline; when it passes, the MCP request is cancelled. */
  timeoutMs?: number
  /** Register the tools as this plugin (all or none; policies reach them through `group:plugins`). */
  plugin?: string
}

/**
 * Registers the tools the connected `client`'s server lists and returns the registered names.
 * Calls carry the runtime's deadline and cancellation, progress becomes update events, images are
 * kept, `isError` is an error result, `structuredContent` is `details` checked against `outputSchema`.
 */
export declare function addMcpServer(runtime: ToolRuntime, client: Client, options?: AddMcpServerOptions): Promise<string[]>

export interface ServeMcpOptions {
  /** The server's name (default 'toolwire') and version. */
  name?: string
  version?: string
  instructions?: string
  /** The tools to expose, by name; default every tool registered when a client lists them; `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all): the server lists none. */
  tools?: string[]
  /** Options of every dispatch (the signal is the request's). */
  dispatch?: Omit<DispatchOptions, 'signal'>
  /** Passed to the SDK server (capabilities get `tools` added). */
  serverOptions?: ServerOptions
}

/**
 * An SDK McpServer whose tools/list and tools/call are the runtime's; connect it with
 * `.connect(transport)`. It owns the server's tool handlers: do not also call its `registerTool`.
 */
export declare function serveMcp(runtime: ToolRuntime, options?: ServeMcpOptions): McpServer
