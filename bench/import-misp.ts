/**
 * `bulwark import` of a MISP feed directory: BENCH_MISP_ATTRIBUTES attributes (default 100,000) in
 * events of 5,000 (a manifest and one `<uuid>.json` each, as MISP's feed export writes them: four
 * types of Indicator and one `text` a type no Indicator holds, a comment each, TLP and a tag on the
 * event), imported through the real executable, its peak RSS sampled every 100 ms. Baseline in the
 * same run, on a fresh database of its own: the same Indicators (their dates, comment, uuid, tag and
 * label) as a V2 batch file, imported the same way. Writes bench/results/import-misp.json.
 *
 * Environment: BENCH_DB=sqlite|postgres (default sqlite), BENCH_MISP_ATTRIBUTES, BENCH_POSTGRES_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDatabase } from './lib/postgres.js'
import { ROOT, runCli } from './lib/processes.js'
import { benchDialects, type Dialect } from './lib/dataset.js'

const DIALECTS = benchDialects('sqlite')
const ATTRIBUTES = Number(process.env.BENCH_MISP_ATTRIBUTES ?? 100_000)
const PER_EVENT = 5_000
const RSS_LIMIT_MB = 256
const TARGET = 0.5

const TYPES: [misp: string, bulwark: string | undefined][] = [
  ['ip-dst', 'Address'],
  ['domain', 'Host'],
  ['sha256', 'File'],
  ['url', 'URL'],
  ['text', undefined],
]

function valueOf(type: string, event: number, i: number): string {
  switch (type) {
    case 'ip-dst':
      return `10.${event}.${(i >> 8) & 255}.${i & 255}`
    case 'domain':
      return `h${i}.e${event}.example`
    case 'sha256':
      return (event * 10_000_000 + i).toString(16).padStart(64, '0')
    case 'url':
      return `http://u${i}.e${event}.example/p?q=${i}`
    default:
      return `note ${i}`
  }
}

const uuidOf = (event: number, i: number) =>
  `${event.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`

/** The feed directory and the equivalent V2 batch file. */
function writeInputs(work: string): { feed: string; batch: string; indicators: number } {
  const feed = join(work, 'feed')
  mkdirSync(feed)
  const manifest: Record<string, unknown> = {}
  const batch: unknown[] = []
  const events = Math.ceil(ATTRIBUTES / PER_EVENT)
  for (let e = 1; e <= events; e++) {
    const uuid = uuidOf(e, 0)
    const count = Math.min(PER_EVENT, ATTRIBUTES - (e - 1) * PER_EVENT)
    const tags = [{ name: 'tlp:white' }, { name: 'generated' }]
    const attributes = Array.from({ length: count }, (_, i) => {
      const [type, indicatorType] = TYPES[i % TYPES.length]
      const value = valueOf(type, e, i)
      const attribute = {
        id: String(i),
        type,
        category: 'Network activity',
        to_ids: i % 3 === 0,
        uuid: uuidOf(e, i + 1),
        timestamp: '1600000000',
        comment: `generated attribute ${i} of event ${e}`,
        deleted: false,
        value,
      }
      if (indicatorType)
        batch.push({
          type: indicatorType,
          summary: value,
          active: attribute.to_ids,
          description: attribute.comment,
          source: 'Generator',
          externalDateAdded: '2020-01-01T00:00:00.000Z',
          externalLastModified: '2020-09-13T12:26:40.000Z',
          attribute: [{ type: 'External ID', value: attribute.uuid }],
          tag: [{ name: 'generated' }],
          securityLabel: [{ name: 'TLP:WHITE', color: 'FFFFFF' }],
        })
      return attribute
    })
    const event = {
      id: String(e),
      date: '2020-01-01',
      info: `Generated event ${e}`,
      uuid,
      timestamp: '1600000000',
      threat_level_id: '2',
      analysis: '2',
      Orgc: { id: '1', name: 'Generator' },
      Attribute: attributes,
      Object: [],
      Tag: tags,
    }
    writeFileSync(join(feed, `${uuid}.json`), JSON.stringify({ Event: event }, null, 1))
    manifest[uuid] = { Orgc: event.Orgc, Tag: tags, info: event.info, date: event.date, timestamp: 1600000000 }
  }
  writeFileSync(join(feed, 'manifest.json'), JSON.stringify(manifest))
  const file = join(work, 'batch.json')
  writeFileSync(file, JSON.stringify({ indicator: batch }))
  return { feed, batch: file, indicators: batch.length }
}

interface Run {
  seconds: number
  peakRssMb: number
  result: { items: number; jobs: number; successCount: number; errorCount: number }
}

/** One `bulwark import … --json` with its own data directory (and database), its RSS sampled as it runs. */
async function importOnce(dialect: Dialect, input: string, work: string, name: string): Promise<Run> {
  const database = dialect === 'postgres' ? await createDatabase(`bulwark_import_${name}`) : undefined
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BULWARK_'))),
    BULWARK_DATA_DIR: join(work, `${dialect}-${name}`),
    ...(database ? { BULWARK_DATABASE_URL: database.url } : {}),
  }
  try {
    const run = await runCli(['import', input, '--owner', 'Default Organization', '--json'], env)
    if (run.status !== 0) throw new Error(`bulwark import ${input} exited ${run.status}: ${run.stderr || run.stdout}`)
    return { seconds: run.seconds, peakRssMb: run.peakRssMb, result: JSON.parse(run.stdout) as Run['result'] }
  } finally {
    await database?.drop()
  }
}

const round = (n: number) => Math.round(n * 100) / 100

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-bench-misp-'))
  try {
    const inputs = writeInputs(work)
    const rows = []
    for (const dialect of DIALECTS) {
      // The baseline first: a build the CLI makes on its first run is not charged to the MISP import.
      const batch = await importOnce(dialect, inputs.batch, work, 'batch')
      const misp = await importOnce(dialect, inputs.feed, work, 'misp')
      const row = {
        dialect,
        attributes: ATTRIBUTES,
        indicators: inputs.indicators,
        misp: { ...misp, indicatorsPerSecond: Math.round(inputs.indicators / misp.seconds) },
        batch: { ...batch, indicatorsPerSecond: Math.round(inputs.indicators / batch.seconds) },
        ratio: round(batch.seconds / misp.seconds),
        target: TARGET,
        rssLimitMb: RSS_LIMIT_MB,
        pass: batch.seconds / misp.seconds >= TARGET && misp.peakRssMb < RSS_LIMIT_MB,
      }
      console.log(
        `${dialect}: MISP feed ${round(misp.seconds)} s, ${misp.peakRssMb} MB; V2 batch file ${round(batch.seconds)} s, ${batch.peakRssMb} MB; ratio ${row.ratio} (target ≥ ${TARGET}, RSS < ${RSS_LIMIT_MB} MB)`,
      )
      rows.push(row)
    }
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
    writeFileSync(
      join(ROOT, 'bench', 'results', 'import-misp.json'),
      `${JSON.stringify({ date: new Date().toISOString(), cpus: cpus().length, loadavg: loadavg(), rows }, null, 2)}\n`,
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
