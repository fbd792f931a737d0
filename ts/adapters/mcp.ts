// toolwire/mcp: tools of a Model Context Protocol server registered in a runtime (through the
// SDK's Client), and a runtime's tools served as an MCP server (an SDK McpServer). Both majors of
// the MCP TypeScript SDK: 1 (@modelcontextprotocol/sdk) and 2 (@modelcontextprotocol/client and
// /server). The SDK is loaded when serveMcp is first called (none when it is handed a server);
// addMcpServer only uses the Client it is given, whose major it tells by the Client itself.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult, Progress, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'

import { ToolwireError, describe, own, registerAll } from '../common.js'
import { scrubSecrets } from '../sanitize.js'
import type { ToolRuntime } from '../index.js'
import type { AgentToolResult, ContentBlock, ToolDefinition } from '../types.js'
import { adapterOptions, checkRuntime, textOfContent } from './common.js'
import { serveMcpWith } from './mcp-server.js'
import { requirePeer } from './peer.js'
import type { McpServerInstance, ServeMcpOptions } from './mcp-server.js'
import { MAX_TIMER_MS } from '../clock.js'

export type { McpServerInstance, ServeMcpOptions }

/**
 * The parts of the MCP SDK 2's Client (`@modelcontextprotocol/client`) addMcpServer uses: its
 * Client is this (the SDK 2's types are not a dependency of toolwire). Told from the SDK 1's
 * Client by `getProtocolEra`, which only the SDK 2 has.
 */
export interface McpClientV2 {
  getProtocolEra(): unknown
  getServerVersion(): { name?: string } | undefined
  /** A single page of tools/list: the first page (listTools without a cursor reads every page itself). */
  request(request: { method: 'tools/list'; params?: { cursor?: string } }): Promise<unknown>
  listTools(params?: { cursor?: string }): Promise<unknown>
  callTool(params: { name: string; arguments?: Record<string, unknown> }, options?: McpCallOptionsV2): Promise<unknown>
}

/** The SDK 2's callTool options addMcpServer gives. */
interface McpCallOptionsV2 {
  signal?: AbortSignal
  timeout?: number
  onprogress?: (progress: Progress) => void
  /** The listed tool: the SDK 2 checks structuredContent against its outputSchema. */
  toolDefinition?: McpTool
}

/** An MCP SDK Client, of the SDK 1 or the SDK 2. */
export type McpClient = Client | McpClientV2

/** Whether `client` is the SDK 2's: it has getProtocolEra, which the SDK 1's Client has not. */
function isClientV2(client: McpClient): client is McpClientV2 {
  return typeof (client as { getProtocolEra?: unknown }).getProtocolEra === 'function'
}

/** One page of tools/list: the SDK 1 reads one per listTools call; the SDK 2's listTools reads every page without a cursor, so its first page is a request. */
async function listPage(client: McpClient, cursor: string | undefined): Promise<{ tools: McpTool[]; nextCursor?: unknown }> {
  if (!isClientV2(client)) return client.listTools(cursor === undefined ? undefined : { cursor })
  const page = cursor === undefined ? await client.request({ method: 'tools/list' }) : await client.listTools({ cursor })
  return page as { tools: McpTool[]; nextCursor?: unknown }
}

/** Options of addMcpServer. */
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

/** A tool of an MCP server as registered: its arguments are an object (its inputSchema is an object schema). */
type McpToolDefinition = ToolDefinition<Record<string, unknown>, unknown>


/** One MCP content block as toolwire content: text and images kept, anything else described in text. */
function blockFromMcp(block: CallToolResult['content'][number]): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text }
    case 'image':
      return { type: 'image', data: block.data, mimeType: block.mimeType }
    case 'audio':
      return { type: 'text', text: `[audio ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes, not shown]` }
    case 'resource_link':
      return { type: 'text', text: `[resource ${block.uri}${block.name ? ` (${block.name})` : ''}${block.mimeType ? ` ${block.mimeType}` : ''}]` }
    case 'resource': {
      const resource = block.resource
      if ('text' in resource && typeof resource.text === 'string') return { type: 'text', text: resource.text }
      if ('blob' in resource && typeof resource.blob === 'string' && typeof resource.mimeType === 'string' && resource.mimeType.startsWith('image/')) {
        return { type: 'image', data: resource.blob, mimeType: resource.mimeType }
      }
      return { type: 'text', text: `[resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ''}, not shown]` }
    }
    default:
      // A block type this version of the SDK does not know.
      return { type: 'text', text: `[${String((block as { type: unknown }).type)} content, not shown]` }
  }
}

/** A progress notification as a partial result. */
function progressUpdate(progress: Progress): AgentToolResult<{ progress: number; total: number | undefined; message: string | undefined }> {
  const { progress: done, total, message } = progress
  const text = message !== undefined ? message : total !== undefined ? `${done}/${total}` : String(done)
  return { content: [{ type: 'text', text }], details: { progress: done, total, message } }
}

/**
 * The most pages of `tools/list` read from one server: a server that keeps answering a
 * `nextCursor` is refused after this many (10,000 tools at 10 a page).
 */
const MAX_LIST_PAGES = 1000

/** What the server calls itself, for an error: its `serverInfo.name`, else that it gave none. */
function serverName(client: McpClient): string {
  let name: unknown
  try {
    name = typeof client.getServerVersion === 'function' ? client.getServerVersion()?.name : undefined
  } catch {
    name = undefined
  }
  return typeof name === 'string' && name !== '' ? `MCP server ${quoted(name)}` : 'the MCP server (it gave no name)'
}

/** A server's string quoted for an error: JSON, cut at 80 characters, its secrets replaced. */
function quoted(text: string): string {
  const shown = JSON.stringify(scrubSecrets(text, 'addMcpServer: a value the server sent'))
  return shown.length <= 82 ? shown : `${shown.slice(0, 80)}..." (${text.length} characters)`
}

/**
 * Every tool the server lists, following `nextCursor`: a cursor already followed (a server
 * answering the same one again would be listed forever) and more than MAX_LIST_PAGES pages are
 * refused, naming the server and the cursor, as are more than 100,000 tools in all. Each page
 * waits for the event loop to turn, so a server answering at once (an in-memory transport)
 * cannot starve timers while it is read.
 */
async function listAllTools(client: McpClient): Promise<McpTool[]> {
  // More tools than any model is given: a server listing more is refused, as one paging forever is.
  const MAX_LIST_TOOLS = 100_000
  const tools: McpTool[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (let pages = 0; ; pages++) {
    if (pages > 0) await new Promise((resolve) => setImmediate(resolve))
    const page = await listPage(client, cursor)
    if (tools.length + page.tools.length > MAX_LIST_TOOLS) {
      throw new ToolwireError('LIMIT_EXCEEDED', `addMcpServer: ${serverName(client)} listed more than ${MAX_LIST_TOOLS} tools (${tools.length} before tools/list page ${pages + 1}, which holds ${page.tools.length}); at most ${MAX_LIST_TOOLS} are read`)
    }
    // (one by one: spreading a page of hundreds of thousands overflows the call stack)
    for (const tool of page.tools) tools.push(tool)
    const next: unknown = page.nextCursor
    if (next === undefined || next === null) return tools
    if (typeof next !== 'string') {
      throw new ToolwireError('VALIDATION_ERROR', `addMcpServer: ${serverName(client)} answered tools/list with a nextCursor that is no string (${describe(next)})`)
    }
    if (seen.has(next)) {
      throw new ToolwireError('VALIDATION_ERROR', `addMcpServer: ${serverName(client)} answered tools/list page ${pages + 1} with nextCursor ${quoted(next)}, a cursor it gave before: following it would list the same pages forever`)
    }
    if (pages + 1 >= MAX_LIST_PAGES) {
      throw new ToolwireError('LIMIT_EXCEEDED', `addMcpServer: ${serverName(client)} still answered tools/list with a nextCursor (${quoted(next)}) after ${MAX_LIST_PAGES} pages (${tools.length} tools); at most ${MAX_LIST_PAGES} pages are read`)
    }
    seen.add(next)
    cursor = next
  }
}

/**
 * Registers the tools of the MCP server `client` (an SDK 1 or SDK 2 Client) is connected to and
 * returns their names. Each call goes through `client.callTool` with the runtime's abort signal
 * (a deadline or a cancellation sends `notifications/cancelled`), progress notifications become
 * `tool_execution_update` events, image blocks are kept, `isError` results are error results,
 * and `structuredContent` becomes `details`, checked against the tool's `outputSchema` (by the
 * SDK client and by the runtime). Options: `prefix` for the registered names, `tools` (the MCP
 * names to take), `timeoutMs` (each tool's deadline), `plugin` (register them as that plugin,
 * reached by policies through `group:plugins`).
 */
export async function addMcpServer(runtime: ToolRuntime, client: McpClient, options: AddMcpServerOptions = {}): Promise<string[]> {
  checkRuntime(runtime, 'addMcpServer')
  if (client === null || typeof client !== 'object' || typeof client.listTools !== 'function' || typeof client.callTool !== 'function') {
    throw new TypeError(`addMcpServer: client must be a connected MCP SDK Client (of @modelcontextprotocol/client or @modelcontextprotocol/sdk), got ${describe(client)}`)
  }
  const given = adapterOptions(options, 'addMcpServer')
  const prefix = given.prefix ?? ''
  if (typeof prefix !== 'string') throw new TypeError(`addMcpServer: options.prefix must be a string, got ${describe(prefix)}`)
  const listed = await listAllTools(client)
  let selected = listed
  const names = given.tools
  if (names !== undefined) {
    if (!Array.isArray(names)) throw new TypeError(`addMcpServer: options.tools must be an array of tool names, got ${describe(names)}`)
    selected = names.map((name) => {
      const tool = listed.find((t) => t.name === name)
      if (tool === undefined) throw new ToolwireError('NOT_FOUND', `addMcpServer: the server has no tool "${name}"`)
      return tool
    })
  }
  const definitions = selected.map((mcpTool) => definitionOf(client, mcpTool, prefix, given))
  if (given.plugin !== undefined) {
    runtime.registerPlugin(given.plugin, definitions)
  } else {
    registerAll<McpToolDefinition>(runtime, definitions)
  }
  return definitions.map((definition) => definition.name)
}

/** The toolwire tool that calls `mcpTool` through `client`. */
function definitionOf(client: McpClient, mcpTool: McpTool, prefix: string, options: AddMcpServerOptions): McpToolDefinition {
  const outputSchema = mcpTool.outputSchema
  const definition: McpToolDefinition = {
    name: prefix + mcpTool.name,
    label: mcpTool.title ?? (mcpTool.annotations ? mcpTool.annotations.title : undefined),
    description: mcpTool.description,
    parameters: mcpTool.inputSchema,
    outputSchema,
    timeoutMs: options.timeoutMs,
    async execute(_toolCallId, params, signal, onUpdate) {
      const request = { name: mcpTool.name, arguments: params ?? {} }
      const callOptions = {
        signal,
        timeout: MAX_TIMER_MS,
        onprogress: (progress: Progress) => {
          if (typeof onUpdate === 'function') onUpdate(progressUpdate(progress))
        },
      }
      // The SDK 1's callTool takes a result schema before its options, the SDK 2's its options
      // (with the listed tool, whose outputSchema it checks structuredContent against: the SDK 1
      // keeps the outputSchemas listTools read). The SDK 1's result type also allows
      // `{ toolResult }` (protocol 2024-10-07): no content, read as none.
      const result = (isClientV2(client) ? await client.callTool(request, { ...callOptions, toolDefinition: mcpTool }) : await client.callTool(request, undefined, callOptions)) as CallToolResult
      // (what the server sent, by its own keys: see ownOptions)
      const content = ((own(result, 'content') as CallToolResult['content'] | undefined) ?? []).map(blockFromMcp)
      const structured = own(result, 'structuredContent') as CallToolResult['structuredContent']
      if (own(result, 'isError') === true) {
        // With an outputSchema the runtime would check an error's (missing) details: say the error instead.
        if (outputSchema !== undefined) throw new Error(textOfContent(content) || `MCP tool "${mcpTool.name}" returned an error`)
        return { content, isError: true }
      }
      const output: AgentToolResult = { content }
      if (structured !== undefined) output.details = structured
      return output
    },
  }
  if (definition.label === undefined) delete definition.label
  if (outputSchema === undefined) delete definition.outputSchema
  if (options.timeoutMs === undefined) delete definition.timeoutMs
  return definition
}

/** The SDK's CommonJS build (the SDK 1's, else the SDK 2's), loaded when serveMcp is first called. */
const requireSdk = requirePeer('mcp')

/**
 * An SDK McpServer exposing the runtime's tools (those registered when a client lists them, or
 * those named in `options.tools`): `tools/list` from `runtime.list()`, `tools/call` through
 * `runtime.dispatch` with the request's abort signal (a client's cancellation aborts the tool),
 * `tool_execution_update` events sent as progress notifications when the client asked for
 * progress, failed results as `isError`, and for tools with an object `outputSchema` the
 * result's details (or data) as `structuredContent`. Connect it with `.connect(transport)`.
 * serveMcp owns the server's tool handlers: do not also call its registerTool. The server is
 * `options.server` when given (an unconnected McpServer of either SDK major, returned as given),
 * else a new McpServer of @modelcontextprotocol/sdk (the SDK 1) when it is installed, else of
 * @modelcontextprotocol/server (the SDK 2). Throws, naming both packages, when neither is.
 */
export function serveMcp<S extends McpServerInstance>(runtime: ToolRuntime, options: ServeMcpOptions & { server: S }): S
export function serveMcp(runtime: ToolRuntime, options?: ServeMcpOptions): McpServer
export function serveMcp(runtime: ToolRuntime, options: ServeMcpOptions = {}): McpServerInstance {
  return serveMcpWith(requireSdk, runtime, options)
}
