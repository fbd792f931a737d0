// toolwire/ai-sdk for CommonJS: the runtime's tools as Vercel AI SDK tools, over the `ai` that
// require gives (loaded when a function is first called). ESM users get ai-sdk.mjs.

import type { ToolResult } from '../types.js'
import { aiSdkAdapter, type AiSdkModelOutput, type ToAiSdkTools } from './ai-sdk-tools.js'
import { requirePeer } from './peer.js'

export type { ToolwireToolError } from './common.js'
export type { AiSdkAdapterOptions, AiSdkModelOutput, ToAiSdkTools, ToolwireAiSdkTool } from './ai-sdk-tools.js'
export type { ToolUpdateEvent } from './update-event.js'

const adapter = aiSdkAdapter(requirePeer('ai-sdk'))

/**
 * The runtime's tools as an AI SDK ToolSet (`tool` with a `jsonSchema` input schema). `execute`
 * dispatches the call with the SDK's `toolCallId` and `abortSignal` and returns the ToolResult,
 * which `toModelOutput` turns into what the model reads; a failed result throws a
 * `ToolwireToolError`, its text after `Error: `, so the SDK reports a tool error and the model
 * reads one on every provider (the SDK sends an error's text to OpenAI and Mistral as a plain tool
 * output). With `preliminaryResults: true`, a tool's partial results stream as preliminary tool
 * results (`tool_execution_update` events) before the ToolResult. The calls of one step, which the
 * SDK starts together, with the same `abortSignal` share one dispatch (CallBatcher): each still
 * gets its own result and errors.
 */
export const toAiSdkTools: ToAiSdkTools = adapter.toAiSdkTools

/**
 * What the model reads of a successful result (the tools' `toModelOutput`): one text block as
 * text, anything else as content parts with images as the installed SDK's image part.
 */
export const aiSdkModelOutput: (result: ToolResult) => AiSdkModelOutput = adapter.aiSdkModelOutput
