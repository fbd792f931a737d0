// The runtime's tools as Vercel AI SDK tools, over the `ai` the entry's PeerLoader loads (ai-sdk.js
// requires it, ai-sdk.mjs takes the ESM build the user imports). Works with the AI SDK 6 and 7.

// (`ai` 7 is an ES module only: a CommonJS project types it as `import` does, as for `ai` 6)
import type * as Ai from 'ai' with { 'resolution-mode': 'import' }
import type { JSONSchema7, Tool } from 'ai' with { 'resolution-mode': 'import' }

import type { ToolRuntime } from '../index.js'
import type { DispatchOptions, ModelToolCall, ToolResult } from '../types.js'
import { CallBatcher } from './batch.js'
import { adapterOptions, toolsOf, dispatchOptionsOf, modelFacingErrorOf } from './common.js'
import type { PeerLoader } from './peer.js'
import { updateEvent, type ToolUpdateEvent } from './update-event.js'
import { updatesThen } from './updates-then.js'

/** Options of toAiSdkTools. */
export interface AiSdkAdapterOptions {
  /** The tools to expose, by name (each must be registered); default all registered tools; `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all). */
  tools?: string[]
  /** Options of every dispatch (the signal is the SDK's `abortSignal`). */
  dispatch?: Omit<DispatchOptions, 'signal'>
  /**
   * Stream each partial result a tool sends (its `onUpdate`) as an AI SDK preliminary tool result
   * (a `tool-result` part with `preliminary: true`; in the UI, `output-available` with
   * `preliminary: true`), the runtime's `tool_execution_update` event as its output. `execute` then
   * returns an async iterable, and the SDK also sends the final ToolResult once as preliminary
   * before it sends it as the result. Default false: `execute` returns the ToolResult.
   */
  preliminaryResults?: boolean
}

/**
 * An AI SDK tool backed by the runtime: its output is the ToolResult, and with
 * `preliminaryResults` the update events before it (`Preliminary` is then ToolUpdateEvent).
 */
export type ToolwireAiSdkTool<Preliminary = never> = Tool<unknown, ToolResult | Preliminary>

/** What the model reads of a result (the tools' `toModelOutput`). */
export type AiSdkModelOutput = Awaited<ReturnType<NonNullable<ToolwireAiSdkTool['toModelOutput']>>>

/** toAiSdkTools' signatures: the tools' output type says whether preliminary results come. */
export interface ToAiSdkTools {
  (runtime: ToolRuntime, options: AiSdkAdapterOptions & { preliminaryResults: true }): Record<string, ToolwireAiSdkTool<ToolUpdateEvent>>
  (runtime: ToolRuntime, options?: AiSdkAdapterOptions & { preliminaryResults?: false }): Record<string, ToolwireAiSdkTool>
  (runtime: ToolRuntime, options?: AiSdkAdapterOptions): Record<string, ToolwireAiSdkTool<ToolUpdateEvent>>
}

/** The functions of toolwire/ai-sdk, over one loader of `ai`. */
export interface AiSdkAdapter {
  toAiSdkTools: ToAiSdkTools
  aiSdkModelOutput: (result: ToolResult) => AiSdkModelOutput
}

/** The major version of the `ai` that `load` loads. */
function aiMajor(load: PeerLoader): number {
  const { version } = load('ai/package.json') as { version: string }
  return Number.parseInt(version, 10)
}

/**
 * What the model reads of a successful result: one text block as text, anything else as content
 * parts, images as the SDK's image part (`image-data` for the AI SDK 6; `file` with tagged data
 * for the AI SDK 7, which deprecates `image-data`).
 */
function modelOutput(result: ToolResult, major: number): AiSdkModelOutput {
  const content = result.content
  if (content.length === 1 && content[0].type === 'text') return { type: 'text', value: content[0].text }
  const image = (data: string, mediaType: string) =>
    major >= 7 ? { type: 'file', mediaType, data: { type: 'data', data } } : { type: 'image-data', data, mediaType }
  // (an AI SDK 7 `file` part, which the AI SDK 6's types do not know)
  return {
    type: 'content',
    value: content.map((block) => (block.type === 'image' ? image(block.data, block.mimeType) : { type: 'text', text: block.text })),
  } as AiSdkModelOutput
}

/** Whether an output the SDK hands `toModelOutput` is a ToolResult (the final output), not an update event. */
function isToolResult(output: ToolResult | ToolUpdateEvent): output is ToolResult {
  return !('type' in output && output.type === 'tool_execution_update')
}

/** toolwire/ai-sdk over `ai` loaded by `load`. */
export function aiSdkAdapter(load: PeerLoader): AiSdkAdapter {
  const aiSdkModelOutput = (result: ToolResult): AiSdkModelOutput => modelOutput(result, aiMajor(load))

  function toAiSdkTools(runtime: ToolRuntime, options: AiSdkAdapterOptions = {}): Record<string, ToolwireAiSdkTool<ToolUpdateEvent>> {
    const given = adapterOptions(options, 'toAiSdkTools')
    const dispatchOptions = dispatchOptionsOf(given, 'toAiSdkTools')
    const selected = toolsOf(runtime, given.tools, 'toAiSdkTools')
    const preliminary = given.preliminaryResults === true
    const { tool, jsonSchema } = load('ai') as typeof Ai
    const major = aiMajor(load)
    const batcher = new CallBatcher(runtime, dispatchOptions)
    const set: Record<string, ToolwireAiSdkTool<ToolUpdateEvent>> = {}
    for (const info of selected) {
      /** The call's ToolResult; a failed one thrown as the error the SDK reports. */
      const run = async (call: ModelToolCall, signal: AbortSignal | undefined, onUpdate?: (partialResult: unknown) => void): Promise<ToolResult> => {
        const result = await batcher.call(call, signal, onUpdate)
        if (!result.ok) throw modelFacingErrorOf(result)
        return result
      }
      const definition: ToolwireAiSdkTool<ToolUpdateEvent> = {
        description: info.description,
        // A registered tool's parameters are a JSON Schema the runtime compiled.
        inputSchema: jsonSchema(info.parameters as JSONSchema7),
        execute(input, executionOptions) {
          const { toolCallId, abortSignal } = executionOptions
          // The runtime validates the arguments (the SDK's input is the model's, parsed).
          const call: ModelToolCall = { id: toolCallId, name: info.name, arguments: (input === undefined ? {} : input) as ModelToolCall['arguments'] }
          if (!preliminary) return run(call, abortSignal)
          return updatesThen<ToolUpdateEvent, ToolResult>((onUpdate) => run(call, abortSignal, (partial) => onUpdate(updateEvent(toolCallId, info.name, partial))))
        },
        toModelOutput: ({ output }) => {
          // The SDK hands toModelOutput the final output only: the ToolResult.
          if (!isToolResult(output)) throw new TypeError(`toModelOutput: expected the final ToolResult of "${info.name}", got an update event of call ${output.toolCallId}`)
          return modelOutput(output, major)
        },
      }
      if (info.label !== undefined) definition.title = info.label
      set[info.name] = tool(definition)
    }
    return set
  }

  // One function for the three signatures: the output type follows `preliminaryResults`.
  return { toAiSdkTools: toAiSdkTools as ToAiSdkTools, aiSdkModelOutput }
}
