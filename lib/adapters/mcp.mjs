// toolwire/mcp for ESM: the CommonJS adapter, given the SDK's ESM build so that serveMcp returns
// the very McpServer class an ESM user imports from @modelcontextprotocol/sdk.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'

import adapter from './mcp.js'

const sdk = { McpServer, ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode }

export const addMcpServer = adapter.addMcpServer

export function serveMcp(runtime, options) {
  return adapter.serveMcpWith(sdk, runtime, options)
}
