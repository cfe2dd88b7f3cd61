#!/usr/bin/env node
// The admin command line: the compiled dist/cli/main.js when dist/ is current (npm install builds it),
// otherwise src/cli/main.ts through tsx, so a checkout being edited needs no build step.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ROOT, isBuildCurrent } from '../scripts/build.mjs'

if (isBuildCurrent()) {
  await import('../dist/cli.mjs')
} else {
  const tsx = createRequire(import.meta.url).resolve('tsx/cli')
  const result = spawnSync(process.execPath, [tsx, join(ROOT, 'src/cli/main.ts'), ...process.argv.slice(2)], {
    stdio: 'inherit',
  })
  process.exit(result.status ?? 1)
}
