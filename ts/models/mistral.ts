// The Mistral preset: Mistral's Chat Completions.

import type { ResponseModel, ModelPresetOptions } from '../types.js'
import { bearer } from './openai.js'
import { presetModel, type Provider } from './preset.js'

/** Mistral's chat completions: `POST {baseURL}/v1/chat/completions`, a Bearer key, the body's `model`; run() puts `stream`. */
const MISTRAL: Provider<'mistral'> = {
  preset: 'models.mistral',
  label: 'Mistral',
  wire: 'mistral',
  defaultBaseURL: 'https://api.mistral.ai',
  keyEnv: ['MISTRAL_API_KEY'],
  keyHeader: 'authorization',
  keyValue: bearer,
  url: (baseURL) => `${baseURL}/v1/chat/completions`,
  fields: ({ model }) => ({ model }),
}

/**
 * A model for `run({ wire: 'mistral' })` on Mistral's API: `POST {baseURL}/v1/chat/completions`
 * (default `https://api.mistral.ai`, as Mistral's SDK's), `Authorization: Bearer` with `apiKey` or
 * `MISTRAL_API_KEY`, the body's `model` and `stream: true`.
 */
export function mistral(options: ModelPresetOptions): ResponseModel<'mistral'> {
  return presetModel(MISTRAL, options)
}
