// Conformance with the recorded Chat Completions streams (OpenAI and compatible servers).
import { conformance } from './conformance.js'
import { describeWithFixtures, loadFixtures } from './fixtures.js'

describeWithFixtures('Chat Completions streams', () => conformance('Chat Completions streams', loadFixtures().filter((r) => r.wire === 'openai-chat')))
