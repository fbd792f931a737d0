// Conformance with the recorded Anthropic and Gemini streams.
import { conformance } from './conformance.js'
import { loadFixtures } from './fixtures.js'

conformance('Anthropic and Gemini streams', loadFixtures().filter((r) => r.wire === 'anthropic' || r.wire === 'gemini'))
