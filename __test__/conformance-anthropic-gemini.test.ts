// Conformance with the recorded Anthropic and Gemini streams.
import { conformance } from './conformance.js'
import { describeWithFixtures, loadFixtures } from './fixtures.js'

describeWithFixtures('Anthropic and Gemini streams', () => conformance('Anthropic and Gemini streams', loadFixtures().filter((r) => r.wire === 'anthropic' || r.wire === 'gemini')))
