// Conformance checks: every recorded provider stream in ../shared/fixtures decodes to the calls in
// expected.json, whether its body arrives whole, in two pieces split at every byte, or in pieces
// split at 200 random places.
import { describe, expect, it } from 'vitest'

import { StreamDecoder, type AssembledTurn } from '../dist/index.js'
import { project, projectExpected, type ExpectedResponse } from './fixtures.js'
import { generator } from './helpers.js'


function decode(expected: ExpectedResponse, pieces: Buffer[]): AssembledTurn {
  const decoder = new StreamDecoder(expected.wire)
  for (const piece of pieces) decoder.push(piece)
  return decoder.finish()
}

function label(r: ExpectedResponse, all: ExpectedResponse[]) {
  return r.part === 0 && !all.some((o) => o.file === r.file && o.part > 0) ? r.file : `${r.file} #${r.part}`
}

/** Defines the conformance tests of the given responses (one Vitest file per group runs in parallel). */
export function conformance(title: string, responses: ExpectedResponse[]) {
  describe(title, () => {
    for (const expected of responses) {
      describe(label(expected, responses), () => {
        const want = projectExpected(expected)

        it('decodes the whole body to the expected calls', () => {
          const turn = decode(expected, [expected.body])
          expect(project(turn, expected)).toEqual(want)
          const ids = turn.toolCalls.map((c) => c.id)
          expect(new Set(ids).size).toBe(ids.length)
          const complete = turn.toolCalls.some((c) => c.complete)
          if (expected.rawStopReason === null) expect(turn.stopReason).toBe('error')
          else if (complete) expect(turn.stopReason).toBe('toolUse')
          for (const call of turn.toolCalls) {
            if (!call.complete) expect(call.error?.code).toMatch(/^(INCOMPLETE_ARGUMENTS|INVALID_JSON)$/)
          }
        })

        it('gives the same calls split into two pieces at every byte', () => {
          const { body } = expected
          for (let at = 1; at < body.length; at++) {
            const got = project(decode(expected, [body.subarray(0, at), body.subarray(at)]), expected)
            if (JSON.stringify(got) !== JSON.stringify(want)) {
              expect(got, `split at byte ${at}`).toEqual(want)
            }
          }
          // One whole decode per byte of the body: seconds for the longest recordings, and more
          // while the suite's other files load both cores.
        }, 120_000)

        it('gives the same calls split at 200 random places', () => {
          const { body } = expected
          const { next } = generator(body.length * 31 + expected.part)
          for (let round = 0; round < 3; round++) {
            const cuts = [...new Set(Array.from({ length: 200 }, () => Math.floor(next() * body.length)))].sort((a, b) => a - b)
            const pieces = [0, ...cuts].map((from, i) => body.subarray(from, cuts[i] ?? body.length))
            expect(project(decode(expected, pieces), expected), `round ${round}, cuts ${cuts.join(',')}`).toEqual(want)
          }
        })
      })
    }
  })
}
