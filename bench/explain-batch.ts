/**
 * The plans of every statement a batch job runs, on the realistic dataset as `npm run bench -- batch` leaves it
 * (BENCH_INDICATORS, default 1,000,000 as there; the statistics are those the server gathered while loading it), on
 * SQLite (EXPLAIN QUERY PLAN) and PostgreSQL (EXPLAIN). One more job is sent as the load's next one would be
 * (2,000 items of the largest owner: nine in ten new Indicators, one in ten re-sending a stored one, attributes
 * Replace) to a server on a private copy whose worker is off; the job then runs in this process while the
 * drivers record each statement (src/test/statement-plans.ts), and each distinct statement is explained on the
 * copy. Writes the table between the `batch-plans` markers of docs/benchmarks.md.
 *
 * Run: `npm run bench -- explain` (after `npm run bench -- batch` with the same BENCH_INDICATORS, or it loads the
 * dataset first). Environment: BENCH_DB, BENCH_INDICATORS.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServices } from '../src/domain/services.js'
import { openStore } from '../src/store/connect.js'
import {
  type CapturedStatement,
  captureStatements,
  explain,
  installStatementCapture,
  isPlannable,
  shapeOf,
} from '../src/test/statement-plans.js'
import { runPendingJobs } from '../src/worker/batch-worker.js'
import { type Dialect, call, defaultIndicators, startDatasetServer, benchDialects } from './lib/dataset.js'
import { ROOT } from './lib/processes.js'
import { UPDATE_EVERY, realisticGroupCount, realisticIndicator, realisticItemJson } from './lib/realistic.js'

installStatementCapture()

const DIALECTS = benchDialects('sqlite,postgres')
const INDICATORS = defaultIndicators()
const ITEMS = 2000
const BEGIN = '<!-- batch-plans:begin -->'
const END = '<!-- batch-plans:end -->'

interface Explained {
  shape: string
  lines: string[]
  /** Executions in the job and their milliseconds together. */
  runs: number
  ms: number
}

async function plansOn(dialect: Dialect, work: string): Promise<Explained[]> {
  const ds = await startDatasetServer({ dialect, shape: 'realistic', indicators: INDICATORS }, work, {
    env: { BULWARK_BATCH_WORKER: 'off' },
  })
  try {
    const owner = ds.manifest.owners[0]!
    const groups = realisticGroupCount(owner.indicators)
    const items = Array.from({ length: ITEMS }, (_, k) =>
      realisticItemJson(
        k % UPDATE_EVERY === UPDATE_EVERY - 1
          ? realisticIndicator(0, (k * 7919) % owner.indicators, groups, 9)
          : realisticIndicator(0, owner.indicators + k, groups),
      ),
    )
    const created = await call(
      ds.port,
      ds.credentials.token,
      'POST',
      '/api/v2/batch',
      JSON.stringify({
        version: 'V2',
        owner: owner.name,
        haltOnError: false,
        action: 'Create',
        attributeWriteType: 'Replace',
      }),
    )
    if (created.status !== 201) throw new Error(`POST /v2/batch: ${created.status} ${JSON.stringify(created.json)}`)
    const id = created.json.data.batchId
    const uploaded = await call(
      ds.port,
      ds.credentials.token,
      'POST',
      `/api/v2/batch/${id}`,
      `{"indicator":[${items.join(',')}]}`,
      'application/octet-stream',
    )
    if (uploaded.status !== 202) throw new Error(`upload: ${uploaded.status}`)
    await ds.server.stop()
    const store = openStore(ds.databaseUrl)
    try {
      const services = createServices(store, { serverKey: 'explain', publicUrl: ds.url })
      const captured = await captureStatements(() => runPendingJobs(store, services))
      const byShape = new Map<string, CapturedStatement>()
      const spent = new Map<string, { runs: number; ms: number }>()
      for (const statement of captured) {
        if (!isPlannable(statement.sql) || /\bbatch_(job|input|error)\b/.test(statement.sql)) continue
        const shape = shapeOf(statement.sql)
        const known = byShape.get(shape)
        if (!known || known.parameters.length < statement.parameters.length) byShape.set(shape, statement)
        const s = spent.get(shape) ?? { runs: 0, ms: 0 }
        spent.set(shape, { runs: s.runs + 1, ms: s.ms + (statement.ms ?? 0) })
      }
      const out: Explained[] = []
      for (const [shape, statement] of byShape)
        out.push({ shape, lines: (await explain(store, statement)).lines, ...spent.get(shape)! })
      return out
    } finally {
      await store.close()
    }
  } finally {
    await ds.close()
  }
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, '<br>')
const short = (shape: string) => (shape.length > 220 ? `${shape.slice(0, 220)}…` : shape)

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-explain-'))
  const plans = new Map<Dialect, Explained[]>()
  try {
    for (const dialect of DIALECTS) plans.set(dialect, await plansOn(dialect, work))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  const shapes = [...new Set([...plans.values()].flatMap((list) => list.map((p) => p.shape)))]
  const planOf = (dialect: Dialect, shape: string) =>
    plans
      .get(dialect)
      ?.find((p) => p.shape === shape)
      ?.lines.map((l) => `\`${l.trim().replace(/'\{[^}]*\}'/g, "'{…}'")}\``)
      .join('<br>') ?? '—'
  const timeOf = (dialect: Dialect, shape: string) => {
    const p = plans.get(dialect)?.find((x) => x.shape === shape)
    return p ? `${p.ms.toFixed(1)} (${p.runs})` : '—'
  }
  const rows = shapes.map(
    (shape) =>
      `| \`${cell(short(shape))}\` | ${cell(planOf('sqlite', shape))} | ${timeOf('sqlite', shape)} | ${cell(planOf('postgres', shape))} | ${timeOf('postgres', shape)} |`,
  )
  const table = [
    `Generated by \`npm run bench -- explain\` (${new Date().toISOString().slice(0, 10)}): a job of ${ITEMS} items run after the ${INDICATORS.toLocaleString('en')}-Indicator realistic load, each distinct statement (lists folded to \`(?…)\`, CASE arms to \`when …\`) with its plan on the loaded store and the milliseconds its executions took in that job together (measured at the driver, one run on a shared machine: read as shares, not as figures). A dash: the statement does not occur on that database (its text differs there).`,
    '',
    '| statement | SQLite `EXPLAIN QUERY PLAN` | ms (runs) | PostgreSQL `EXPLAIN` | ms (runs) |',
    '|---|---|---:|---|---:|',
    ...rows,
  ].join('\n')
  const file = join(ROOT, 'docs', 'benchmarks.md')
  const doc = readFileSync(file, 'utf8')
  const at = doc.indexOf(BEGIN)
  const end = doc.indexOf(END)
  if (at < 0 || end < at) throw new Error(`docs/benchmarks.md has no ${BEGIN} … ${END} section`)
  writeFileSync(file, `${doc.slice(0, at + BEGIN.length)}\n${table}\n${doc.slice(end)}`)
  console.log(`${shapes.length} statements; written: docs/benchmarks.md (${BEGIN})`)
}
