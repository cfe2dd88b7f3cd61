import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

// Every test file runs twice: once on SQLite, once on PostgreSQL.
export default defineConfig({
  test: {
    pool: 'forks',
    // At least two test files at a time: they wait on PostgreSQL, child servers and Chromium much of the time, and
    // Vitest's default (one fewer than the cores) ran one at a time on a 2-core machine (27 minutes, not 16).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'console/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './src/test/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'sqlite', env: { BULWARK_TEST_DB: 'sqlite' } } },
      { extends: true, test: { name: 'postgres', env: { BULWARK_TEST_DB: 'postgres' } } },
    ],
  },
})
