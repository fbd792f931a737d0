// The Anthropic preset: the Messages API, with the version header and the `max_tokens` it requires.

import { ToolwireError, describe, jsonText } from '../common.js'
import type { AnthropicPresetOptions, ResponseModel } from '../types.js'
import { presetModel, type Provider } from './preset.js'

/** The `max_tokens` of a request when `maxTokens` is not given. */
const DEFAULT_MAX_TOKENS = 4096

/** The API version every request names (`anthropic-version`). */
const ANTHROPIC_VERSION = '2023-06-01'

/** The body's fields besides the request: `model`, `max_tokens`, and `system` when given. */
function anthropicFields({ model, maxTokens = DEFAULT_MAX_TOKENS, system }: AnthropicPresetOptions, where: string): Record<string, unknown> {
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: options.maxTokens must be a whole number of at least 1, got ${describe(maxTokens)}`)
  }
  if (system === undefined) return { model, max_tokens: maxTokens }
  if (typeof system !== 'string' && !Array.isArray(system)) {
    throw new TypeError(`${where}: options.system must be a string or an array of text blocks, got ${describe(system)}`)
  }
  jsonText(`${where}: options.system`, system)
  return { model, max_tokens: maxTokens, system }
}

/** The Messages API: `POST {baseURL}/v1/messages`, `x-api-key`, `anthropic-version`. */
const ANTHROPIC: Provider<'anthropic', AnthropicPresetOptions> = {
  preset: 'models.anthropic',
  label: 'Anthropic',
  wire: 'anthropic',
  defaultBaseURL: 'https://api.anthropic.com',
  baseURLEnv: 'ANTHROPIC_BASE_URL',
  keyEnv: ['ANTHROPIC_API_KEY'],
  keyHeader: 'x-api-key',
  headers: { 'anthropic-version': ANTHROPIC_VERSION },
  options: ['maxTokens', 'system'],
  url: (baseURL) => `${baseURL}/v1/messages`,
  fields: anthropicFields,
}

/**
 * A model for `run({ wire: 'anthropic' })` on Anthropic's Messages API: `POST
 * {baseURL}/v1/messages` (default `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`, as the Anthropic SDK's),
 * `x-api-key` with `apiKey` or `ANTHROPIC_API_KEY`, `anthropic-version: 2023-06-01`, the body's
 * `model`, `max_tokens` (`maxTokens`, default 4096), `system` when given, and `stream: true`.
 */
export function anthropic(options: AnthropicPresetOptions): ResponseModel<'anthropic'> {
  return presetModel(ANTHROPIC, options)
}
