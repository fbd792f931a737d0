import { configDefaults, defineConfig } from 'vitest/config'

/** Runs in both pools: the engine's clock must follow fake timers in worker threads and in forks. */
const CLOCK = '__test__/clock.test.ts'

export default defineConfig({
  test: {
    testTimeout: 20_000,
    projects: [
      {
        extends: true,
        // The native module is loaded once per worker process.
        test: { name: 'toolwire', include: ['__test__/**/*.test.ts'], exclude: [...configDefaults.exclude, CLOCK], pool: 'forks' },
      },
      { extends: true, test: { name: 'clock (threads)', include: [CLOCK], pool: 'threads', env: { TOOLWIRE_CLOCK_POOL: 'threads' } } },
      { extends: true, test: { name: 'clock (forks)', include: [CLOCK], pool: 'forks', env: { TOOLWIRE_CLOCK_POOL: 'forks' } } },
    ],
  },
})
