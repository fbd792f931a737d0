// Each wire's encoder of scripted turns, by wire.

import type { Wire } from '../../types.js'
import { ANTHROPIC } from './anthropic.js'
import type { WireEncoder } from './event.js'
import { GEMINI } from './gemini.js'
import { MISTRAL } from './mistral.js'
import { OPENAI_CHAT } from './openai-chat.js'
import { OPENAI_RESPONSES } from './openai-responses.js'

export type { WireEncoder, WireEvent } from './event.js'

/** The encoder of each wire. */
export const ENCODERS: Readonly<Record<Wire, WireEncoder>> = Object.freeze({
  'openai-chat': OPENAI_CHAT,
  'openai-responses': OPENAI_RESPONSES,
  anthropic: ANTHROPIC,
  gemini: GEMINI,
  mistral: MISTRAL,
})
