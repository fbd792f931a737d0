import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import type { ToolResult } from '../dist/index.js'

const script = join(__dirname, 'scenarios', 'exit.cjs')

/** Runs a scenario in a fresh Node process; it must exit by itself, well before the kill timer. */
function scenario(name: string): unknown {
  const child = spawnSync(process.execPath, [script, name], { encoding: 'utf8', timeout: 10_000 })
  expect(child.signal, `${name} had to be killed: a handle was left open`).toBeNull()
  expect(child.status, `${name} exited with ${child.status}: ${child.stderr}`).toBe(0)
  return JSON.parse(child.stdout)
}

const cases: [string, Partial<ToolResult> & { text?: string }][] = [
  ['syncThrow', { status: 'error', text: 'sync boom' }],
  ['rejectError', { status: 'error', text: 'async boom' }],
  ['rejectValue', { status: 'error', text: 'non-Error value: 42' }],
  ['neverSettles', { status: 'timeout' }],
  ['neverSettlesWithSignal', { status: 'timeout' }],
  ['settlesLate', { status: 'timeout' }],
  ['nonPromise', { status: 'ok', text: 'plain value' }],
  ['nothing', { status: 'ok', text: '(no output)' }],
  ['cyclic', { status: 'error' }],
  ['unknownTool', { status: 'error' }],
  ['unregisteredInFlight', { status: 'ok', text: 'slow' }],
  ['alreadyAborted', { status: 'cancelled' }],
  ['hookNeverAnswers', { status: 'blocked' }],
]

describe('every way a call can end gives exactly one result, and the process exits by itself', () => {
  for (const [name, expected] of cases) {
    it(name, () => {
      const results = scenario(name) as ToolResult[]
      expect(results).toHaveLength(1)
      const { text, ...fields } = expected
      expect(results[0]).toMatchObject(fields)
      if (text !== undefined) expect((results[0].content[0] as { text: string }).text).toContain(text)
    })
  }

  it('twoDispatches', () => {
    const results = scenario('twoDispatches') as ToolResult[]
    expect(results.map((r) => [r.callId, r.status])).toEqual([
      ['a', 'ok'],
      ['b', 'ok'],
    ])
  })

  it('abortMidFlight', () => {
    const results = scenario('abortMidFlight') as ToolResult[]
    expect(results.map((r) => [r.status, r.error?.code])).toEqual([
      ['cancelled', 'CANCELLED'],
      ['cancelled', 'CANCELLED'],
    ])
  })

  it('a panic in the engine becomes a thrown INTERNAL_ERROR, never a crash', () => {
    // The code crosses as data (`err.code`, set natively); the message is the engine's own.
    const [panic, after] = scenario('panic') as [string, string][]
    expect(panic[0]).toBe('INTERNAL_ERROR')
    expect(panic[1]).toMatch(/^toolwire internal error .*deliberate panic/)
    expect(after[0]).toBe('INTERNAL_ERROR')
    expect(after[1]).toMatch(/^this runtime stopped after an earlier internal error/)
  })
})

describe("the driver's one timer, kept between dispatches (run with --expose-gc)", () => {
  /** Runs a scenario of scenarios/gc.cjs; it must end by itself. */
  function gcScenario(name: string): unknown {
    const child = spawnSync(process.execPath, ['--expose-gc', join(__dirname, 'scenarios', 'gc.cjs'), name], { encoding: 'utf8', timeout: 10_000 })
    expect(child.status, `${name} exited with ${child.status} (${child.signal}): ${child.stderr}`).toBe(0)
    return JSON.parse(child.stdout)
  }

  it("holds a runtime nothing else holds while a deadline is pending, so a hanging tool's call still ends", () => {
    expect(gcScenario('hangingDropped')).toBe('timeout')
  })

  it('lets a dropped runtime whose dispatches ended be collected before its idle timer fires', () => {
    expect(gcScenario('idleDropped')).toBe('collected')
  })
})
