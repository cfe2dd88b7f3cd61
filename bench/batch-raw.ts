/**
 * The baselines of the batch benchmark: how fast the database takes the same rows (Indicator, tag link, attribute of
 * every new Indicator of the load) straight from the driver, with prepared multi-row INSERTs and nothing else (no
 * parsing, validation, look-ups or HTTP), one transaction per job of the API's load (the same Indicators in the same
 * order: the load's job extents). Making the rows in JavaScript is not timed. Two schemas (issue 28, point 3):
 *
 * - `bulwark`: Bulwark's own, migrated (every index and trigger it has);
 * - `minimal`: the floor any TIP schema pays, tables with only their natural unique keys and one date index:
 *   indicator (id; unique owner, type, value1..value3, '' where absent; date_added), tag (id; unique owner, name),
 *   indicator_tag (primary key indicator, tag), attribute (id; its Indicator, to read an Indicator's attributes).
 */
import { prepareDatabase } from '../src/bootstrap.js'
import { NEW_INDICATOR_COLUMNS } from '../src/domain/indicators/write.js'
import { openStore, type Store } from '../src/store/connect.js'
import type { JobExtent } from './lib/dataset.js'
import { type DiskUsage, diskUsage } from './lib/disk.js'
import { readCpuMicros } from './lib/processes.js'

export type RawSchema = 'bulwark' | 'minimal'

/** Rows a statement inserts at most; a job's remainder goes in statements of powers of two, so few are prepared. */
const ROWS_PER_STATEMENT = 500

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

export interface RawFigures {
  schema: RawSchema
  /** Time in the inserts, BEGIN and COMMIT. */
  seconds: number
  /** This process's CPU over the timed parts, plus (PostgreSQL) the backend's. */
  cpuSeconds: number
  indicators: number
  transactions: number
  disk: DiskUsage
}

/** One table's prepared insert: its columns and the values of one Indicator's row. */
interface RowWriter {
  table: string
  columns: readonly string[]
  values: (o: number, it: BenchIndicator, id: number) => unknown[]
}

interface Target {
  indicator: { table: string; columns: readonly string[]; values: (o: number, it: BenchIndicator) => unknown[] }
  tagLink: RowWriter
  attribute: RowWriter
}

function insertSql(table: string, columns: readonly string[], rows: number, postgres: boolean, returning = '') {
  let n = 0
  const tuple = () => `(${columns.map(() => (postgres ? `$${++n}` : '?')).join(', ')})`
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, tuple).join(', ')}${returning}`
}

const statementRows = (left: number) =>
  left >= ROWS_PER_STATEMENT ? ROWS_PER_STATEMENT : 2 ** Math.floor(Math.log2(left))

/** Every column either schema's indicator row may have, for an Indicator of owner `ownerId`. */
function indicatorRecord(ownerId: number, it: BenchIndicator, now: string): Record<string, unknown> {
  return {
    owner_id: ownerId,
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
}

/** The tag names of an owner, from its first thousand Indicators (the datasets cycle through theirs). */
function tagNames(o: number, owner: RawOwner, make: (o: number, i: number) => BenchIndicator): Set<string> {
  const names = new Set<string>()
  for (let i = 0; i < Math.min(owner.indicators, 1000); i++) names.add(make(o, i).tag[0].name)
  return names
}

/** Bulwark's schema, migrated; owners and tags made through Kysely beforehand (not timed). */
async function bulwarkTarget(
  store: Store,
  owners: readonly RawOwner[],
  make: (o: number, i: number) => BenchIndicator,
  clock: { now: string },
): Promise<Target> {
  await prepareDatabase(store)
  const attributeTypes = new Map(
    (await store.db.selectFrom('attribute_type').select(['id', 'name']).execute()).map((r) => [r.name, r.id]),
  )
  const ownerIds: number[] = []
  const tagIds: Map<string, number>[] = []
  for (const [o, owner] of owners.entries()) {
    const row = await store.db
      .insertInto('owner')
      .values({ name: `Raw ${owner.name}`, type: 'Organization', description: null, date_added: clock.now })
      .returning('id')
      .executeTakeFirstOrThrow()
    ownerIds.push(row.id)
    const tags = new Map<string, number>()
    for (const name of tagNames(o, owner, make)) {
      const tag = await store.db
        .insertInto('tag')
        .values({
          owner_id: row.id,
          name,
          description: null,
          technique_id: null,
          date_added: clock.now,
          last_used: clock.now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      tags.set(name, tag.id)
    }
    tagIds.push(tags)
  }
  return {
    // The columns the row writer inserts (domain/indicators/write.ts), each unset one null.
    indicator: {
      table: 'indicator',
      columns: NEW_INDICATOR_COLUMNS,
      values: (o, it) => {
        const row = indicatorRecord(ownerIds[o]!, it, clock.now)
        return NEW_INDICATOR_COLUMNS.map((column) => row[column] ?? null)
      },
    },
    tagLink: {
      table: 'item_tag',
      columns: ['tag_id', 'item_kind', 'item_id', 'date_added'],
      values: (o, it, id) => [tagIds[o]!.get(it.tag[0].name), 'indicator', id, clock.now],
    },
    attribute: {
      table: 'attribute',
      columns: [
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
      ],
      values: (o, it, id) => [
        ownerIds[o],
        'indicator',
        id,
        attributeTypes.get(it.attribute[0].type),
        it.attribute[0].value,
        0,
        0,
        null,
        1,
        clock.now,
        clock.now,
      ],
    },
  }
}

const MINIMAL_INDICATOR_COLUMNS = [
  'owner_id',
  'type',
  'summary',
  'value1',
  'value2',
  'value3',
  'rating',
  'confidence',
  'date_added',
  'last_modified',
] as const

/** The minimal schema in an empty database: natural unique keys and one date index, nothing else. */
async function minimalTarget(
  store: Store,
  owners: readonly RawOwner[],
  make: (o: number, i: number) => BenchIndicator,
  clock: { now: string },
): Promise<Target> {
  const postgres = store.dialect === 'postgres'
  const id = postgres ? 'id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY' : 'id INTEGER PRIMARY KEY'
  const ddl = [
    `CREATE TABLE tag (${id}, owner_id integer NOT NULL, name text NOT NULL, UNIQUE (owner_id, name))`,
    `CREATE TABLE indicator (${id}, owner_id integer NOT NULL, type text NOT NULL, summary text NOT NULL,
       value1 text NOT NULL, value2 text NOT NULL, value3 text NOT NULL, rating double precision, confidence integer,
       date_added text NOT NULL, last_modified text NOT NULL)`,
    'CREATE UNIQUE INDEX indicator_key ON indicator (owner_id, type, value1, value2, value3)',
    'CREATE INDEX indicator_added ON indicator (date_added)',
    `CREATE TABLE indicator_tag (indicator_id integer NOT NULL, tag_id integer NOT NULL,
       PRIMARY KEY (indicator_id, tag_id))${postgres ? '' : ' WITHOUT ROWID'}`,
    `CREATE TABLE attribute (${id}, indicator_id integer NOT NULL, type_id integer NOT NULL, value text NOT NULL,
       date_added text NOT NULL)`,
    'CREATE INDEX attribute_indicator ON attribute (indicator_id)',
  ]
  const exec = async (text: string, values: unknown[] = []) => {
    if (postgres) return (await store.pool!.query(text, values)).rows
    const statement = store.sqlite!.prepare(text)
    return statement.reader ? statement.all(...values) : (statement.run(...values), [])
  }
  for (const statement of ddl) await exec(statement)
  const tagIds: Map<string, number>[] = []
  for (const [o, owner] of owners.entries()) {
    const tags = new Map<string, number>()
    for (const name of tagNames(o, owner, make)) {
      const rows = (await exec(
        `INSERT INTO tag (owner_id, name) VALUES (${postgres ? '$1, $2' : '?, ?'}) RETURNING id`,
        [o + 1, name],
      )) as { id: number }[]
      tags.set(name, rows[0]!.id)
    }
    tagIds.push(tags)
  }
  const attributeTypes = new Map<string, number>()
  const attributeType = (name: string) => {
    if (!attributeTypes.has(name)) attributeTypes.set(name, attributeTypes.size + 1)
    return attributeTypes.get(name)!
  }
  return {
    indicator: {
      table: 'indicator',
      columns: MINIMAL_INDICATOR_COLUMNS,
      // An absent value is '' rather than NULL, so the key holds for every row on both engines (NULLs are distinct).
      values: (o, it) => {
        const row = indicatorRecord(o + 1, it, clock.now)
        return MINIMAL_INDICATOR_COLUMNS.map((column) => row[column] ?? '')
      },
    },
    tagLink: {
      table: 'indicator_tag',
      columns: ['indicator_id', 'tag_id'],
      values: (o, it, id) => [id, tagIds[o]!.get(it.tag[0].name)],
    },
    attribute: {
      table: 'attribute',
      columns: ['indicator_id', 'type_id', 'value', 'date_added'],
      values: (_o, it, id) => [id, attributeType(it.attribute[0].type), it.attribute[0].value, clock.now],
    },
  }
}

/**
 * Inserts the new Indicators of each job of a load (each with its tag link and attribute) straight through the
 * driver into an empty database of `schema`, one transaction per job, and times the inserts alone. Rows are made one
 * statement's worth at a time, as a streaming writer would, so memory does not grow with the load.
 */
export async function measureRawInserts(
  url: string,
  schema: RawSchema,
  owners: readonly RawOwner[],
  jobs: Iterable<JobExtent>,
  make: (o: number, i: number) => BenchIndicator,
): Promise<RawFigures> {
  const store = openStore(url)
  let indicators = 0
  let transactions = 0
  let seconds = 0
  let cpuMicros = 0
  try {
    // A time of its own for each statement's rows, as the batch job takes one for each chunk it writes.
    const clock = { now: new Date().toISOString() }
    const target = await (schema === 'bulwark' ? bulwarkTarget : minimalTarget)(store, owners, make, clock)
    const { indicator, tagLink, attribute } = target
    const links = (writer: RowWriter, o: number, chunk: BenchIndicator[], ids: number[]) =>
      chunk.flatMap((it, k) => writer.values(o, it, ids[k]!))
    const cpuNow = () => {
      const u = process.cpuUsage()
      return u.user + u.system
    }
    /** Runs `step` inside the timed figures. */
    const timed = async <T>(step: () => T | Promise<T>): Promise<T> => {
      const started = performance.now()
      const cpu = cpuNow()
      const result = await step()
      cpuMicros += cpuNow() - cpu
      seconds += (performance.now() - started) / 1000
      return result
    }
    /** Each statement's rows, made before its timed insert. */
    function* statements(o: number, first: number, created: number): Generator<BenchIndicator[]> {
      for (let done = 0; done < created;) {
        const n = statementRows(created - done)
        clock.now = new Date().toISOString()
        yield Array.from({ length: n }, (_, k) => make(o, first + done + k))
        done += n
      }
    }
    if (store.sqlite) {
      const db = store.sqlite
      const prepared = new Map<number, { ind: any; tag: any; attr: any }>()
      const statementsOf = (n: number) => {
        let s = prepared.get(n)
        if (!s) {
          s = {
            ind: db.prepare(insertSql(indicator.table, indicator.columns, n, false, ' RETURNING id')),
            tag: db.prepare(insertSql(tagLink.table, tagLink.columns, n, false)),
            attr: db.prepare(insertSql(attribute.table, attribute.columns, n, false)),
          }
          prepared.set(n, s)
        }
        return s
      }
      for (const [o, first, created] of jobs) {
        await timed(() => db.exec('BEGIN'))
        try {
          for (const chunk of statements(o, first, created)) {
            await timed(() => {
              const s = statementsOf(chunk.length)
              const ids = (s.ind.all(chunk.flatMap((it) => indicator.values(o, it))) as { id: number }[]).map(
                (r) => r.id,
              )
              s.tag.run(links(tagLink, o, chunk, ids))
              s.attr.run(links(attribute, o, chunk, ids))
            })
            indicators += chunk.length
          }
          await timed(() => db.exec('COMMIT'))
        } catch (error) {
          db.exec('ROLLBACK')
          throw error
        }
        transactions++
      }
    } else {
      const client = await store.pool!.connect()
      try {
        const backend = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number
        const backendBefore = readCpuMicros(backend) ?? 0
        for (const [o, first, created] of jobs) {
          await timed(() => client.query('BEGIN'))
          try {
            for (const chunk of statements(o, first, created)) {
              const n = chunk.length
              await timed(async () => {
                const ids = (
                  await client.query({
                    name: `raw_ind_${n}`,
                    text: insertSql(indicator.table, indicator.columns, n, true, ' RETURNING id'),
                    values: chunk.flatMap((it) => indicator.values(o, it)),
                  })
                ).rows.map((r) => r.id as number)
                await client.query({
                  name: `raw_tag_${n}`,
                  text: insertSql(tagLink.table, tagLink.columns, n, true),
                  values: links(tagLink, o, chunk, ids),
                })
                await client.query({
                  name: `raw_attr_${n}`,
                  text: insertSql(attribute.table, attribute.columns, n, true),
                  values: links(attribute, o, chunk, ids),
                })
              })
              indicators += n
            }
            await timed(() => client.query('COMMIT'))
          } catch (error) {
            await client.query('ROLLBACK')
            throw error
          }
          transactions++
        }
        cpuMicros += (readCpuMicros(backend) ?? backendBefore) - backendBefore
      } finally {
        client.release()
      }
    }
  } finally {
    await store.close()
  }
  return {
    schema,
    seconds,
    cpuSeconds: cpuMicros / 1e6,
    indicators,
    transactions,
    disk: await diskUsage(url, indicators),
  }
}
