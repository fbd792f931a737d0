// The MCP server side of toolwire/mcp: a runtime's tools served through an SDK McpServer, the SDK
// loaded by the entry's PeerLoader (mcp.js requires the SDK's CommonJS build, mcp.mjs takes its ESM
// build). Internal: not one of the package's exports.

import type { ServerOptions } from '@modelcontextprotocol/sdk/server/index.js'
import type * as McpServerModule from '@modelcontextprotocol/sdk/server/mcp.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type * as McpTypes from '@modelcontextprotocol/sdk/types.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'

import type { ToolRuntime } from '../index.js'
import type { ContentBlock, DispatchOptions, ToolInfo, ToolResult } from '../types.js'
import { own } from '../common.js'
import { adapterOptions, toolsOf, offeredTools, dispatchOptionsOf, onEventWithUpdates, textOfContent } from './common.js'
import type { PeerLoader } from './peer.js'

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
 * an ESM user gets the McpServer class they import themselves.
 */
export function serveMcpWith(load: PeerLoader, runtime: ToolRuntime, options: ServeMcpOptions = {}): McpServer {
  const given = adapterOptions(options, 'serveMcp')
  const { McpServer } = load('@modelcontextprotocol/sdk/server/mcp.js') as typeof McpServerModule
  const { ListToolsRequestSchema, CallToolRequestSchema } = load('@modelcontextprotocol/sdk/types.js') as typeof McpTypes
  const dispatchOptions = dispatchOptionsOf(given, 'serveMcp')
  toolsOf(runtime, given.tools, 'serveMcp')
  const serverOptions: ServerOptions = { ...given.serverOptions }
  if (given.instructions !== undefined) serverOptions.instructions = given.instructions
  const server = new McpServer({ name: given.name ?? 'toolwire', version: given.version ?? '0.1.0' }, serverOptions)
  const low = server.server
  low.registerCapabilities({ tools: {} })
  const exposed = (): ToolInfo[] => {
    const all: ToolInfo[] = runtime.list()
    const names = given.tools
    return names === undefined ? all : all.filter((tool) => names.includes(tool.name))
  }
  low.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: exposed().map((info) => {
      const tool: Tool = { name: info.name, description: info.description ?? info.label ?? '', inputSchema: objectSchema(info.parameters) }
      if (info.label !== undefined) tool.title = info.label
      if (isObjectSchema(info.outputSchema)) tool.outputSchema = info.outputSchema
      return tool
    }),
  }))
  low.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name
    // A tool not exposed is the engine's NOT_FOUND (the dispatch's tools option): it never
    // runs, and its text names exposed tools only.
    const info = exposed().find((t) => t.name === name)
    const progressToken = request.params._meta !== undefined ? request.params._meta.progressToken : undefined
    const id = `mcp_${String(extra.requestId)}`
    let progress = 0
    const onEvent =
      progressToken === undefined
        ? dispatchOptions.onEvent
        : onEventWithUpdates(dispatchOptions.onEvent, (partialResult) => {
            progress += 1
            const message = textOfContent(partialResult !== null && typeof partialResult === 'object' && 'content' in partialResult ? partialResult.content : undefined)
            const params: { progressToken: string | number; progress: number; message?: string } = { progressToken, progress }
            if (message !== '') params.message = message
            extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {})
          })
    const tools = offeredTools(runtime, given.tools)
    const [result]: ToolResult[] = await runtime.dispatch([{ id, name: String(name), arguments: request.params.arguments ?? {} }], {
      ...dispatchOptions,
      ...(tools === undefined ? {} : { tools }),
      onEvent,
      signal: extra.signal,
    })
    const response: CallToolResult = { content: result.content.map(blockToMcp) }
    if (!result.ok) response.isError = true
    else if (info !== undefined && isObjectSchema(info.outputSchema)) {
      // (the result's own keys: see ownOptions)
      const details = own(result, 'details')
      const structured = details !== undefined ? details : own(result, 'data')
      // The tool's outputSchema is an object schema, which the runtime checked its details (or data) against.
      if (structured !== undefined) response.structuredContent = structured as Record<string, unknown>
    }
    return response
  })
  return server
}

function isObjectSchema(schema: unknown): schema is Tool['inputSchema'] {
  return schema !== null && typeof schema === 'object' && 'type' in schema && schema.type === 'object'
}
