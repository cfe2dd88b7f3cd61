import { defineConfig } from 'vitest/config'

// Every test file runs twice: once on SQLite, once on PostgreSQL.
export default defineConfig({
  test: {
    pool: 'forks',
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
