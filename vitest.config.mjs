import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.ts'],
    // The native module is loaded once per worker process.
    pool: 'forks',
    testTimeout: 20_000,
  },
})
