/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name>` runs one. Each module
 * starts what it measures as child processes and writes bench/results/<name>.json.
 */
const BENCHMARKS: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  auth: () => import('./auth.js'),
  batch: () => import('./batch.js'),
  import: () => import('./import.js'),
  'import-misp': () => import('./import-misp.js'),
  explain: () => import('./explain-batch.js'),
  start: () => import('./start.js'),
  console: () => import('./console.js'),
  'v3-object': () => import('./v3-object.js'),
  pgbouncer: () => import('./pgbouncer.js'),
  tql: () => import('./tql.js'),
  taxii11: () => import('./taxii11.js'),
  taxii21: () => import('./taxii21.js'),
  lists: () => import('./lists.js'),
  'read-while-write': () => import('./read-while-write.js'),
}

const asked = process.argv.slice(2)
const unknown = asked.filter((name) => !(name in BENCHMARKS))
if (unknown.length) {
  console.error(`Unknown benchmark: ${unknown.join(', ')}. Known: ${Object.keys(BENCHMARKS).join(', ')}`)
  process.exit(2)
}
for (const name of asked.length ? asked : Object.keys(BENCHMARKS)) {
  console.log(`== ${name}`)
  await (await BENCHMARKS[name]()).run()
}
