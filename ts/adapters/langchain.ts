// toolwire/langchain: the runtime's tools as LangChain tools, and a tool node for LangGraph.
// @langchain/core is loaded when one of these is first called.

import type * as Messages from '@langchain/core/messages'
import type { AIMessage, BaseMessage, MessageContent, ToolMessage } from '@langchain/core/messages'
import type { RunnableConfig } from '@langchain/core/runnables'
import type * as Tools from '@langchain/core/tools'
import type { DynamicStructuredTool, ToolRunnableConfig } from '@langchain/core/tools'
import type { JsonSchema7Type } from '@langchain/core/utils/json_schema'

import { describe, ownOptions } from '../common.js'
import type { ToolRuntime } from '../index.js'
import type { ContentBlock, DispatchOptions, ModelToolCall, ToolResult } from '../types.js'
import { CallBatcher } from './batch.js'
import { adapterOptions, toolsOf, offeredTools, dispatchOptionsOf, errorOf, markedErrorContent, peer } from './common.js'
import { freshId } from '../ids.js'

export type { ToolwireToolError } from './common.js'

export interface LangChainAdapterOptions {
  /** The tools to expose, by name (each must be registered); default all registered tools; `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all). */
  tools?: string[]
  /** Options of every dispatch (the signal is the config's). */
  dispatch?: Omit<DispatchOptions, 'signal'>
}

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

const tools = (): typeof Tools => peer('@langchain/core/tools', 'langchain') as typeof Tools
const messages = (): typeof Messages => peer('@langchain/core/messages', 'langchain') as typeof Messages

/** A result's content as LangChain message content: one text block as a string, else standard blocks. */
function langChainContent(content: ContentBlock[]): MessageContent {
  if (content.length === 1 && content[0].type === 'text') return content[0].text
  return content.map((block) =>
    block.type === 'image' ? { type: 'image', data: block.data, mimeType: block.mimeType } : { type: 'text', text: block.text },
  )
}

/**
 * The ToolMessage of a result: its content, `status` success or error, the ToolResult as
 * `artifact`. A failed result's text opens with `Error: ` (as encodeResults writes it, and as
 * LangChain's own ToolNode writes a tool's error): LangChain's OpenAI and Mistral converters send
 * the content without the status.
 */
function toolMessageOf(ToolMessage: typeof Messages.ToolMessage, result: ToolResult, toolCallId: string): ToolMessage {
  return new ToolMessage({
    content: langChainContent(result.ok ? result.content : markedErrorContent(result.content)),
    tool_call_id: toolCallId,
    name: result.tool,
    status: result.ok ? 'success' : 'error',
    artifact: result,
  })
}

/**
 * The runtime's tools as LangChain tools (`tool()` of @langchain/core). Invoked with a tool call,
 * a tool dispatches it under the call's id with the config's abort signal and returns a
 * ToolMessage (`status` 'success' or 'error', the ToolResult as `artifact`); invoked with plain
 * arguments it returns the content, and throws a `ToolwireToolError` for a failed result.
 * LangChain checks the input against the JSON Schema before the call reaches the runtime. Calls
 * started together (LangGraph's ToolNode runs a message's calls at once) share one dispatch.
 */
export function toLangChainTools(runtime: ToolRuntime, options: LangChainAdapterOptions = {}): DynamicStructuredTool[] {
  const given = adapterOptions(options, 'toLangChainTools')
  const dispatchOptions = dispatchOptionsOf(given, 'toLangChainTools')
  const selected = toolsOf(runtime, given.tools, 'toLangChainTools')
  const { tool } = tools()
  const { ToolMessage } = messages()
  // The calls a framework starts together (a ToolNode runs a message's calls at once) share one
  // dispatch; each still gets its own result, abort signal and errors.
  const batcher = new CallBatcher(runtime, dispatchOptions)
  return selected.map((info) =>
    tool(
      async (input: unknown, config?: ToolRunnableConfig) => {
        const toolCallId = config && config.toolCall && typeof config.toolCall.id === 'string' ? config.toolCall.id : undefined
        // The runtime validates the arguments too (LangChain checked them against the schema).
        const call: ModelToolCall = { id: toolCallId ?? freshId('langchain'), name: info.name, arguments: (input === undefined ? {} : input) as ModelToolCall['arguments'] }
        const result = await batcher.call(call, config ? config.signal : undefined, undefined)
        if (toolCallId !== undefined) return toolMessageOf(ToolMessage, result, toolCallId)
        if (!result.ok) throw errorOf(result)
        return langChainContent(result.content)
      },
      // A registered tool's parameters are a JSON Schema the runtime compiled.
      { name: info.name, description: info.description ?? info.label ?? info.name, schema: info.parameters as JsonSchema7Type },
    ),
  )
}

/**
 * The calls of an AIMessage in the message's order: its `tool_calls` and its `invalid_tool_calls`
 * (arguments LangChain could not parse, kept as the raw string so the runtime answers them
 * INVALID_JSON or VALIDATION_ERROR instead of leaving the call unanswered). The provider's order
 * is that of `additional_kwargs.tool_calls` when the message has them.
 */
function callsOfMessage(message: AIMessage): ModelToolCall[] {
  const valid = Array.isArray(message.tool_calls) ? message.tool_calls.map((call) => ({ call, raw: false })) : []
  const invalid = Array.isArray(message.invalid_tool_calls) ? message.invalid_tool_calls.map((call) => ({ call, raw: true })) : []
  const all = [...valid, ...invalid]
  const original = message.additional_kwargs && Array.isArray(message.additional_kwargs.tool_calls) ? message.additional_kwargs.tool_calls : []
  if (invalid.length > 0 && valid.length > 0 && original.length > 0) {
    const position = new Map<string, number>()
    original.forEach((call, i) => {
      if (call && typeof call.id === 'string' && !position.has(call.id)) position.set(call.id, i)
    })
    const rank = (entry: (typeof all)[number]): number => (typeof entry.call.id === 'string' && position.has(entry.call.id) ? position.get(entry.call.id)! : Infinity)
    all.sort((a, b) => rank(a) - rank(b))
  }
  return all.map(({ call, raw }) => {
    // (a call's own keys: see ownOptions)
    const { id, name, args } = ownOptions(call as { id?: unknown; name?: unknown; args?: unknown })
    return {
      id: typeof id === 'string' && id !== '' ? id : freshId('langchain'),
      name: typeof name === 'string' ? name : '',
      arguments: (raw ? (typeof args === 'string' ? args : args ?? null) : args ?? {}) as ModelToolCall['arguments'],
    }
  })
}

/**
 * A LangGraph node (also callable on its own): runs the calls of the last message, an AIMessage
 * (its `tool_calls` and its `invalid_tool_calls`, in the message's order), through one
 * `runtime.dispatch` (in parallel, under deadlines, with the config's abort signal) and returns one
 * ToolMessage per call in order, `status` 'success' or 'error', the ToolResult as `artifact`.
 * Takes a state `{ messages }` (returns `{ messages }`) or an array of messages (returns an array).
 * With `options.tools`, a call to a tool not listed is answered NOT_FOUND by the engine (the
 * dispatch's `tools` option: its text names the listed tools only) and never runs.
 */
export function createToolNode(runtime: ToolRuntime, options: LangChainAdapterOptions = {}): ToolwireToolNode {
  const given = adapterOptions(options, 'createToolNode')
  const dispatchOptions = dispatchOptionsOf(given, 'createToolNode')
  toolsOf(runtime, given.tools, 'createToolNode')
  function toolwireToolNode(state: BaseMessage[], config?: RunnableConfig): Promise<ToolMessage[]>
  function toolwireToolNode(state: { messages: BaseMessage[] }, config?: RunnableConfig): Promise<{ messages: ToolMessage[] }>
  async function toolwireToolNode(state: BaseMessage[] | { messages: BaseMessage[] }, config?: RunnableConfig): Promise<ToolMessage[] | { messages: ToolMessage[] }> {
    const { ToolMessage, AIMessage } = messages()
    const list = Array.isArray(state) ? state : state !== null && typeof state === 'object' ? state.messages : undefined
    if (!Array.isArray(list)) throw new TypeError(`createToolNode: the state must be { messages } or an array of messages, got ${describe(state)}`)
    const last = list[list.length - 1]
    if (!AIMessage.isInstance(last)) throw new TypeError('createToolNode: the last message must be an AIMessage (with tool_calls)')
    const calls = callsOfMessage(last)
    const signal = config && config.signal ? config.signal : undefined
    const tools = offeredTools(runtime, given.tools)
    const dispatchWith: DispatchOptions = { ...dispatchOptions, ...(signal ? { signal } : {}), ...(tools === undefined ? {} : { tools }) }
    const results: ToolResult[] = calls.length === 0 ? [] : await runtime.dispatch(calls, dispatchWith)
    const out = results.map((result, i) => toolMessageOf(ToolMessage, result, calls[i].id))
    return Array.isArray(state) ? out : { messages: out }
  }
  return toolwireToolNode
}
