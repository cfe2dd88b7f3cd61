/**
 * Where a V8 CPU profile spends its time: `npx tsx bench/profile-summary.ts <file.cpuprofile>`.
 * Self time per function and per source file (node_modules grouped by package), so a
 * benchmark's profile (BENCH_CPU_PROF=1) reads in one screen. Idle time is shown, not hidden.
 */
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

const file = process.argv[2]
if (!file) {
  console.error('usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [rows]')
  process.exit(2)
}
const rows = Number(process.argv[3] ?? 25)
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const nodes = new Map(profile.nodes.map((n) => [n.id, n]))

function place(url: string): string {
  const inModules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)
  if (inModules) return inModules[1]
  return url.replace(/^file:\/\//, '').replace(/^.*?\/(src|bench)\//, '$1/') || '(native)'
}

const byFunction = new Map<string, number>()
const byPlace = new Map<string, number>()
let total = 0
profile.samples.forEach((id, i) => {
  const micros = profile.timeDeltas[i] ?? 0
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame
  const where = place(url)
  const name = `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros)
  const bucket = url ? where : functionName
  byPlace.set(bucket, (byPlace.get(bucket) ?? 0) + micros)
  total += micros
})

function print(title: string, table: Map<string, number>) {
  console.log(`\n${title}`)
  for (const [name, micros] of [...table].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${((100 * micros) / total).toFixed(1).padStart(6)} %  ${name}`)
  }
}

console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`)
print('self time by function', byFunction)
print('self time by file or package', byPlace)
