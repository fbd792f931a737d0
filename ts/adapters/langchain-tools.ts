// The runtime's tools as LangChain tools (`tool()` of @langchain/core), loaded by the entry's
// PeerLoader (langchain.js requires @langchain/core's CommonJS build, langchain.mjs takes the ESM
// build the user imports).

import type * as Messages from '@langchain/core/messages'
import type * as Tools from '@langchain/core/tools'
import type { DynamicStructuredTool, ToolRunnableConfig } from '@langchain/core/tools'
import type { JsonSchema7Type } from '@langchain/core/utils/json_schema'

import type { ToolRuntime } from '../index.js'
import type { DispatchOptions, ModelToolCall } from '../types.js'
import { freshId } from '../ids.js'
import { CallBatcher } from './batch.js'
import { adapterOptions, toolsOf, dispatchOptionsOf, errorOf } from './common.js'
import { langChainContent, toolMessageOf } from './langchain-results.js'
import { writerOf } from './langchain-stream.js'
import type { PeerLoader } from './peer.js'
import { updateEvent } from './update-event.js'

/** Options of toLangChainTools and createToolNode. */
export interface LangChainAdapterOptions {
  /** The tools to expose, by name (each must be registered); default all registered tools; `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all). */
  tools?: string[]
  /** Options of every dispatch (the signal is the config's). */
  dispatch?: Omit<DispatchOptions, 'signal'>
}

/**
 * toLangChainTools with @langchain/core loaded by `load`. Invoked with a tool call, a tool
 * dispatches it under the call's id with the config's abort signal and returns a ToolMessage;
 * invoked with plain arguments it returns the content, and throws a `ToolwireToolError` for a
 * failed result. The tool's partial results go to LangGraph's custom stream (the config's
 * writer). Calls started together (LangGraph's ToolNode runs a message's calls at once) share one
 * dispatch.
 */
export function toLangChainToolsWith(load: PeerLoader, runtime: ToolRuntime, options: LangChainAdapterOptions = {}): DynamicStructuredTool[] {
  const given = adapterOptions(options, 'toLangChainTools')
  const dispatchOptions = dispatchOptionsOf(given, 'toLangChainTools')
  const selected = toolsOf(runtime, given.tools, 'toLangChainTools')
  const { tool } = load('@langchain/core/tools') as typeof Tools
  const { ToolMessage } = load('@langchain/core/messages') as typeof Messages
  // The calls a framework starts together (a ToolNode runs a message's calls at once) share one
  // dispatch; each still gets its own result, abort signal, updates and errors.
  const batcher = new CallBatcher(runtime, dispatchOptions)
  return selected.map((info) =>
    tool(
      async (input: unknown, config?: ToolRunnableConfig) => {
        const toolCallId = config && config.toolCall && typeof config.toolCall.id === 'string' ? config.toolCall.id : undefined
        // The runtime validates the arguments too (LangChain checked them against the schema).
        const call: ModelToolCall = { id: toolCallId ?? freshId('langchain'), name: info.name, arguments: (input === undefined ? {} : input) as ModelToolCall['arguments'] }
        const writer = writerOf(config)
        const onUpdate = writer === undefined ? undefined : (partialResult: unknown) => writer(updateEvent(call.id, info.name, partialResult))
        const result = await batcher.call(call, config ? config.signal : undefined, onUpdate)
        if (toolCallId !== undefined) return toolMessageOf(ToolMessage, result, toolCallId)
        if (!result.ok) throw errorOf(result)
        return langChainContent(result.content)
      },
      // A registered tool's parameters are a JSON Schema the runtime compiled.
      { name: info.name, description: info.description ?? info.label ?? info.name, schema: info.parameters as JsonSchema7Type },
    ),
  )
}
