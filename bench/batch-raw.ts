/**
 * The baseline of the batch benchmark: how fast the database takes the same rows (Indicator,
 * tag link, attribute of every owner) straight from the driver, with prepared multi-row INSERTs
 * in one transaction and nothing else (no parsing, validation, look-ups or HTTP); making the
 * rows in JavaScript is not timed.
 */
import { prepareDatabase } from '../src/bootstrap.js'
import { NEW_INDICATOR_COLUMNS } from '../src/domain/indicators/write.js'
import { openStore } from '../src/store/connect.js'
import { readCpuMicros } from './lib/processes.js'

const ROWS_PER_STATEMENT = 500
const TAG_LINK_COLUMNS = ['tag_id', 'item_kind', 'item_id', 'date_added']
const ATTRIBUTE_COLUMNS = [
  'owner_id',
  'item_kind',
  'item_id',
  'type_id',
  'value',
  'displayed',
  'pinned',
  'source',
  'created_by',
  'date_added',
  'last_modified',
]

interface BenchIndicator {
  type: string
  summary: string
  /** value1..value3 where they differ from (summary, null, null): a File's hashes. */
  values?: [string | null, string | null, string | null]
  rating: number
  confidence: number
  tag: { name: string }[]
  attribute: { type: string; value: string }[]
}

/** The owners of a dataset, each with its Indicator count; Indicator i of owner o is make(o, i). */
export interface RawOwner {
  name: string
  indicators: number
}

function insertSql(table: string, columns: readonly string[], rows: number, postgres: boolean, returning = '') {
  let n = 0
  const tuple = () => `(${columns.map(() => (postgres ? `$${++n}` : '?')).join(', ')})`
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, tuple).join(', ')}${returning}`
}

/**
 * Inserts the owners' Indicators (each with its tag link and attribute) straight through the
 * driver into a migrated, empty database, owner after owner, and times the inserts alone.
 * Rows are made one statement's worth at a time, as a streaming writer would.
 */
export async function measureRawInserts(
  url: string,
  owners: readonly RawOwner[],
  make: (o: number, i: number) => BenchIndicator,
): Promise<{ seconds: number; cpuSeconds: number }> {
  const store = openStore(url)
  try {
    await prepareDatabase(store)
    const now = new Date().toISOString()
    const attributeTypes = new Map(
      (await store.db.selectFrom('attribute_type').select(['id', 'name']).execute()).map((r) => [r.name, r.id]),
    )
    const ownerIds: number[] = []
    const tagIds: Map<string, number>[] = []
    for (const [o, owner] of owners.entries()) {
      const row = await store.db
        .insertInto('owner')
        .values({ name: `Raw ${owner.name}`, type: 'Organization', description: null, date_added: now })
        .returning('id')
        .executeTakeFirstOrThrow()
      ownerIds.push(row.id)
      const names = new Set<string>()
      for (let i = 0; i < Math.min(owner.indicators, 1000); i++) names.add(make(o, i).tag[0].name)
      const tags = new Map<string, number>()
      for (const name of names) {
        const tag = await store.db
          .insertInto('tag')
          .values({ owner_id: row.id, name, description: null, technique_id: null, date_added: now, last_used: now })
          .returning('id')
          .executeTakeFirstOrThrow()
        tags.set(name, tag.id)
      }
      tagIds.push(tags)
    }
    // The columns the row writer inserts (domain/indicators/write.ts), each unset one null.
    const indicatorValues = (o: number) => (it: BenchIndicator) => {
      const row: Record<string, unknown> = {
        owner_id: ownerIds[o],
        type: it.type,
        summary: it.summary,
        value1: it.values ? it.values[0] : it.summary,
        value2: it.values?.[1] ?? null,
        value3: it.values?.[2] ?? null,
        rating: it.rating,
        confidence: it.confidence,
        private_flag: 0,
        active: 1,
        active_locked: 0,
        dns_active: 0,
        whois_active: 0,
        created_by: 1,
        date_added: now,
        last_modified: now,
      }
      return NEW_INDICATOR_COLUMNS.map((column) => row[column] ?? null)
    }
    const tagValues = (o: number, chunk: BenchIndicator[], ids: number[]) =>
      chunk.flatMap((it, k) => [tagIds[o].get(it.tag[0].name), 'indicator', ids[k], now])
    const attributeValues = (o: number, chunk: BenchIndicator[], ids: number[]) =>
      chunk.flatMap((it, k) => [
        ownerIds[o],
        'indicator',
        ids[k],
        attributeTypes.get(it.attribute[0].type),
        it.attribute[0].value,
        0,
        0,
        null,
        1,
        now,
        now,
      ])
    function* chunks(): Generator<[number, BenchIndicator[]]> {
      for (const [o, owner] of owners.entries()) {
        for (let i = 0; i < owner.indicators; i += ROWS_PER_STATEMENT) {
          yield [
            o,
            Array.from({ length: Math.min(ROWS_PER_STATEMENT, owner.indicators - i) }, (_, k) => make(o, i + k)),
          ]
        }
      }
    }
    let seconds = 0
    /** This process's CPU over the timed parts, plus (PostgreSQL) the backend's. */
    let cpuMicros = 0
    const cpuNow = () => {
      const u = process.cpuUsage()
      return u.user + u.system
    }
    if (store.sqlite) {
      const db = store.sqlite
      const statements = new Map<number, { ind: any; tag: any; attr: any }>()
      const prepared = (n: number) => {
        if (!statements.has(n)) {
          statements.set(n, {
            ind: db.prepare(insertSql('indicator', NEW_INDICATOR_COLUMNS, n, false, ' RETURNING id')),
            tag: db.prepare(insertSql('item_tag', TAG_LINK_COLUMNS, n, false)),
            attr: db.prepare(insertSql('attribute', ATTRIBUTE_COLUMNS, n, false)),
          })
        }
        return statements.get(n)!
      }
      const write = (o: number, chunk: BenchIndicator[]) => {
        const s = prepared(chunk.length)
        const ids = (s.ind.all(chunk.flatMap(indicatorValues(o))) as { id: number }[]).map((r) => r.id)
        s.tag.run(tagValues(o, chunk, ids))
        s.attr.run(attributeValues(o, chunk, ids))
      }
      db.exec('BEGIN')
      try {
        for (const [o, chunk] of chunks()) {
          const started = performance.now()
          const cpu = cpuNow()
          write(o, chunk)
          cpuMicros += cpuNow() - cpu
          seconds += (performance.now() - started) / 1000
        }
        const started = performance.now()
        const cpu = cpuNow()
        db.exec('COMMIT')
        cpuMicros += cpuNow() - cpu
        seconds += (performance.now() - started) / 1000
      } catch (error) {
        db.exec('ROLLBACK')
        throw error
      }
    } else {
      const client = await store.pool!.connect()
      try {
        const backend = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number
        const backendBefore = readCpuMicros(backend) ?? 0
        await client.query('BEGIN')
        for (const [o, chunk] of chunks()) {
          const started = performance.now()
          const cpu = cpuNow()
          const n = chunk.length
          const ids = (
            await client.query({
              name: `raw_ind_${n}`,
              text: insertSql('indicator', NEW_INDICATOR_COLUMNS, n, true, ' RETURNING id'),
              values: chunk.flatMap(indicatorValues(o)),
            })
          ).rows.map((r) => r.id)
          await client.query({
            name: `raw_tag_${n}`,
            text: insertSql('item_tag', TAG_LINK_COLUMNS, n, true),
            values: tagValues(o, chunk, ids),
          })
          await client.query({
            name: `raw_attr_${n}`,
            text: insertSql('attribute', ATTRIBUTE_COLUMNS, n, true),
            values: attributeValues(o, chunk, ids),
          })
          cpuMicros += cpuNow() - cpu
          seconds += (performance.now() - started) / 1000
        }
        const started = performance.now()
        await client.query('COMMIT')
        seconds += (performance.now() - started) / 1000
        cpuMicros += (readCpuMicros(backend) ?? backendBefore) - backendBefore
      } finally {
        client.release()
      }
    }
    return { seconds, cpuSeconds: cpuMicros / 1e6 }
  } finally {
    await store.close()
  }
}
