'use strict'
// toolwire/ai-sdk: the runtime's tools as Vercel AI SDK tools. `ai` is loaded when first called.

const { toolsOf, dispatchOptionsOf, modelFacingErrorOf, peer } = require('./common.js')
const { CallBatcher } = require('./batch.js')

/**
 * What the model reads of a successful result (the tools' `toModelOutput`): one text block as
 * text, anything else as content parts with images as `image-data`.
 */
function aiSdkModelOutput(result) {
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
 * which `toModelOutput` turns into what the model reads; a failed result throws its text after
 * `Error: `, so the SDK reports a tool error and the model reads one on every provider (the SDK
 * sends an error's text to OpenAI and Mistral as a plain tool output). The calls of one step,
 * which the SDK starts together, share one dispatch (CallBatcher): each still gets its own result
 * and errors.
 */
function toAiSdkTools(runtime, options = {}) {
  const dispatchOptions = dispatchOptionsOf(options, 'toAiSdkTools')
  const selected = toolsOf(runtime, options.tools, 'toAiSdkTools')
  const { tool, jsonSchema } = peer('ai', 'ai-sdk')
  const batcher = new CallBatcher(runtime, dispatchOptions)
  const set = {}
  for (const info of selected) {
    const definition = {
      description: info.description,
      inputSchema: jsonSchema(info.parameters),
      async execute(input, executionOptions) {
        const { toolCallId, abortSignal } = executionOptions
        const result = await batcher.call({ id: toolCallId, name: info.name, arguments: input === undefined ? {} : input }, abortSignal, undefined)
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

module.exports = { toAiSdkTools, aiSdkModelOutput }
