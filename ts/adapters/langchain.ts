// toolwire/langchain for CommonJS: the runtime's tools as LangChain tools, and a tool node for
// LangGraph, over @langchain/core's CommonJS build (required when one of these is first called).
// ESM users get langchain.mjs, over the ESM build they import.

import type { DynamicStructuredTool } from '@langchain/core/tools'

import type { ToolRuntime } from '../index.js'
import { createToolNodeWith, type ToolNodeInput, type ToolNodeOutput, type ToolwireToolNode } from './langchain-node.js'
import { toLangChainToolsWith, type LangChainAdapterOptions } from './langchain-tools.js'
import { requirePeer } from './peer.js'

export type { ToolwireToolError } from './common.js'
export type { StreamWriter } from './langchain-stream.js'
export type { ToolUpdateEvent } from './update-event.js'
export type { LangChainAdapterOptions, ToolNodeInput, ToolNodeOutput, ToolwireToolNode }

/** @langchain/core's CommonJS build, loaded when a function of this module is first called. */
const requireLangChain = requirePeer('langchain')

/**
 * The runtime's tools as LangChain tools (`tool()` of @langchain/core). Invoked with a tool call,
 * a tool dispatches it under the call's id with the config's abort signal and returns a
 * ToolMessage (`status` 'success' or 'error', the ToolResult as `artifact`); invoked with plain
 * arguments it returns the content, and throws a `ToolwireToolError` for a failed result.
 * LangChain checks the input against the JSON Schema before the call reaches the runtime. A
 * tool's partial results are written to LangGraph's custom stream (`streamMode: 'custom'`) as
 * `tool_execution_update` events. Calls started together (LangGraph's ToolNode runs a message's
 * calls at once) share one dispatch.
 */
export function toLangChainTools(runtime: ToolRuntime, options?: LangChainAdapterOptions): DynamicStructuredTool[] {
  return toLangChainToolsWith(requireLangChain, runtime, options)
}

/**
 * A LangGraph node (also callable on its own, and a Runnable): runs the calls of the last message,
 * an AIMessage (its `tool_calls` and its `invalid_tool_calls`, in the message's order), through
 * one `runtime.dispatch` (in parallel, under deadlines, with the config's abort signal) and
 * returns one ToolMessage per call in order, `status` 'success' or 'error', the ToolResult as
 * `artifact`. Takes a state `{ messages }` (returns `{ messages }`) or an array of messages
 * (returns an array). Partial results are written to LangGraph's custom stream as
 * `tool_execution_update` events. With `options.tools`, a call to a tool not listed is answered
 * NOT_FOUND by the engine (the dispatch's `tools` option: its text names the listed tools only)
 * and never runs.
 */
export function createToolNode(runtime: ToolRuntime, options?: LangChainAdapterOptions): ToolwireToolNode {
  return createToolNodeWith(requireLangChain, runtime, options)
}
