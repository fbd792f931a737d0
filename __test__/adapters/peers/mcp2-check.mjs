// Run by mcp-versions.test.ts in a project of its own holding one version of the MCP SDK 2
// (@modelcontextprotocol/client and @modelcontextprotocol/server) and no SDK 1: the same checks
// as mcp-check.mjs (a runtime served with toolwire/mcp's serveMcp, called by the SDK's Client and
// added to a second runtime with addMcpServer, over the SDK's InMemoryTransport; the runtimes:
// mcp-runtimes.mjs), and what differs
// in the SDK 2: serveMcp given an McpServer, a deadline reaching the server, the tools/list pages
// addMcpServer reads one at a time (a repeated nextCursor refused), structuredContent checked
// against the listed outputSchema. Imported (ESM) or required (CommonJS) as argv[2] says; argv[3]
// is a PNG, base64. Prints one JSON line of what came back.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

import { abortSeen, addedBack, servedRuntime } from './mcp-runtimes.mjs'

const require = createRequire(import.meta.url)
const entry = process.argv[2]
const load = (specifier) => (entry === 'require' ? require(specifier) : import(specifier))
const { Client } = await load('@modelcontextprotocol/client')
const { McpServer, InMemoryTransport } = await load('@modelcontextprotocol/server')
const { ToolRuntime } = require('toolwire')
const { addMcpServer, serveMcp } = await load('toolwire/mcp')

const { served, aborted } = servedRuntime(ToolRuntime, process.argv[3])

const closers = []
async function connect(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'peer-check-client', version: '1.0.0' })
  await client.connect(clientSide)
  closers.push(() => client.close(), () => server.close())
  return client
}
// serveMcp makes an SDK 2 McpServer (no SDK 1 is installed here).
const server = serveMcp(served, { name: 'peer-check', version: '1.0.0' })
const client = await connect(server)

const listed = (await client.listTools()).tools.map((t) => [t.name, t.outputSchema !== undefined])
const progress = []
const worked = await client.callTool({ name: 'work', arguments: { steps: 2 } }, { onprogress: (p) => progress.push([p.progress, p.message ?? null]) })

const back = await addedBack(ToolRuntime, addMcpServer, client, aborted)

// A deadline: the runtime's timeoutMs cancels the MCP request, and the server's tool sees it.
const timed = new ToolRuntime()
await addMcpServer(timed, client, { tools: ['work'], timeoutMs: 80 })
const [late] = await timed.dispatch([{ id: 't', name: 'work', arguments: { steps: 50 } }])
const serverSawDeadline = await abortSeen(aborted)

// serveMcp given an McpServer of the user's own: served through it, the very instance returned.
const own = new McpServer({ name: 'own', version: '2.0.0' }, { instructions: 'use greet' })
const ownServed = serveMcp(served, { server: own, tools: ['greet'] })
const ownClient = await connect(own)
const ownCall = await ownClient.callTool({ name: 'greet', arguments: { who: 'you' } })
const ownServer = {
  returned: ownServed === own,
  serverInfo: ownClient.getServerVersion()?.name,
  instructions: ownClient.getInstructions?.() ?? null,
  listed: (await ownClient.listTools()).tools.map((t) => t.name),
  called: ownCall.content,
}

// A server of the SDK 2's low-level API: its tools/list pages, one at a time.
async function paginated(page, call) {
  const evil = new McpServer({ name: 'evil', version: '1' })
  evil.server.registerCapabilities({ tools: {} })
  const requests = []
  evil.server.setRequestHandler('tools/list', (request) => {
    requests.push(request.params?.cursor ?? null)
    return page(requests.length - 1)
  })
  evil.server.setRequestHandler('tools/call', call ?? (() => ({ content: [] })))
  return { client: await connect(evil), requests }
}
const tool = (i, extra) => ({ name: `t${i}`, inputSchema: { type: 'object' }, ...extra })
const pages = await paginated(
  (i) => (i < 2 ? { tools: [tool(i)], nextCursor: `page-${i + 1}` } : { tools: [tool(i, { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } })] }),
  (request) => ({ content: [{ type: 'text', text: 'n' }], structuredContent: { n: request.params.name === 't2' ? 'not a number' : 1 } }),
)
const paged = new ToolRuntime()
const pagedNames = await addMcpServer(paged, pages.client)
const [mismatch] = await paged.dispatch([{ id: 'm', name: 't2', arguments: {} }])
const repeated = await paginated(() => ({ tools: [tool(0)], nextCursor: 'again' }))
const refused = new ToolRuntime()
const repeatedError = await addMcpServer(refused, repeated.client).then(() => 'registered', (error) => [error.code, error.message])

const sdkVersion = (name) => JSON.parse(readFileSync(`node_modules/@modelcontextprotocol/${name}/package.json`, 'utf8')).version
console.log(JSON.stringify({
  sdk: sdkVersion('server'),
  client: sdkVersion('client'),
  sdk1Installed: existsSync('node_modules/@modelcontextprotocol/sdk'),
  serverIsSdkClass: server instanceof McpServer,
  listed,
  worked: worked.content,
  progress,
  ...back,
  late: [late.status, late.error?.code ?? null],
  serverSawDeadline,
  ownServer,
  paged: { names: pagedNames, requests: pages.requests, mismatch: [mismatch.status, mismatch.content[0]?.text ?? null] },
  repeated: { error: repeatedError, requests: repeated.requests, registered: refused.list().length },
}))
for (const close of closers) await close()
