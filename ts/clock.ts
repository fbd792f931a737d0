// The clock toolwire follows: the one JavaScript sees, `performance.now()` for deadlines and
// durations and `Date.now()` for timestamps, read at every crossing so that fake timers move it.
// Read through here: a clock replaced by something that reads as no time fails clearly instead
// of stopping every deadline.

import { ToolwireError, describe } from './common.js'

/** The longest delay setTimeout honours, in ms (a longer one fires at once). */
export const MAX_TIMER_MS = 0x7fffffff

/**
 * `performance.now()`. Deadlines follow it, so a reading that is not a finite number (a mock
 * gone wrong) throws a ToolwireError (PRECONDITION_FAILED) naming it: no deadline could ever
 * come due on such a clock.
 */
export function monotonicNow(): number {
  const reading: unknown = performance.now()
  if (typeof reading !== 'number' || !Number.isFinite(reading)) {
    throw new ToolwireError(
      'PRECONDITION_FAILED',
      `performance.now() returned ${describe(reading)}: toolwire's deadlines follow it, so it must return a finite number (check a fake clock's setup)`,
    )
  }
  return reading
}

/** `Date.now()`, or NaN when it is not a number: only timestamps follow it (read as 0 then). */
export function wallNow(): number {
  const reading: unknown = Date.now()
  return typeof reading === 'number' ? reading : Number.NaN
}
