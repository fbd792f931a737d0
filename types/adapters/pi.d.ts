// toolwire/pi: @mariozechner/pi-agent-core AgentTools in and out of a ToolRuntime.
import type { AgentEvent, AgentTool } from '@mariozechner/pi-agent-core'

import type { DispatchOptions, ToolExecutionEvent, ToolRuntime } from '../index.js'

export interface PiAdapterOptions {
  /** The tools to expose, by name (each must be registered); default all registered tools; `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all). */
  tools?: string[]
  /** Options of every dispatch the tools make (their signal is pi's). */
  dispatch?: Omit<DispatchOptions, 'signal'>
}

/**
 * Registers pi-agent-core AgentTools unchanged, all or none; returns the names registered.
 * `prepareArguments` is not applied by the runtime (it has `aliases`, `coerce`, `requiredGroups`).
 */
export declare function registerPiTools(runtime: ToolRuntime, agentTools: readonly AgentTool<any, any>[]): string[]

/**
 * The runtime's tools as AgentTools whose `execute` dispatches through the runtime with pi's call
 * id, abort signal and `onUpdate`; a failed result is thrown (a `ToolwireToolError`). The calls pi
 * starts together (one assistant message's) with the same signal share one dispatch; each still
 * gets its own result, updates and error.
 */
export declare function toPiTools(runtime: ToolRuntime, options?: PiAdapterOptions): AgentTool<any, unknown>[]

/** pi-agent-core's tool execution events. */
export type PiToolExecutionEvent = Extract<AgentEvent, { type: 'tool_execution_start' | 'tool_execution_update' | 'tool_execution_end' }>

/**
 * An `onEvent` listener (of dispatch, run, executePlan or the runtime) passing the runtime's tool
 * execution events to `listener` as pi's events; other events are ignored.
 */
export declare function piEvents(listener: (event: PiToolExecutionEvent) => void): (event: ToolExecutionEvent | { readonly type: string }) => void

export type { ToolwireToolError } from './errors.js'
