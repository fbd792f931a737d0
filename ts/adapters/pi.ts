// toolwire/pi: @mariozechner/pi-agent-core AgentTools in and out of a ToolRuntime.
//
// An AgentTool is already a tool the runtime accepts, and the AgentTools made here are plain
// objects, so nothing of pi-agent-core is loaded at run time (its types describe these shapes).

// (pi-agent-core is an ES module: a CommonJS project with node16 resolution types it as `import` does)
import type { AgentContext, AgentEvent, AgentTool, AgentToolResult } from '@mariozechner/pi-agent-core' with { 'resolution-mode': 'import' }

import { describe, own, registerAll } from '../common.js'
import type { ToolRuntime } from '../index.js'
import type { DispatchOptions, ToolExecutionEvent } from '../types.js'
import { CallBatcher } from './batch.js'
import type { UpdateListener } from './batch.js'
import { adapterOptions, toolsOf, dispatchOptionsOf, errorOf } from './common.js'

export type { ToolwireToolError } from './common.js'

/** Options of toPiTools. */
export interface PiAdapterOptions {
  /** The tools to expose, by name (each must be registered); default all registered tools; `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all). */
  tools?: string[]
  /** Options of every dispatch the tools make (their signal is pi's). */
  dispatch?: Omit<DispatchOptions, 'signal'>
}

/**
 * An AgentTool as pi-agent-core's Agent takes one (its context's `tools`): any parameters
 * schema, any details.
 */
type PiAgentTool = NonNullable<AgentContext['tools']>[number]

/**
 * The AgentTools toPiTools makes: the parameters schema is the tool's JSON Schema (pi's Agent
 * takes any, as for its own tools; the runtime validates), the details whatever the tool gave.
 */
type ToolwireAgentTool = AgentTool<PiAgentTool['parameters'], unknown>

/** pi-agent-core's tool execution events. */
export type PiToolExecutionEvent = Extract<AgentEvent, { type: 'tool_execution_start' | 'tool_execution_update' | 'tool_execution_end' }>

/**
 * Registers pi-agent-core AgentTools unchanged, all or none: when one is refused, those registered
 * before it are unregistered again and the error is thrown. Returns the names registered.
 * `prepareArguments` is not applied by the runtime (it has `aliases`, `coerce`, `requiredGroups`).
 */
export function registerPiTools(runtime: ToolRuntime, agentTools: readonly PiAgentTool[]): string[] {
  if (!Array.isArray(agentTools)) throw new TypeError(`registerPiTools: agentTools must be an array, got ${describe(agentTools)}`)
  return registerAll(runtime, agentTools)
}

/**
 * The runtime's tools as pi-agent-core AgentTools: `execute` dispatches the call through the
 * runtime with pi's tool call id and abort signal, forwards partial results to pi's `onUpdate`,
 * returns `{ content, details }` for a successful result and throws (as pi expects of a failing
 * tool) a `ToolwireToolError` with the result's text otherwise, the ToolResult on the error's
 * `result`. The calls pi starts together (its parallel tool execution, one assistant message)
 * with the same signal share one dispatch (CallBatcher): each still gets its own result, updates
 * and errors.
 */
export function toPiTools(runtime: ToolRuntime, options: PiAdapterOptions = {}): ToolwireAgentTool[] {
  const given = adapterOptions(options, 'toPiTools')
  const dispatchOptions = dispatchOptionsOf(given, 'toPiTools')
  const selected = toolsOf(runtime, given.tools, 'toPiTools')
  const batcher = new CallBatcher(runtime, dispatchOptions)
  return selected.map((info) => {
    const tool: ToolwireAgentTool = {
      name: info.name,
      label: info.label ?? info.name,
      description: info.description ?? '',
      parameters: info.parameters,
      async execute(toolCallId, params, signal, onUpdate) {
        const result = await batcher.call(
          { id: toolCallId, name: info.name, arguments: params === undefined ? {} : params },
          signal,
          // pi's onUpdate gets the partial results as the tool sends them (AgentToolResults, for a tool written for pi).
          typeof onUpdate === 'function' ? (onUpdate as UpdateListener) : undefined,
        )
        if (!result.ok) throw errorOf(result)
        // (the result's own keys: see ownOptions)
        const output = piResultOf(result)
        if (own(result, 'terminate') === true) output.terminate = true
        return output
      },
    }
    if (info.executionMode === 'sequential') tool.executionMode = 'sequential'
    return tool
  })
}

/** The pi-agent-core AgentToolResult an event's ToolResult (or partial result) stands for. */
function piResultOf(given: unknown): AgentToolResult<unknown> {
  if (given === null || typeof given !== 'object') return { content: [], details: undefined }
  // (its own keys: see ownOptions)
  const content = own(given, 'content')
  const details = own(given, 'details')
  return { content: Array.isArray(content) ? content : [], details: details !== undefined ? details : own(given, 'data') }
}

/**
 * A listener for the runtime's events (`onEvent` of dispatch, run, executePlan or the runtime)
 * that calls `listener` with pi-agent-core's `tool_execution_start` / `_update` / `_end` events
 * for them: `args` carried on updates as pi does, `result` as pi's `{ content, details }` and
 * `isError`. Other events are not passed on.
 */
export function piEvents(listener: (event: PiToolExecutionEvent) => void): (event: ToolExecutionEvent | { readonly type: string }) => void {
  if (typeof listener !== 'function') throw new TypeError(`piEvents: listener must be a function, got ${describe(listener)}`)
  const argsOf = new Map<string, unknown>()
  return (received) => {
    // The events of the three types read here are the runtime's ToolExecutionEvents.
    const event = received as ToolExecutionEvent
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
