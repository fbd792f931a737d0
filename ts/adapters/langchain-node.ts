// The LangGraph tool node of toolwire/langchain: the last AIMessage's calls run in one dispatch,
// as a function that is also a LangChain Runnable (a StateGraph node, or a step of `.pipe`).

import type * as Messages from '@langchain/core/messages'
import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages'
import type * as Runnables from '@langchain/core/runnables'
import type { Runnable, RunnableConfig } from '@langchain/core/runnables'

import { describe, ownOptions } from '../common.js'
import type { ToolRuntime } from '../index.js'
import type { DispatchOptions, ModelToolCall, ToolResult } from '../types.js'
import { freshId } from '../ids.js'
import { adapterOptions, toolsOf, offeredTools, dispatchOptionsOf } from './common.js'
import { toolMessageOf } from './langchain-results.js'
import { writerOf, writingUpdates } from './langchain-stream.js'
import type { LangChainAdapterOptions } from './langchain-tools.js'
import type { PeerLoader } from './peer.js'

/** What the tool node takes: a graph state `{ messages }`, or the messages themselves. */
export type ToolNodeInput = BaseMessage[] | { messages: BaseMessage[] }

/** What the tool node returns: `{ messages }` for a state, an array for an array. */
export type ToolNodeOutput = ToolMessage[] | { messages: ToolMessage[] }

/**
 * A LangGraph node: the last message's calls (an AIMessage's `tool_calls` and `invalid_tool_calls`,
 * the latter answered INVALID_JSON or VALIDATION_ERROR) run in one dispatch, one ToolMessage per
 * call in the message's order. With `options.tools`, a call to a tool not listed gets an error
 * ToolMessage (NOT_FOUND) and the tool never runs. A function, and a Runnable: `invoke`,
 * `stream`, `batch`, `pipe` and `withConfig` are those of a RunnableLambda over it.
 */
export interface ToolwireToolNode extends Runnable<ToolNodeInput, ToolNodeOutput> {
  (state: BaseMessage[], config?: RunnableConfig): Promise<ToolMessage[]>
  (state: { messages: BaseMessage[] }, config?: RunnableConfig): Promise<{ messages: ToolMessage[] }>
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

/** What a message is, for an error: its LangChain type (`a human message`), else what describe says. */
function messageKind(message: unknown): string {
  const getType: unknown = message !== null && typeof message === 'object' ? (message as { getType?: unknown }).getType : undefined
  return typeof getType === 'function' ? `a ${String(getType.call(message))} message` : describe(message)
}

/** The methods a function has from Function.prototype, kept on the node (its prototype is a Runnable). */
const FUNCTION_METHODS = ['call', 'apply', 'bind', 'toString'] as const

/**
 * `run` as a function that is also a Runnable: its prototype is a RunnableLambda over `run`, so
 * its Runnable methods (`invoke`, `stream`, `batch`, `pipe`, `withConfig`...) are that
 * RunnableLambda's, and LangGraph's addNode and LangChain's composition take it as a Runnable.
 * Called directly (or through `call`, `apply`, `bind`), it runs `run`.
 */
function callableRunnable(RunnableLambda: typeof Runnables.RunnableLambda, run: (input: ToolNodeInput, config?: RunnableConfig) => Promise<ToolNodeOutput>): ToolwireToolNode {
  const runnable = new RunnableLambda({ func: run })
  const toolwireToolNode = (input: ToolNodeInput, config?: RunnableConfig) => run(input, config)
  Object.setPrototypeOf(toolwireToolNode, runnable)
  for (const name of FUNCTION_METHODS) {
    Object.defineProperty(toolwireToolNode, name, { value: Function.prototype[name], writable: true, configurable: true })
  }
  // Called with either input form, the node answers in that form (see ToolwireToolNode's signatures).
  return toolwireToolNode as unknown as ToolwireToolNode
}

/**
 * createToolNode with @langchain/core loaded by `load`: runs the calls of the last message, an
 * AIMessage, through one `runtime.dispatch` (in parallel, under deadlines, with the config's abort
 * signal; partial results written to LangGraph's custom stream) and returns one ToolMessage per
 * call in order.
 */
export function createToolNodeWith(load: PeerLoader, runtime: ToolRuntime, options: LangChainAdapterOptions = {}): ToolwireToolNode {
  const given = adapterOptions(options, 'createToolNode')
  const dispatchOptions = dispatchOptionsOf(given, 'createToolNode')
  toolsOf(runtime, given.tools, 'createToolNode')
  const { RunnableLambda } = load('@langchain/core/runnables') as typeof Runnables
  const { ToolMessage, AIMessage } = load('@langchain/core/messages') as typeof Messages
  async function run(state: ToolNodeInput, config?: RunnableConfig): Promise<ToolNodeOutput> {
    const list = Array.isArray(state) ? state : state !== null && typeof state === 'object' ? state.messages : undefined
    if (!Array.isArray(list)) throw new TypeError(`createToolNode: the state must be { messages } or an array of messages, got ${describe(state)}`)
    const last = list[list.length - 1]
    if (!AIMessage.isInstance(last)) throw new TypeError(`createToolNode: the last message must be an AIMessage (with tool_calls), got ${messageKind(last)}`)
    const calls = callsOfMessage(last)
    const signal = config && config.signal ? config.signal : undefined
    const tools = offeredTools(runtime, given.tools)
    const writer = writerOf(config)
    const dispatchWith: DispatchOptions = { ...dispatchOptions, ...(signal ? { signal } : {}), ...(tools === undefined ? {} : { tools }) }
    if (writer !== undefined) dispatchWith.onEvent = writingUpdates(dispatchOptions.onEvent, writer, calls)
    const results: ToolResult[] = calls.length === 0 ? [] : await runtime.dispatch(calls, dispatchWith)
    const out = results.map((result, i) => toolMessageOf(ToolMessage, result, calls[i].id))
    return Array.isArray(state) ? out : { messages: out }
  }
  return callableRunnable(RunnableLambda, run)
}
