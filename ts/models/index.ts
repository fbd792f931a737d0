// The provider presets, the package entry's `models`: each makes run()'s `model` for one
// provider, sending with fetch what the provider requires and retrying what may pass on another
// attempt (preset.ts holds what they share, retry.ts when and how long to wait).

export { openaiChat, openaiResponses, openaiCompatible } from './openai.js'
export { anthropic } from './anthropic.js'
export { gemini } from './gemini.js'
export { mistral } from './mistral.js'
