/**
 * The baseline of the batch benchmark: how fast the database takes the same rows (Indicator,
 * tag link, attribute) straight from the driver, with prepared multi-row INSERTs in one
 * transaction and nothing else (no parsing, validation, look-ups or HTTP).
 */
import { prepareDatabase } from '../src/bootstrap.js'
import { openStore } from '../src/store/connect.js'

const ROWS_PER_STATEMENT = 500
const INDICATOR_COLUMNS = ['owner_id', 'type', 'summary', 'value1', 'value2', 'value3', 'rating', 'confidence', 'description', 'source', 'private_flag',
  'active', 'active_locked', 'dns_active', 'whois_active', 'first_seen', 'last_seen', 'external_date_added', 'external_last_modified',
  'external_date_expires', 'size', 'created_by', 'date_added', 'last_modified']
const TAG_LINK_COLUMNS = ['tag_id', 'item_kind', 'item_id', 'date_added']
const ATTRIBUTE_COLUMNS = ['owner_id', 'item_kind', 'item_id', 'type_id', 'value', 'displayed', 'pinned', 'source', 'created_by', 'date_added', 'last_modified']

interface BenchIndicator {
  type: string
  summary: string
  rating: number
  confidence: number
  tag: { name: string }[]
  attribute: { type: string; value: string }[]
}

function insertSql(table: string, columns: string[], rows: number, postgres: boolean, returning = '') {
  let n = 0
  const tuple = () => `(${columns.map(() => (postgres ? `$${++n}` : '?')).join(', ')})`
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, tuple).join(', ')}${returning}`
}

export async function measureRawInserts(url: string, total: number, make: (i: number) => BenchIndicator): Promise<{ seconds: number }> {
  const store = openStore(url)
  try {
    await prepareDatabase(store)
    const now = new Date().toISOString()
    const owner = await store.db.insertInto('owner').values({ name: 'Raw', type: 'Organization', description: null, date_added: now }).returning('id').executeTakeFirstOrThrow()
    const source = await store.db.selectFrom('attribute_type').select('id').where('name', '=', 'Source').executeTakeFirstOrThrow()
    const tagIds = new Map<string, number>()
    for (let t = 0; t < 100; t++) {
      const row = await store.db.insertInto('tag').values({ owner_id: owner.id, name: `bench-tag-${t}`, description: null, technique_id: null, date_added: now, last_used: now }).returning('id').executeTakeFirstOrThrow()
      tagIds.set(`bench-tag-${t}`, row.id)
    }
    const items = Array.from({ length: total }, (_, i) => make(i))
    const indicatorValues = (it: BenchIndicator) => [owner.id, it.type, it.summary, it.summary, null, null, it.rating, it.confidence, null, null, 0, 1, 0, 0, 0,
      null, null, null, null, null, null, 1, now, now]
    const chunks: BenchIndicator[][] = []
    for (let i = 0; i < items.length; i += ROWS_PER_STATEMENT) chunks.push(items.slice(i, i + ROWS_PER_STATEMENT))
    const started = performance.now()
    if (store.sqlite) {
      const db = store.sqlite
      const statements = new Map<number, { ind: any; tag: any; attr: any }>()
      const prepared = (n: number) => {
        if (!statements.has(n)) {
          statements.set(n, {
            ind: db.prepare(insertSql('indicator', INDICATOR_COLUMNS, n, false, ' RETURNING id')),
            tag: db.prepare(insertSql('item_tag', TAG_LINK_COLUMNS, n, false)),
            attr: db.prepare(insertSql('attribute', ATTRIBUTE_COLUMNS, n, false)),
          })
        }
        return statements.get(n)!
      }
      db.transaction(() => {
        for (const chunk of chunks) {
          const s = prepared(chunk.length)
          const ids = (s.ind.all(chunk.flatMap(indicatorValues)) as { id: number }[]).map((r) => r.id)
          s.tag.run(chunk.flatMap((it, k) => [tagIds.get(it.tag[0].name), 'indicator', ids[k], now]))
          s.attr.run(chunk.flatMap((it, k) => [owner.id, 'indicator', ids[k], source.id, it.attribute[0].value, 0, 0, null, 1, now, now]))
        }
      })()
    } else {
      const client = await store.pool!.connect()
      try {
        await client.query('BEGIN')
        for (const chunk of chunks) {
          const n = chunk.length
          const ids = (await client.query({ name: `raw_ind_${n}`, text: insertSql('indicator', INDICATOR_COLUMNS, n, true, ' RETURNING id'), values: chunk.flatMap(indicatorValues) })).rows.map((r) => r.id)
          await client.query({ name: `raw_tag_${n}`, text: insertSql('item_tag', TAG_LINK_COLUMNS, n, true), values: chunk.flatMap((it, k) => [tagIds.get(it.tag[0].name), 'indicator', ids[k], now]) })
          await client.query({ name: `raw_attr_${n}`, text: insertSql('attribute', ATTRIBUTE_COLUMNS, n, true), values: chunk.flatMap((it, k) => [owner.id, 'indicator', ids[k], source.id, it.attribute[0].value, 0, 0, null, 1, now, now]) })
        }
        await client.query('COMMIT')
      } finally {
        client.release()
      }
    }
    return { seconds: (performance.now() - started) / 1000 }
  } finally {
    await store.close()
  }
}
