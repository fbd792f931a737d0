// toolwire/mcp for ESM: the CommonJS adapter, given the SDK's ESM build so that serveMcp returns
// the very McpServer class an ESM user imports from @modelcontextprotocol/sdk. Importing this
// module loads no SDK: serveMcp loads it on its first call (synchronously, as it returns the
// server), and addMcpServer needs no SDK of its own (it uses the Client it is given). serveMcp
// says which package to install when @modelcontextprotocol/sdk is missing.
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

import { serveMcpWith } from './mcp-server.js'
import { missingPeer } from './common.js'

const require = createRequire(import.meta.url)

/**
 * The module `specifier` resolves to for `import`, loaded now: Node's require of an ES module
 * shares the module instances `import` gets. Where Node cannot require an ES module (before 20.19
 * and 22.12), the package's CommonJS build is loaded instead.
 */
function importNow(specifier) {
  if (typeof import.meta.resolve === 'function' && process.features.require_module === true) {
    return require(fileURLToPath(import.meta.resolve(specifier)))
  }
  return require(specifier)
}

let sdk

/** The SDK classes serveMcp needs, loaded on first use. */
function loadSdk() {
  if (sdk !== undefined) return sdk
  try {
    const { McpServer } = importNow('@modelcontextprotocol/sdk/server/mcp.js')
    const { CallToolRequestSchema, ListToolsRequestSchema } = importNow('@modelcontextprotocol/sdk/types.js')
    sdk = { McpServer, ListToolsRequestSchema, CallToolRequestSchema }
    return sdk
  } catch (error) {
    throw missingPeer('@modelcontextprotocol/sdk', 'mcp', error) ?? error
  }
}

export { addMcpServer } from './mcp.js'

export function serveMcp(runtime, options) {
  return serveMcpWith(loadSdk(), runtime, options)
}
