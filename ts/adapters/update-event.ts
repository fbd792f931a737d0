// A partial result as the adapters hand it to a framework's progress channel (LangGraph's custom
// stream, the AI SDK's preliminary tool results): the runtime's own update event.

import type { ToolExecutionEvent } from '../types.js'

/** One partial result a running tool sent (its `onUpdate`): the runtime's `tool_execution_update` event. */
export type ToolUpdateEvent = Extract<ToolExecutionEvent, { type: 'tool_execution_update' }>

/** The update event of `partialResult`, sent by the call `toolCallId` of the tool `toolName`. */
export function updateEvent(toolCallId: string, toolName: string, partialResult: unknown): ToolUpdateEvent {
  return { type: 'tool_execution_update', toolCallId, toolName, partialResult }
}
