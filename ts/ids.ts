// Fresh ids for runs, dispatches and calls that came without one: `<prefix>_<time>_<counter>`,
// one counter for the process, so no two ids it makes are equal.

import { wallNow } from './clock.js'

let counter = 0
/** The last wall-clock reading (`wallNow`), and its base-36 text (most ids of a millisecond share it) */
let lastTime = Number.NaN
let lastTimeText = ''

/** A fresh id: `<prefix>_<time in base 36>_<counter in base 36>`. */
export function freshId(prefix: string): string {
  // (a compare, not `% 2 ** 32`: a modulo by a number beyond the small integers is a float division)
  counter = counter === 0xffffffff ? 0 : counter + 1
  const time = wallNow()
  if (time !== lastTime) {
    lastTime = time
    lastTimeText = time.toString(36)
  }
  return `${prefix}_${lastTimeText}_${counter.toString(36)}`
}
