#!/usr/bin/env node
// The admin command line: runs src/cli/main.ts through tsx, so no build step is needed.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tsx = createRequire(import.meta.url).resolve('tsx/cli')
const result = spawnSync(process.execPath, [tsx, join(root, 'src/cli/main.ts'), ...process.argv.slice(2)], { stdio: 'inherit' })
process.exit(result.status ?? 1)
