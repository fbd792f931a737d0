// toolwire/ai-sdk for ESM: the same adapter over the `ai` ESM build the user imports (loaded when a
// function is first called): one copy of the SDK in the process. `ai`'s types are the same for
// both entries (the CommonJS declarations read them as `import` does). Named exports only.

import type { ToolResult } from '../types.js'
import { aiSdkAdapter, type AiSdkModelOutput, type ToAiSdkTools } from './ai-sdk-tools.js'
import { importPeer } from './import-peer.mjs'

export type { ToolwireToolError } from './common.js'
export type { AiSdkAdapterOptions, AiSdkModelOutput, ToAiSdkTools, ToolwireAiSdkTool } from './ai-sdk-tools.js'
export type { ToolUpdateEvent } from './update-event.js'

const adapter = aiSdkAdapter(importPeer('ai-sdk'))

/**
 * The runtime's tools as an AI SDK ToolSet: `execute` dispatches under the SDK's `toolCallId` and
 * `abortSignal` and returns the ToolResult (a failed one throws a `ToolwireToolError`);
 * `toModelOutput` gives the model its content. With `preliminaryResults: true`, partial results
 * stream as preliminary tool results first.
 */
export const toAiSdkTools: ToAiSdkTools = adapter.toAiSdkTools

/** What the model reads of a successful result: its text, or content parts with images. */
export const aiSdkModelOutput: (result: ToolResult) => AiSdkModelOutput = adapter.aiSdkModelOutput
