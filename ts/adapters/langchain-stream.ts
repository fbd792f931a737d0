// Progress for LangGraph: a tool's partial results written to the graph's custom stream
// (`graph.stream(input, { streamMode: 'custom' })`) through the writer LangGraph puts in the
// config of each node and tool it runs.

import type { RunnableConfig } from '@langchain/core/runnables'

import type { ToolExecutionEvent } from '../types.js'
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
 * An `onEvent` that passes every event to `own` (the dispatch options' own onEvent, if any), then
 * writes each `tool_execution_update` to `writer`.
 */
export function writingUpdates(own: ((event: ToolExecutionEvent) => void) | undefined, writer: StreamWriter): (event: ToolExecutionEvent) => void {
  return (event) => {
    try {
      if (own !== undefined) own(event)
    } finally {
      if (event.type === 'tool_execution_update') writer(updateEvent(event.toolCallId, event.toolName, event.partialResult))
    }
  }
}
