// Fresh ids for runs, dispatches and calls that came without one: `<prefix>_<time>_<counter>`,
// one counter for the process, so no two ids it makes are equal.

let counter = 0

/** A fresh id: `<prefix>_<time in base 36>_<counter in base 36>`. */
export function freshId(prefix: string): string {
  counter = (counter + 1) % 0x100000000
  return `${prefix}_${Date.now().toString(36)}_${counter.toString(36)}`
}
