// Conformance with the recorded Responses streams, and the corpus as a whole.
import { expect, it } from 'vitest'

import { conformance } from './conformance.js'
import { describeWithFixtures, loadFixtures } from './fixtures.js'

describeWithFixtures('the recorded corpus', () => {
  const all = loadFixtures()

  it('reads all 55 fixture files of ../shared/fixtures', () => {
    expect(new Set(all.map((r) => r.file)).size).toBe(55)
  })

  conformance('Responses streams', all.filter((r) => r.wire === 'openai-responses'))
})
