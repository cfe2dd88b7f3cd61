// The compiled server in dist/ (ignored by git): src/main.ts and src/cli/main.ts bundled by esbuild, and the
// console (console/, Preact) built by Vite into dist/console, which the server serves at `/`.
// `npm install` builds it (prepare); `npm start` and the CLI rebuild it first when src/ changed since.
// Run directly (`node scripts/build.mjs`) it builds when the output is missing or stale.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const DIST = join(ROOT, 'dist')
/** Written after a build succeeds: its time is the time of the sources the output reflects. */
const STAMP = join(DIST, '.built')
const LOCK = join(ROOT, '.dist-build-lock')
// Not the lockfile: npm may write it after prepare has built, and an install that changes dependencies builds anyway.
const INPUTS = ['package.json', 'scripts/build.mjs']

const SOURCE_FILE = /\.(ts|tsx|css|html|mjs|json)$/

function newestSource(dir, newest = 0) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) newest = newestSource(path, newest)
    else if (SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

/** Whether dist/ holds a build of the current sources: no source or build setting is newer than the last build. */
export function isBuildCurrent() {
  if (!existsSync(STAMP)) return false
  const built = statSync(STAMP).mtimeMs
  const inputs = INPUTS.map((f) => join(ROOT, f))
    .filter((f) => existsSync(f))
    .map((f) => statSync(f).mtimeMs)
  return Math.max(newestSource(join(ROOT, 'src')), newestSource(join(ROOT, 'console')), ...inputs) <= built
}

/** What is bundled: the server and the admin command line, one file each. */
const ENTRIES = { main: 'src/main.ts', cli: 'src/cli/main.ts' }

/**
 * Builds unless the output is current. Two processes starting at once (test projects, nodes of
 * one checkout) take turns through a lock directory, and the second finds the build done.
 *
 * Each entry becomes one ES module with its dependencies inside (esbuild): Node then reads and
 * compiles one file instead of resolving and loading some 900 (our modules and those of Fastify,
 * Kysely, pg …), which halves the CPU time of a start. Native and optional modules stay outside:
 * better-sqlite3 (a compiled addon found by path) and pg-native (pg's optional binding).
 * Type checking is `npm run typecheck`'s job (and npm test's), not the build's.
 */
export function ensureBuilt({ quiet = false } = {}) {
  if (isBuildCurrent()) return
  withLock(() => {
    if (isBuildCurrent()) return
    const startedAt = Date.now()
    let esbuild
    try {
      esbuild = createRequire(import.meta.url)('esbuild')
    } catch {
      throw new Error(
        'dist/ is missing or older than src/, and esbuild is not installed to build it: run `npm install`',
      )
    }
    // Built beside dist/ and swapped in whole, so a process that found the old build current never reads a half-written file.
    const next = `${DIST}.next-${process.pid}`
    rmSync(next, { recursive: true, force: true })
    esbuild.buildSync({
      entryPoints: Object.entries(ENTRIES).map(([out, entry]) => ({ in: join(ROOT, entry), out })),
      outdir: next,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: ['better-sqlite3', 'pg-native'],
      sourcemap: 'linked',
      logLevel: quiet ? 'error' : 'warning',
      // CommonJS packages inside an ES module still call require (for Node's built-ins, mostly).
      banner: {
        js: "import { createRequire as __bulwarkRequire } from 'node:module'; const require = __bulwarkRequire(import.meta.url);",
      },
    })
    buildConsole(join(next, 'console'), quiet)
    // The stamp takes the time the build started: a source saved during the build makes the next start build again.
    writeFileSync(join(next, '.built'), '')
    utimesSync(join(next, '.built'), startedAt / 1000, startedAt / 1000)
    const old = `${DIST}.old-${process.pid}`
    if (existsSync(DIST)) renameSync(DIST, old)
    renameSync(next, DIST)
    rmSync(old, { recursive: true, force: true })
    if (!quiet)
      console.error(
        `Built dist/ (esbuild, and the console with Vite) in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
      )
  })
}

/**
 * The console: Vite (with the Preact preset) bundles console/ into index.html and content-hashed files
 * under assets/. Vite's API is asynchronous and this build is not, so it runs as a child process.
 */
function buildConsole(outDir, quiet) {
  let vite
  try {
    vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js')
  } catch {
    throw new Error('the console cannot be built: vite is not installed; run `npm install`')
  }
  execFileSync(
    process.execPath,
    [
      vite,
      'build',
      '--config',
      join(ROOT, 'console', 'vite.config.mjs'),
      '--outDir',
      outDir,
      '--logLevel',
      quiet ? 'error' : 'warn',
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  )
}

function withLock(work) {
  const deadline = Date.now() + 10 * 60_000
  for (;;) {
    try {
      mkdirSync(LOCK)
      break
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
      // A lock older than any build is left over from a killed process.
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs > 5 * 60_000)
        rmSync(LOCK, { recursive: true, force: true })
      if (Date.now() > deadline) throw new Error(`waited 10 minutes for ${LOCK}; remove it if no build is running`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250)
    }
  }
  try {
    work()
  } finally {
    rmSync(LOCK, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    ensureBuilt()
  } catch (error) {
    console.error(error.message)
    process.exit(1)
  }
}
