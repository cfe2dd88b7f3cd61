// `npm start`: the server from compiled JavaScript (dist/main.js), built first when src/ is newer
// than the last build. No TypeScript transpiler runs in the serving process.
import { ensureBuilt } from './build.mjs'

try {
  ensureBuilt()
} catch (error) {
  console.error(`Bulwark could not start: ${error.message}`)
  process.exit(1)
}
await import('../dist/main.mjs')
