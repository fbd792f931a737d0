'use strict'
// toolwire/pi: @mariozechner/pi-agent-core AgentTools in and out of a ToolRuntime.
//
// An AgentTool is already a tool the runtime accepts, and the AgentTools made here are plain
// objects, so nothing of pi-agent-core is loaded at run time (its types describe these shapes).

const { describe, registerAll } = require('../common.js')
const { toolsOf, dispatchOptionsOf, errorOf } = require('./common.js')
const { CallBatcher } = require('./batch.js')

/**
 * Registers pi-agent-core AgentTools unchanged, all or none: when one is refused, those registered
 * before it are unregistered again and the error is thrown. Returns the names registered.
 */
function registerPiTools(runtime, agentTools) {
  if (!Array.isArray(agentTools)) throw new TypeError(`registerPiTools: agentTools must be an array, got ${describe(agentTools)}`)
  return registerAll(runtime, agentTools)
}

/**
 * The runtime's tools as pi-agent-core AgentTools: `execute` dispatches the call through the
 * runtime with pi's tool call id and abort signal, forwards partial results to pi's `onUpdate`,
 * returns `{ content, details }` for a successful result and throws (as pi expects of a failing
 * tool) with the result's text otherwise, the ToolResult on the error's `result`. The calls pi
 * starts together (its parallel tool execution, one assistant message) share one dispatch
 * (CallBatcher): each still gets its own result, updates and errors.
 */
function toPiTools(runtime, options = {}) {
  const dispatchOptions = dispatchOptionsOf(options, 'toPiTools')
  const selected = toolsOf(runtime, options.tools, 'toPiTools')
  const batcher = new CallBatcher(runtime, dispatchOptions)
  return selected.map((info) => {
    const tool = {
      name: info.name,
      label: info.label ?? info.name,
      description: info.description ?? '',
      parameters: info.parameters,
      async execute(toolCallId, params, signal, onUpdate) {
        const result = await batcher.call(
          { id: toolCallId, name: info.name, arguments: params === undefined ? {} : params },
          signal,
          typeof onUpdate === 'function' ? onUpdate : undefined,
        )
        if (!result.ok) throw errorOf(result)
        const output = { content: result.content, details: result.details !== undefined ? result.details : result.data }
        if (result.terminate === true) output.terminate = true
        return output
      },
    }
    if (info.executionMode === 'sequential') tool.executionMode = 'sequential'
    return tool
  })
}

/** The pi-agent-core AgentToolResult an event's ToolResult (or partial result) stands for. */
function piResultOf(result) {
  if (result === null || typeof result !== 'object') return { content: [], details: undefined }
  return { content: Array.isArray(result.content) ? result.content : [], details: result.details !== undefined ? result.details : result.data }
}

/**
 * A listener for the runtime's events (`onEvent` of dispatch, run, executePlan or the runtime)
 * that calls `listener` with pi-agent-core's `tool_execution_start` / `_update` / `_end` events
 * for them: `args` carried on updates as pi does, `result` as pi's `{ content, details }` and
 * `isError`. Other events are not passed on.
 */
function piEvents(listener) {
  if (typeof listener !== 'function') throw new TypeError(`piEvents: listener must be a function, got ${describe(listener)}`)
  const argsOf = new Map()
  return (event) => {
    switch (event.type) {
      case 'tool_execution_start':
        argsOf.set(event.toolCallId, event.args)
        listener({ type: 'tool_execution_start', toolCallId: event.toolCallId, toolName: event.toolName, args: event.args })
        break
      case 'tool_execution_update':
        listener({
          type: 'tool_execution_update',
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          args: argsOf.get(event.toolCallId),
          partialResult: piResultOf(event.partialResult),
        })
        break
      case 'tool_execution_end':
        argsOf.delete(event.toolCallId)
        listener({ type: 'tool_execution_end', toolCallId: event.toolCallId, toolName: event.toolName, result: piResultOf(event.result), isError: event.isError })
        break
    }
  }
}

module.exports = { registerPiTools, toPiTools, piEvents }
