// Run by mcp-versions.test.ts in a project of its own holding one version of
// @modelcontextprotocol/sdk: a runtime served with toolwire/mcp's serveMcp, called by the SDK's
// Client and added to a second runtime with addMcpServer, over the SDK's InMemoryTransport (the
// runtimes: mcp-runtimes.mjs).
// Imported (ESM) or required (CommonJS) as argv[2] says; argv[3] is a PNG, base64. Prints one JSON
// line of what came back.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

import { addedBack, servedRuntime } from './mcp-runtimes.mjs'

const require = createRequire(import.meta.url)
const entry = process.argv[2]
const load = (specifier) => (entry === 'require' ? require(specifier) : import(specifier))
const { Client } = await load('@modelcontextprotocol/sdk/client/index.js')
const { McpServer } = await load('@modelcontextprotocol/sdk/server/mcp.js')
const { InMemoryTransport } = await load('@modelcontextprotocol/sdk/inMemory.js')
const { ToolRuntime } = require('toolwire')
const { addMcpServer, serveMcp } = await load('toolwire/mcp')

const { served, aborted } = servedRuntime(ToolRuntime, process.argv[3])

const server = serveMcp(served, { name: 'peer-check', version: '1.0.0' })
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
await server.connect(serverSide)
const client = new Client({ name: 'peer-check-client', version: '1.0.0' })
await client.connect(clientSide)

const listed = (await client.listTools()).tools.map((t) => [t.name, t.outputSchema !== undefined])
const progress = []
const worked = await client.callTool({ name: 'work', arguments: { steps: 2 } }, undefined, { onprogress: (p) => progress.push([p.progress, p.message ?? null]) })

const back = await addedBack(ToolRuntime, addMcpServer, client, aborted)

console.log(JSON.stringify({
  sdk: JSON.parse(readFileSync('node_modules/@modelcontextprotocol/sdk/package.json', 'utf8')).version,
  serverIsSdkClass: server instanceof McpServer,
  listed,
  worked: worked.content,
  progress,
  ...back,
}))
await client.close()
await server.close()
