// toolwire/mcp for ESM: the CommonJS adapter, given the SDK's ESM build so that serveMcp returns
// the very McpServer class an ESM user imports from @modelcontextprotocol/sdk. As from CommonJS,
// addMcpServer needs no SDK of its own (it uses the Client it is given) and serveMcp says which
// package to install when @modelcontextprotocol/sdk is missing.
import adapter from './mcp.js'
import server from './mcp-server.js'
import common from './common.js'

let sdk
let missing
try {
  const [{ McpServer }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ])
  sdk = { McpServer, ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode }
} catch (error) {
  missing = common.missingPeer('@modelcontextprotocol/sdk', 'mcp', error)
  if (missing === undefined) throw error
}

export const addMcpServer = adapter.addMcpServer

export function serveMcp(runtime, options) {
  if (missing !== undefined) throw missing
  return server.serveMcpWith(sdk, runtime, options)
}
