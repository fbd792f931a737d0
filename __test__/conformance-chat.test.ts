// Conformance with the recorded Chat Completions streams (OpenAI and compatible servers).
import { conformance } from './conformance.js'
import { loadFixtures } from './fixtures.js'

conformance('Chat Completions streams', loadFixtures().filter((r) => r.wire === 'openai-chat'))
