// Progress for LangGraph: a tool's partial results written to the graph's custom stream
// (`graph.stream(input, { streamMode: 'custom' })`) through the writer LangGraph puts in the
// config of each node and tool it runs.

import type { RunnableConfig } from '@langchain/core/runnables'

import type { ModelToolCall, ToolExecutionEvent } from '../types.js'
import { routingUpdates } from './batch.js'
import { updateEvent, type ToolUpdateEvent } from './update-event.js'

/** LangGraph's custom stream writer: what it is given appears in `streamMode: 'custom'`. */
export type StreamWriter = (chunk: ToolUpdateEvent) => void

/**
 * The custom stream writer in a config LangGraph passed: `config.writer`, or
 * `config.configurable.writer` (where LangGraph's getWriter also looks); undefined outside a
 * graph. (LangGraph gives every run a writer, which drops what it is given unless the stream
 * mode includes 'custom'.)
 */
export function writerOf(config: RunnableConfig | undefined): StreamWriter | undefined {
  if (config === null || typeof config !== 'object') return undefined
  const direct: unknown = (config as { writer?: unknown }).writer
  if (typeof direct === 'function') return direct as StreamWriter
  const configurable = config.configurable
  const nested: unknown = configurable !== null && typeof configurable === 'object' ? configurable.writer : undefined
  return typeof nested === 'function' ? (nested as StreamWriter) : undefined
}

/**
 * The `onEvent` of a dispatch of `calls`: every event goes to `own` (the dispatch options' own
 * onEvent, if any), and each partial result is written to `writer` as the update event of its call,
 * with the call's own id and name (the event's `toolCallId` shows an id holding a secret or a lone
 * surrogate changed, which a reader of the stream could not pair with the call it knows).
 */
export function writingUpdates(own: ((event: ToolExecutionEvent) => void) | undefined, writer: StreamWriter, calls: readonly ModelToolCall[]): (event: ToolExecutionEvent) => void {
  return routingUpdates(
    own,
    calls.map((call) => (partialResult: unknown) => writer(updateEvent(call.id, call.name, partialResult))),
  )
}
