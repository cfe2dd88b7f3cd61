#!/usr/bin/env -S node --max-old-space-size=128
// The admin command line: the compiled dist/cli/main.js when dist/ is current (npm install builds it),
// otherwise src/cli/main.ts through tsx, so a checkout being edited needs no build step.
//
// The heap limit on the first line: an import streams, and remembers what it must on disk
// (src/core/spill-map.ts), so 128 MB of V8 heap is room enough; without a limit V8 lets garbage grow
// to several times the live data before it collects (a million-object import peaked at 775 MB).
// `node --max-old-space-size=N bin/bulwark.mjs …` runs with another.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ROOT, isBuildCurrent } from '../scripts/build.mjs'

if (isBuildCurrent()) {
  await import('../dist/cli.mjs')
} else {
  const tsx = createRequire(import.meta.url).resolve('tsx/cli')
  const result = spawnSync(
    process.execPath,
    [...process.execArgv, tsx, join(ROOT, 'src/cli/main.ts'), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
    },
  )
  process.exit(result.status ?? 1)
}
