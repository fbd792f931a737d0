// The MCP server side of toolwire/mcp: a runtime's tools served through an SDK McpServer, of the
// MCP SDK 1 (@modelcontextprotocol/sdk) or the MCP SDK 2 (@modelcontextprotocol/server), the SDK
// loaded by the entry's PeerLoader (mcp.js requires the SDK's CommonJS build, mcp.mjs takes its ESM
// build) or the McpServer handed in as options.server. Internal: not one of the package's exports.
// The SDK 2's types are not installed here: the parts of its Server used are declared below.

import type { ServerOptions } from '@modelcontextprotocol/sdk/server/index.js'
import type * as McpServerModule from '@modelcontextprotocol/sdk/server/mcp.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type * as McpTypes from '@modelcontextprotocol/sdk/types.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'

import type { ToolRuntime } from '../index.js'
import type { ContentBlock, DispatchOptions, ToolInfo, ToolResult } from '../types.js'
import { describe, own } from '../common.js'
import { adapterOptions, toolsOf, offeredTools, dispatchOptionsOf, onEventWithUpdates, textOfContent } from './common.js'
import { missingPackageOf, type MissingPeerError, type PeerLoader } from './peer.js'

/** Options of serveMcp. */
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
  /**
   * The SDK McpServer to serve the tools through, not yet connected: the SDK 1's
   * (`@modelcontextprotocol/sdk`) or the SDK 2's (`@modelcontextprotocol/server`), which serveMcp
   * tells apart by the server itself and returns. With it serveMcp loads no SDK, and `name`,
   * `version`, `instructions` and `serverOptions` (the server's own) are refused.
   */
  server?: McpServerInstance
}

/** An SDK McpServer of either major, as serveMcp's `server` option takes it. */
export interface McpServerInstance {
  /** The SDK's low-level Server, whose request handlers serveMcp sets. */
  readonly server: object
  connect(transport: never): Promise<void>
}

/** A `tools/call` request as both SDK majors hand it to its handler. */
interface CallRequest {
  params: { name: string; arguments?: Record<string, unknown>; _meta?: { progressToken?: string | number } }
}

/** A progress notification's params. */
type ProgressParams = { progressToken: string | number; progress: number; message?: string }

/** The parts of the SDK 2's Server (`McpServer.server`) serveMcp uses. */
interface ServerV2 {
  registerCapabilities(capabilities: { tools: Record<string, never> }): void
  setRequestHandler(method: 'tools/list', handler: () => { tools: Tool[] }): void
  setRequestHandler(method: 'tools/call', handler: (request: CallRequest, ctx: ContextV2) => Promise<CallToolResult>): void
  projectCallToolResult(result: CallToolResult, advertisedOutputSchema: Record<string, unknown> | undefined): CallToolResult
}

/** The SDK 2's request handler context, the parts serveMcp uses. */
interface ContextV2 {
  mcpReq: { id: string | number; signal: AbortSignal; notify(notification: { method: 'notifications/progress'; params: ProgressParams }): Promise<void> }
}

/** One `tools/call` as serveMcp answers it, whichever SDK major received it. */
interface Call {
  request: CallRequest
  requestId: string | number
  signal: AbortSignal
  notify(params: ProgressParams): Promise<void>
}

/** The SDK server serveMcp serves through: its McpServer, the major, and its low-level Server. */
type Served = { server: McpServer; major: 1; low: McpServer['server'] } | { server: McpServerInstance; major: 2; low: ServerV2 }

/** The options that are the server's own, refused beside options.server. */
const OWN_SERVER_OPTIONS = ['name', 'version', 'instructions', 'serverOptions'] as const

/** The SDK 1's package (its McpServer at /server/mcp.js) and the SDK 2's server package. */
const SDK1 = '@modelcontextprotocol/sdk'
const SDK2 = '@modelcontextprotocol/server'

/**
 * The McpServer to serve through: options.server (its major told by its Server: the SDK 2's has
 * projectCallToolResult), else a new one of the SDK 1 when it is installed, else of the SDK 2.
 * Throws, naming both packages, when neither is installed.
 */
function servedBy(load: PeerLoader, given: ServeMcpOptions): Served {
  const handed = given.server
  if (handed !== undefined) {
    for (const key of OWN_SERVER_OPTIONS) {
      if (given[key] !== undefined) throw new TypeError(`serveMcp: options.${key} (${describe(given[key])}) is the server's own: with options.server, give it to the McpServer you make`)
    }
    const low: unknown = handed !== null && typeof handed === 'object' ? (handed as { server?: unknown }).server : undefined
    if (low === null || typeof low !== 'object' || typeof (low as { setRequestHandler?: unknown }).setRequestHandler !== 'function' || typeof (handed as { connect?: unknown }).connect !== 'function') {
      throw new TypeError(`serveMcp: options.server must be an SDK McpServer (of @modelcontextprotocol/sdk or @modelcontextprotocol/server), got ${describe(handed)}${handed !== null && typeof handed === 'object' ? ` with no Server at .server` : ''}`)
    }
    const isConnected = (handed as { isConnected?: unknown }).isConnected
    if (typeof isConnected === 'function' && isConnected.call(handed) === true) {
      throw new TypeError('serveMcp: options.server is already connected: serveMcp registers the tools capability, which the SDK takes only before connect; connect it after serveMcp')
    }
    if (typeof (low as { projectCallToolResult?: unknown }).projectCallToolResult === 'function') return { server: handed, major: 2, low: low as ServerV2 }
    return { server: handed as McpServer, major: 1, low: low as McpServer['server'] }
  }
  const serverOptions: ServerOptions = { ...given.serverOptions }
  if (given.instructions !== undefined) serverOptions.instructions = given.instructions
  const info = { name: given.name ?? 'toolwire', version: given.version ?? '0.1.0' }
  let sdk1: typeof McpServerModule
  try {
    sdk1 = load(`${SDK1}/server/mcp.js`) as typeof McpServerModule
  } catch (error) {
    if (missingPackageOf(error) !== SDK1) throw error
    let sdk2: { McpServer: new (info: { name: string; version: string }, options: object) => McpServerInstance }
    try {
      sdk2 = load(SDK2) as typeof sdk2
    } catch (error2) {
      if (missingPackageOf(error2) !== SDK2) throw error2
      const missing: MissingPeerError = new Error(`toolwire/mcp needs the package "${SDK1}" (the MCP SDK 1) or "${SDK2}" (the MCP SDK 2): install one next to toolwire`)
      missing.code = 'MODULE_NOT_FOUND'
      missing.cause = error2
      throw missing
    }
    const server = new sdk2.McpServer(info, serverOptions)
    return { server, major: 2, low: server.server as ServerV2 }
  }
  const server = new sdk1.McpServer(info, serverOptions)
  return { server, major: 1, low: server.server }
}



/** A toolwire content block as an MCP content block. */
function blockToMcp(block: ContentBlock): CallToolResult['content'][number] {
  if (block.type === 'image') return { type: 'image', data: block.data, mimeType: block.mimeType }
  return { type: 'text', text: block.text }
}

/** A JSON Schema as an MCP tool schema needs it: an object schema. */
function objectSchema(schema: unknown): Tool['inputSchema'] {
  if (isObjectSchema(schema)) return schema
  return { type: 'object', ...(schema !== null && typeof schema === 'object' ? schema : {}) }
}

/**
 * serveMcp with the SDK loaded by `load`: the ESM entry (mcp.mjs) loads the SDK's ESM build, so
 * an ESM user gets the McpServer class they import themselves. Returns options.server when given.
 */
export function serveMcpWith(load: PeerLoader, runtime: ToolRuntime, options: ServeMcpOptions = {}): McpServer {
  const given = adapterOptions(options, 'serveMcp')
  const dispatchOptions = dispatchOptionsOf(given, 'serveMcp')
  toolsOf(runtime, given.tools, 'serveMcp')
  const served = servedBy(load, given)
  const exposed = (): ToolInfo[] => {
    const all: ToolInfo[] = runtime.list()
    const names = given.tools
    return names === undefined ? all : all.filter((tool) => names.includes(tool.name))
  }
  const listTools = () => ({
    tools: exposed().map((info) => {
      const tool: Tool = { name: info.name, description: info.description ?? info.label ?? '', inputSchema: objectSchema(info.parameters) }
      if (info.label !== undefined) tool.title = info.label
      if (isObjectSchema(info.outputSchema)) tool.outputSchema = info.outputSchema
      return tool
    }),
  })
  const callTool = async ({ request, requestId, signal, notify }: Call): Promise<{ response: CallToolResult; outputSchema: Tool['inputSchema'] | undefined }> => {
    const name = request.params.name
    // A tool not exposed is the engine's NOT_FOUND (the dispatch's tools option): it never
    // runs, and its text names exposed tools only.
    const info = exposed().find((t) => t.name === name)
    const progressToken = request.params._meta !== undefined ? request.params._meta.progressToken : undefined
    const id = `mcp_${String(requestId)}`
    let progress = 0
    const onEvent =
      progressToken === undefined
        ? dispatchOptions.onEvent
        : onEventWithUpdates(dispatchOptions.onEvent, (partialResult) => {
            progress += 1
            const message = textOfContent(partialResult !== null && typeof partialResult === 'object' && 'content' in partialResult ? partialResult.content : undefined)
            const params: ProgressParams = { progressToken, progress }
            if (message !== '') params.message = message
            notify(params).catch(() => {})
          })
    const tools = offeredTools(runtime, given.tools)
    const [result]: ToolResult[] = await runtime.dispatch([{ id, name: String(name), arguments: request.params.arguments ?? {} }], {
      ...dispatchOptions,
      ...(tools === undefined ? {} : { tools }),
      onEvent,
      signal,
    })
    const response: CallToolResult = { content: result.content.map(blockToMcp) }
    const outputSchema = info !== undefined && isObjectSchema(info.outputSchema) ? info.outputSchema : undefined
    if (!result.ok) response.isError = true
    else if (outputSchema !== undefined) {
      // (the result's own keys: see ownOptions)
      const details = own(result, 'details')
      const structured = details !== undefined ? details : own(result, 'data')
      // The tool's outputSchema is an object schema, which the runtime checked its details (or data) against.
      if (structured !== undefined) response.structuredContent = structured as Record<string, unknown>
    }
    return { response, outputSchema }
  }
  if (served.major === 2) {
    const low = served.low
    low.registerCapabilities({ tools: {} })
    low.setRequestHandler('tools/list', listTools)
    low.setRequestHandler('tools/call', async (request, ctx) => {
      const { mcpReq } = ctx
      const { response, outputSchema } = await callTool({
        request,
        requestId: mcpReq.id,
        signal: mcpReq.signal,
        notify: (params) => mcpReq.notify({ method: 'notifications/progress', params }),
      })
      // The SDK 2 has handlers of tools/call put their result through its wire codec (what its
      // own McpServer does): the protocol version's form of structuredContent.
      return low.projectCallToolResult(response, outputSchema)
    })
    // (typed as the SDK 1's McpServer: the SDK 2's types are not a dependency; mcp.ts's overload
    // with options.server returns the type handed in)
    return served.server as McpServer
  }
  const { ListToolsRequestSchema, CallToolRequestSchema } = load(`${SDK1}/types.js`) as typeof McpTypes
  const low = served.low
  low.registerCapabilities({ tools: {} })
  low.setRequestHandler(ListToolsRequestSchema, listTools)
  low.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { response } = await callTool({
      request: request as CallRequest,
      requestId: extra.requestId,
      signal: extra.signal,
      notify: (params) => extra.sendNotification({ method: 'notifications/progress', params }),
    })
    return response
  })
  return served.server
}

function isObjectSchema(schema: unknown): schema is Tool['inputSchema'] {
  return schema !== null && typeof schema === 'object' && 'type' in schema && schema.type === 'object'
}
