// The Gemini preset: the Gemini API's streaming endpoint, the model in its path, the key in a header.

import type { ResponseModel, ModelPresetOptions } from '../types.js'
import { presetModel, type Provider } from './preset.js'

/**
 * The streaming URL of `model` (`gemini-2.5-flash`, or `models/gemini-2.5-flash` as the API
 * names it): `?alt=sse` makes the stream SSE (without it, a JSON array). The key never goes in
 * the URL, where logs and proxies would keep it.
 */
function streamURL(baseURL: string, model: string): string {
  const name = model.startsWith('models/') ? model.slice('models/'.length) : model
  return `${baseURL}/v1beta/models/${encodeURIComponent(name)}:streamGenerateContent?alt=sse`
}

/** The Gemini API: `x-goog-api-key`; the body is the request as run() makes it. */
const GEMINI: Provider<'gemini'> = {
  preset: 'models.gemini',
  label: 'Gemini',
  wire: 'gemini',
  defaultBaseURL: 'https://generativelanguage.googleapis.com',
  baseURLEnv: 'GOOGLE_GEMINI_BASE_URL',
  keyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  keyHeader: 'x-goog-api-key',
  url: streamURL,
  fields: () => ({}),
}

/**
 * A model for `run({ wire: 'gemini' })` on the Gemini API: `POST
 * {baseURL}/v1beta/models/{model}:streamGenerateContent?alt=sse` (default `GOOGLE_GEMINI_BASE_URL`,
 * else `https://generativelanguage.googleapis.com`, as Google's SDK's), the key (`apiKey`, else
 * `GEMINI_API_KEY`, else `GOOGLE_API_KEY`) in the `x-goog-api-key` header, never in the URL.
 */
export function gemini(options: ModelPresetOptions): ResponseModel<'gemini'> {
  return presetModel(GEMINI, options)
}
