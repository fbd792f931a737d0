// toolwire/ai-sdk: the runtime's tools as Vercel AI SDK tools.
import type { Tool } from 'ai'

import type { DispatchOptions, ToolResult, ToolRuntime } from '../index.js'

export interface AiSdkAdapterOptions {
  /** The tools to expose, by name (each must be registered); default all registered tools; `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all). */
  tools?: string[]
  /** Options of every dispatch (the signal is the SDK's `abortSignal`). */
  dispatch?: Omit<DispatchOptions, 'signal'>
}

/** An AI SDK tool backed by the runtime: its output is the ToolResult. */
export type ToolwireAiSdkTool = Tool<unknown, ToolResult>

/** What the model reads of a result (the tools' `toModelOutput`). */
export type AiSdkModelOutput = Awaited<ReturnType<NonNullable<ToolwireAiSdkTool['toModelOutput']>>>

/**
 * An AI SDK ToolSet: `execute` dispatches with the SDK's `toolCallId` and `abortSignal` and
 * returns the ToolResult; a failed result throws a `ToolwireToolError` (the SDK's tool error).
 * The calls of one step with the same `abortSignal` share one dispatch; each still gets its own
 * result and error.
 */
export declare function toAiSdkTools(runtime: ToolRuntime, options?: AiSdkAdapterOptions): Record<string, ToolwireAiSdkTool>

/** A successful result as model output: one text block as text, else content parts (images as image-data). */
export declare function aiSdkModelOutput(result: ToolResult): AiSdkModelOutput

export type { ToolwireToolError } from './errors.js'
