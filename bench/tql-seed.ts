/**
 * Seeds the TQL benchmark's data straight into a prepared store, in one transaction with
 * multi-row INSERTs: Indicators spread over the Organization and two Communities the
 * administrator belongs to, ten types' worth of Address/Host/URL/EmailAddress/File values,
 * dates over the last year (newest last), a tag on every fifth, a Description attribute on
 * every tenth, a Group association on every fiftieth, and the needles the queries look for
 * (`rare-tag` on 150 Indicators, `target-group` associated with 120).
 */
import { sql } from 'kysely'
import type { Store } from '../src/store/connect.js'

const CHUNK = 1000
const DAY_MS = 86_400_000

function indicatorRow(i: number, ownerId: number, total: number, now: number) {
  const kind = i % 10
  const [type, summary] = kind < 4 ? ['Address', `${10 + (i >> 24)}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`]
    : kind < 7 ? ['Host', `h${i}.bench.example`]
    : kind === 7 ? ['URL', `https://bench.example/p/${i}`]
    : kind === 8 ? ['EmailAddress', `user${i}@bench.example`]
    : ['File', i.toString(16).toUpperCase().padStart(32, '0')]
  const added = new Date(now - ((total - i) / total) * 365 * DAY_MS).toISOString()
  return {
    owner_id: ownerId, type, summary, value1: summary, value2: null, value3: null, rating: i % 6, confidence: i % 101,
    source: i % 7 === 0 ? 'feed' : null, description: null, created_by: null, date_added: added, last_modified: added,
  }
}

/** Returns the seconds it took. */
export async function seedIndicators(store: Store, organization: string, total: number): Promise<number> {
  const started = performance.now()
  const nowIso = new Date().toISOString()
  const now = Date.parse(nowIso)
  await store.db.transaction().execute(async (db) => {
    const org = await db.selectFrom('owner').select('id').where('name', '=', organization).executeTakeFirstOrThrow()
    const admin = await db.selectFrom('membership').select('user_id').where('owner_id', '=', org.id).orderBy('user_id').executeTakeFirstOrThrow()
    const owners = [org.id]
    for (const name of ['Bench Community A', 'Bench Community B']) {
      const { id } = await db.insertInto('owner').values({ name, type: 'Community', description: null, date_added: nowIso }).returning('id').executeTakeFirstOrThrow()
      await db.insertInto('membership').values({ user_id: admin.user_id, owner_id: id, role: 'Director', date_added: nowIso }).execute()
      owners.push(id)
    }
    const description = await db.selectFrom('attribute_type').select('id').where('name', '=', 'Description').where('owner_id', 'is', null).executeTakeFirstOrThrow()

    const tagIds = new Map<string, number>()
    const groupIds = new Map<string, number>()
    for (const [o, ownerId] of owners.entries()) {
      const tags = Array.from({ length: 500 }, (_, k) => ({ owner_id: ownerId, name: `tag-${o}-${k}`, description: null, technique_id: null, date_added: nowIso, last_used: null }))
      if (o === 0) tags.push({ ...tags[0]!, name: 'rare-tag' })
      for (const t of await db.insertInto('tag').values(tags).returning(['id', 'name']).execute()) tagIds.set(t.name, t.id)
      const groups = Array.from({ length: 200 }, (_, k) => ({ owner_id: ownerId, type: 'Adversary', name: `group-${o}-${k}`, xid: `bench-${o}-${k}`, date_added: nowIso, last_modified: nowIso }))
      if (o === 0) groups.push({ ...groups[0]!, name: 'target-group', xid: 'bench-target' })
      for (const g of await db.insertInto('intel_group').values(groups).returning(['id', 'name']).execute()) groupIds.set(g.name, g.id)
    }

    for (let start = 0; start < total; start += CHUNK) {
      const rows = []
      for (let i = start; i < Math.min(total, start + CHUNK); i++) rows.push(indicatorRow(i, owners[i % 3]!, total, now))
      const ids = (await db.insertInto('indicator').values(rows).returning('id').execute()).map((r) => r.id)
      const tagLinks = []
      const attributes = []
      const associations = []
      for (let k = 0; k < ids.length; k++) {
        const i = start + k
        const o = i % 3
        const id = ids[k]!
        if (i % 5 === 0) tagLinks.push({ tag_id: tagIds.get(`tag-${o}-${Math.floor(i / 5) % 500}`)!, item_kind: 'indicator', item_id: id, date_added: nowIso })
        if (o === 0 && i % 6661 === 0) tagLinks.push({ tag_id: tagIds.get('rare-tag')!, item_kind: 'indicator', item_id: id, date_added: nowIso })
        if (i % 10 === 0) {
          attributes.push({ owner_id: owners[o]!, item_kind: 'indicator', item_id: id, type_id: description.id, value: `seeded ${i}`, source: null,
            created_by: null, date_added: nowIso, last_modified: nowIso })
        }
        const group = i % 50 === 0 ? groupIds.get(`group-${o}-${Math.floor(i / 50) % 200}`) : o === 0 && i % 8311 === 0 ? groupIds.get('target-group') : undefined
        if (group !== undefined) {
          for (const [fk, fid, tk, tid] of [['indicator', id, 'group', group], ['group', group, 'indicator', id]] as const) {
            associations.push({ from_kind: fk, from_id: fid, to_kind: tk, to_id: tid, association_type_id: 0, source: 'API', date_added: nowIso })
          }
        }
      }
      if (tagLinks.length) await db.insertInto('item_tag').values(tagLinks).execute()
      if (attributes.length) await db.insertInto('attribute').values(attributes).execute()
      if (associations.length) await db.insertInto('association').values(associations).execute()
    }
  })
  // Fresh statistics, as a production database would have them after its first autovacuum / ANALYZE.
  await sql`ANALYZE`.execute(store.db)
  return Math.round((performance.now() - started) / 10) / 100
}
