'use strict'
// The MCP server side of toolwire/mcp: a runtime's tools served through an SDK McpServer whose
// classes are given (mcp.js passes the SDK's CommonJS build, mcp.mjs its ESM build). Internal:
// not one of the package's exports.

const { toolsOf, offeredTools, dispatchOptionsOf, onEventWithUpdates, textOfContent } = require('./common.js')

/** A toolwire content block as an MCP content block. */
function blockToMcp(block) {
  if (block.type === 'image') return { type: 'image', data: block.data, mimeType: block.mimeType }
  return { type: 'text', text: block.text }
}

/** A JSON Schema as an MCP tool schema needs it: an object schema. */
function objectSchema(schema) {
  if (schema !== null && typeof schema === 'object' && schema.type === 'object') return schema
  return { type: 'object', ...(schema !== null && typeof schema === 'object' ? schema : {}) }
}

/**
 * serveMcp with the SDK's classes given: the ESM entry (mcp.mjs) passes the SDK's ESM build, so
 * an ESM user gets the McpServer class they import themselves.
 */
function serveMcpWith(sdk, runtime, options = {}) {
  const { McpServer, ListToolsRequestSchema, CallToolRequestSchema } = sdk
  const dispatchOptions = dispatchOptionsOf(options, 'serveMcp')
  toolsOf(runtime, options.tools, 'serveMcp')
  const serverOptions = { ...options.serverOptions }
  if (options.instructions !== undefined) serverOptions.instructions = options.instructions
  const server = new McpServer({ name: options.name ?? 'toolwire', version: options.version ?? '0.1.0' }, serverOptions)
  const low = server.server
  low.registerCapabilities({ tools: {} })
  const exposed = () => {
    const all = runtime.list()
    return options.tools === undefined ? all : all.filter((tool) => options.tools.includes(tool.name))
  }
  low.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: exposed().map((info) => {
      const tool = { name: info.name, description: info.description ?? info.label ?? '', inputSchema: objectSchema(info.parameters) }
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
        : onEventWithUpdates(dispatchOptions.onEvent, id, (partialResult) => {
            progress += 1
            const message = textOfContent(partialResult && partialResult.content)
            const params = { progressToken, progress }
            if (message !== '') params.message = message
            extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {})
          })
    const tools = offeredTools(runtime, options.tools)
    const [result] = await runtime.dispatch([{ id, name: String(name), arguments: request.params.arguments ?? {} }], {
      ...dispatchOptions,
      ...(tools === undefined ? {} : { tools }),
      onEvent,
      signal: extra.signal,
    })
    const response = { content: result.content.map(blockToMcp) }
    if (!result.ok) response.isError = true
    else if (info !== undefined && isObjectSchema(info.outputSchema)) {
      const structured = result.details !== undefined ? result.details : result.data
      if (structured !== undefined) response.structuredContent = structured
    }
    return response
  })
  return server
}

function isObjectSchema(schema) {
  return schema !== null && typeof schema === 'object' && schema.type === 'object'
}

module.exports = { serveMcpWith }
