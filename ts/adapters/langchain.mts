// toolwire/langchain for ESM: the same adapter over the @langchain/core ESM build the user
// imports (loaded when a function is first called), so its tools are instances of the user's
// StructuredTool and its node a Runnable of the user's @langchain/core: one copy in the process.
// The declarations (langchain.d.mts) name @langchain/core's ESM types, which LangGraph's ESM
// types (ToolNode, StateGraph) expect. Named exports only.

import type { BaseMessage, ToolMessage } from '@langchain/core/messages'
import type { Runnable, RunnableConfig } from '@langchain/core/runnables'
import type { DynamicStructuredTool } from '@langchain/core/tools'

import type { ToolRuntime } from '../index.js'
import { importPeer } from './import-peer.mjs'
import { createToolNodeWith } from './langchain-node.js'
import { toLangChainToolsWith, type LangChainAdapterOptions } from './langchain-tools.js'

export type { ToolwireToolError } from './common.js'
export type { StreamWriter } from './langchain-stream.js'
export type { ToolUpdateEvent } from './update-event.js'
export type { LangChainAdapterOptions }

/** What the tool node takes: a graph state `{ messages }`, or the messages themselves. */
export type ToolNodeInput = BaseMessage[] | { messages: BaseMessage[] }

/** What the tool node returns: `{ messages }` for a state, an array for an array. */
export type ToolNodeOutput = ToolMessage[] | { messages: ToolMessage[] }

/**
 * A LangGraph node: the last message's calls run in one dispatch, one ToolMessage per call in the
 * message's order. A function, and a Runnable: `invoke`, `stream`, `batch`, `pipe` and
 * `withConfig` are those of a RunnableLambda over it.
 */
export interface ToolwireToolNode extends Runnable<ToolNodeInput, ToolNodeOutput> {
  (state: BaseMessage[], config?: RunnableConfig): Promise<ToolMessage[]>
  (state: { messages: BaseMessage[] }, config?: RunnableConfig): Promise<{ messages: ToolMessage[] }>
}

/** @langchain/core's ESM build, loaded when a function of this module is first called. */
const importLangChain = importPeer('langchain')

/**
 * The runtime's tools as LangChain tools (`tool()` of @langchain/core): a tool call returns a
 * ToolMessage under its id (the ToolResult as `artifact`), plain arguments return the content or
 * throw a `ToolwireToolError`; partial results go to LangGraph's custom stream.
 */
export function toLangChainTools(runtime: ToolRuntime, options?: LangChainAdapterOptions): DynamicStructuredTool[] {
  // (the instances are of the ESM build's classes, loaded through `import`'s resolution)
  return toLangChainToolsWith(importLangChain, runtime, options) as unknown as DynamicStructuredTool[]
}

/**
 * A LangGraph node, callable and a Runnable: the last AIMessage's calls in one dispatch, one
 * ToolMessage per call in order; `{ messages }` in, `{ messages }` out (an array for an array);
 * partial results go to LangGraph's custom stream.
 */
export function createToolNode(runtime: ToolRuntime, options?: LangChainAdapterOptions): ToolwireToolNode {
  return createToolNodeWith(importLangChain, runtime, options) as unknown as ToolwireToolNode
}
