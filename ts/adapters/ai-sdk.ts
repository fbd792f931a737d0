// toolwire/ai-sdk: the runtime's tools as Vercel AI SDK tools. `ai` is loaded when first called.

import type * as Ai from 'ai'
import type { JSONSchema7, Tool } from 'ai'

import type { ToolRuntime } from '../index.js'
import type { DispatchOptions, ModelToolCall, ToolResult } from '../types.js'
import { CallBatcher } from './batch.js'
import { adapterOptions, toolsOf, dispatchOptionsOf, modelFacingErrorOf, peer } from './common.js'

export type { ToolwireToolError } from './common.js'

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
 * What the model reads of a successful result (the tools' `toModelOutput`): one text block as
 * text, anything else as content parts with images as `image-data`.
 */
export function aiSdkModelOutput(result: ToolResult): AiSdkModelOutput {
  const content = result.content
  if (content.length === 1 && content[0].type === 'text') return { type: 'text', value: content[0].text }
  return {
    type: 'content',
    value: content.map((block) =>
      block.type === 'image' ? { type: 'image-data', data: block.data, mediaType: block.mimeType } : { type: 'text', text: block.text },
    ),
  }
}

/**
 * The runtime's tools as an AI SDK ToolSet (`tool` with a `jsonSchema` input schema). `execute`
 * dispatches the call with the SDK's `toolCallId` and `abortSignal` and returns the ToolResult,
 * which `toModelOutput` turns into what the model reads; a failed result throws a
 * `ToolwireToolError`, its text after `Error: `, so the SDK reports a tool error and the model
 * reads one on every provider (the SDK sends an error's text to OpenAI and Mistral as a plain tool
 * output). The calls of one step, which the SDK starts together, with the same `abortSignal` share
 * one dispatch (CallBatcher): each still gets its own result and errors.
 */
export function toAiSdkTools(runtime: ToolRuntime, options: AiSdkAdapterOptions = {}): Record<string, ToolwireAiSdkTool> {
  const given = adapterOptions(options, 'toAiSdkTools')
  const dispatchOptions = dispatchOptionsOf(given, 'toAiSdkTools')
  const selected = toolsOf(runtime, given.tools, 'toAiSdkTools')
  const { tool, jsonSchema } = peer('ai', 'ai-sdk') as typeof Ai
  const batcher = new CallBatcher(runtime, dispatchOptions)
  const set: Record<string, ToolwireAiSdkTool> = {}
  for (const info of selected) {
    const definition: ToolwireAiSdkTool = {
      description: info.description,
      // A registered tool's parameters are a JSON Schema the runtime compiled.
      inputSchema: jsonSchema(info.parameters as JSONSchema7),
      async execute(input, executionOptions) {
        const { toolCallId, abortSignal } = executionOptions
        // The runtime validates the arguments (the SDK's input is the model's, parsed).
        const args = (input === undefined ? {} : input) as ModelToolCall['arguments']
        const result = await batcher.call({ id: toolCallId, name: info.name, arguments: args }, abortSignal, undefined)
        if (!result.ok) throw modelFacingErrorOf(result)
        return result
      },
      toModelOutput: ({ output }) => aiSdkModelOutput(output),
    }
    if (info.label !== undefined) definition.title = info.label
    set[info.name] = tool(definition)
  }
  return set
}
