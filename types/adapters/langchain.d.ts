// toolwire/langchain: the runtime's tools as LangChain tools, and a LangGraph tool node.
import type { BaseMessage, ToolMessage } from '@langchain/core/messages'
import type { RunnableConfig } from '@langchain/core/runnables'
import type { DynamicStructuredTool } from '@langchain/core/tools'

import type { DispatchOptions, ToolRuntime } from '../index.js'

export interface LangChainAdapterOptions {
  /** The tools to expose, by name (each must be registered); default all registered tools; `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all). */
  tools?: string[]
  /** Options of every dispatch (the signal is the config's). */
  dispatch?: Omit<DispatchOptions, 'signal'>
}

/**
 * LangChain tools whose execution is delegated to the runtime. Invoked with a ToolCall they
 * return a ToolMessage (`status` 'success' | 'error', the ToolResult as `artifact`) under the
 * call's id, with the config's abort signal; invoked with plain arguments, the content (a failed
 * result throws a `ToolwireToolError`).
 */
export declare function toLangChainTools(runtime: ToolRuntime, options?: LangChainAdapterOptions): DynamicStructuredTool[]

/**
 * A LangGraph node: the last message's calls (an AIMessage's `tool_calls` and `invalid_tool_calls`,
 * the latter answered INVALID_JSON or VALIDATION_ERROR) run in one dispatch, one ToolMessage per
 * call in the message's order. With `options.tools`, a call to a tool not listed gets an error
 * ToolMessage (NOT_FOUND) and the tool never runs.
 */
export interface ToolwireToolNode {
  (state: BaseMessage[], config?: RunnableConfig): Promise<ToolMessage[]>
  (state: { messages: BaseMessage[] }, config?: RunnableConfig): Promise<{ messages: ToolMessage[] }>
}

export declare function createToolNode(runtime: ToolRuntime, options?: LangChainAdapterOptions): ToolwireToolNode

export type { ToolwireToolError } from './errors.js'
