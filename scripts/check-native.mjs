// Fails loudly when a native module did not build, before any test can hide it.
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
try {
  const Database = require('better-sqlite3')
  new Database(':memory:').prepare('select 1').get()
} catch (error) {
  console.error(`better-sqlite3 did not build or load: ${error.message}`)
  process.exit(1)
}
