// The seeded generator of the toolkit's random choices (faultyStream's split places), exported so
// a test derives its own cases the same way: one seed, one sequence, on every machine.

/**
 * A deterministic generator of numbers in [0, 1) from `seed` (mulberry32): the same seed gives
 * the same sequence everywhere, so a failing case is replayed by its seed.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
