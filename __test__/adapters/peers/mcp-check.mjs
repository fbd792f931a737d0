// Run by mcp-versions.test.ts in a project of its own holding one version of
// @modelcontextprotocol/sdk: a runtime served with toolwire/mcp's serveMcp, called by the SDK's
// Client and added to a second runtime with addMcpServer, over the SDK's InMemoryTransport.
// Imported (ESM) or required (CommonJS) as argv[2] says; argv[3] is a PNG, base64. Prints one JSON
// line of what came back.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const entry = process.argv[2]
const load = (specifier) => (entry === 'require' ? require(specifier) : import(specifier))
const { Client } = await load('@modelcontextprotocol/sdk/client/index.js')
const { McpServer } = await load('@modelcontextprotocol/sdk/server/mcp.js')
const { InMemoryTransport } = await load('@modelcontextprotocol/sdk/inMemory.js')
const { ToolRuntime } = require('toolwire')
const { addMcpServer, serveMcp } = await load('toolwire/mcp')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const served = new ToolRuntime()
const aborted = []
served.register({ name: 'greet', description: 'Says hello', parameters: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] }, execute: (_id, { who }) => `hello ${who}` })
served.register({ name: 'picture', execute: () => ({ content: [{ type: 'text', text: 'pic' }, { type: 'image', data: process.argv[3], mimeType: 'image/png' }] }) })
served.register({ name: 'explode', execute: () => { throw new Error('kaboom') } })
served.register({
  name: 'measure',
  outputSchema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] },
  execute: () => ({ content: [{ type: 'text', text: 'size 9' }], details: { size: 9 } }),
})
served.register({
  name: 'work',
  parameters: { type: 'object', properties: { steps: { type: 'number' } } },
  async execute(_id, { steps }, signal, onUpdate) {
    for (let i = 1; i <= steps; i++) {
      onUpdate?.({ content: [{ type: 'text', text: `working ${i}` }] })
      await sleep(20)
      if (signal.aborted) {
        aborted.push(i)
        return 'aborted'
      }
    }
    return 'worked'
  },
})

const server = serveMcp(served, { name: 'peer-check', version: '1.0.0' })
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
await server.connect(serverSide)
const client = new Client({ name: 'peer-check-client', version: '1.0.0' })
await client.connect(clientSide)

const listed = (await client.listTools()).tools.map((t) => [t.name, t.outputSchema !== undefined])
const progress = []
const worked = await client.callTool({ name: 'work', arguments: { steps: 2 } }, undefined, { onprogress: (p) => progress.push([p.progress, p.message ?? null]) })

const other = new ToolRuntime()
const names = await addMcpServer(other, client, { prefix: 'remote_' })
const events = []
const results = await other.dispatch(
  [
    { id: 'a', name: 'remote_greet', arguments: { who: 'there' } },
    { id: 'b', name: 'remote_picture', arguments: {} },
    { id: 'c', name: 'remote_explode', arguments: {} },
    { id: 'd', name: 'remote_measure', arguments: {} },
    { id: 'e', name: 'remote_work', arguments: { steps: 2 } },
  ],
  { onEvent: (event) => event.type === 'tool_execution_update' && events.push([event.toolCallId, event.partialResult.content[0].text]) },
)
const controller = new AbortController()
setTimeout(() => controller.abort(), 50)
const [cancelled] = await other.dispatch([{ id: 'x', name: 'remote_work', arguments: { steps: 50 } }], { signal: controller.signal })
for (let i = 0; i < 50 && aborted.length === 0; i++) await sleep(10)

console.log(JSON.stringify({
  sdk: JSON.parse(readFileSync('node_modules/@modelcontextprotocol/sdk/package.json', 'utf8')).version,
  serverIsSdkClass: server instanceof McpServer,
  listed,
  worked: worked.content,
  progress,
  names,
  results: results.map((r) => [r.callId, r.status, r.content, r.details ?? null]),
  events,
  cancelled: cancelled.status,
  serverSawAbort: aborted.length === 1,
}))
await client.close()
await server.close()
