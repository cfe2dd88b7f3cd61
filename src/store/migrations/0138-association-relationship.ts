/**
 * An association imported from a STIX relationship keeps what the relationship said of the pair:
 * its type (`uses`, `attributed-to`…), which end was its source (associations are stored both
 * ways: 1 on the row whose from end is the relationship's `source_ref`, 0 on its mirror), the
 * relationship's version (`modified`, so an older version never overwrites a newer one and a
 * re-import changes nothing), and when Bulwark last changed that type (the relationship's served
 * version; NULL: never since the association was made). All NULL on associations made any other
 * way, which are served with the type STIX defines for their pair (formats/stix2/stix-graph.ts).
 */
import type { Kysely } from 'kysely'

const COLUMNS = [
  ['relationship_type', 'text'],
  ['relationship_from_source', 'integer'],
  ['relationship_modified', 'text'],
  ['last_modified', 'text'],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, type] of COLUMNS) await db.schema.alterTable('association').addColumn(name, type).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of [...COLUMNS].reverse()) await db.schema.alterTable('association').dropColumn(name).execute()
}
