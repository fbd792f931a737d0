// The OpenAI presets: Chat Completions and Responses on OpenAI's API, and Chat Completions on any
// server that speaks it (llama.cpp, vLLM, Ollama, a gateway).

import type { ResponseModel, ModelPresetOptions, OpenAICompatibleOptions } from '../types.js'
import { presetModel, type Provider } from './preset.js'

/** OpenAI's API root (the OpenAI SDK's default `baseURL`). */
const OPENAI_BASE_URL = 'https://api.openai.com/v1'

/** The `authorization` header's value for a key. */
export const bearer = (apiKey: string): string => `Bearer ${apiKey}`

/** Chat Completions on OpenAI: the body's `model`; run() puts `stream` and `stream_options.include_usage`. */
const OPENAI_CHAT: Provider<'openai-chat'> = {
  preset: 'models.openaiChat',
  label: 'OpenAI',
  wire: 'openai-chat',
  defaultBaseURL: OPENAI_BASE_URL,
  baseURLEnv: 'OPENAI_BASE_URL',
  keyEnv: ['OPENAI_API_KEY'],
  keyHeader: 'authorization',
  keyValue: bearer,
  url: (baseURL) => `${baseURL}/chat/completions`,
  fields: ({ model }) => ({ model }),
}

/** Responses on OpenAI: `POST {baseURL}/responses`, the body's `model`; run() puts `stream`. */
const OPENAI_RESPONSES: Provider<'openai-responses'> = {
  ...OPENAI_CHAT,
  preset: 'models.openaiResponses',
  wire: 'openai-responses',
  url: (baseURL) => `${baseURL}/responses`,
}

/** Chat Completions on a server of your own: `baseURL` required, a key only when given (never read from the environment). */
const OPENAI_COMPATIBLE: Provider<'openai-chat'> = {
  ...OPENAI_CHAT,
  preset: 'models.openaiCompatible',
  label: undefined,
  defaultBaseURL: undefined,
  baseURLEnv: undefined,
  keyEnv: [],
}

/**
 * A model for `run({ wire: 'openai-chat' })` on OpenAI's Chat Completions: `POST
 * {baseURL}/chat/completions` (default `OPENAI_BASE_URL`, else `https://api.openai.com/v1`, as the OpenAI SDK's), `Authorization: Bearer` with
 * `apiKey` or `OPENAI_API_KEY`, the body's `model`, `stream: true` and the stream's usage.
 */
export function openaiChat(options: ModelPresetOptions): ResponseModel<'openai-chat'> {
  return presetModel(OPENAI_CHAT, options)
}

/**
 * A model for `run({ wire: 'openai-responses' })` on OpenAI's Responses API: `POST
 * {baseURL}/responses` (default `OPENAI_BASE_URL`, else `https://api.openai.com/v1`, as the OpenAI SDK's), `Authorization: Bearer` with
 * `apiKey` or `OPENAI_API_KEY`, the body's `model` and `stream: true`.
 */
export function openaiResponses(options: ModelPresetOptions): ResponseModel<'openai-responses'> {
  return presetModel(OPENAI_RESPONSES, options)
}

/**
 * A model for `run({ wire: 'openai-chat' })` on a server speaking Chat Completions (llama.cpp,
 * vLLM, Ollama, LM Studio, a gateway): `POST {baseURL}/chat/completions`, `Authorization: Bearer`
 * only with `apiKey` (no environment variable is read: your OpenAI key never goes to another
 * server by default). Errors name the server by its origin.
 */
export function openaiCompatible(options: OpenAICompatibleOptions): ResponseModel<'openai-chat'> {
  return presetModel(OPENAI_COMPATIBLE, options)
}
