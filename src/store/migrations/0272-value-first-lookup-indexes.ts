/**
 * PostgreSQL: the unique indexes the batch look-ups find rows through lead with the looked-up value, as the File
 * hash indexes have since 0130. A look-up compares its owner only on the rows found (store/engine/list-conditions.ts,
 * lookUpOwners): statistics older than an owner's first row estimate that owner at 1 row, and a look-up that could
 * seek the owner read all of its rows instead. With the owner no longer sought, these indexes must be searchable by
 * the value alone. Uniqueness is unchanged (the same columns), and the look-ups by owner and value seek them as
 * before. SQLite keeps the owner first: its statistics give every owner the average, and its look-ups seek it.
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

const INDEXES = [
  { name: 'intel_group_owner_xid', table: 'intel_group', value: 'xid', partial: false },
  { name: 'indicator_stix_id', table: 'indicator', value: 'stix_id', partial: true },
] as const

async function rebuild(db: Kysely<any>, columns: (index: (typeof INDEXES)[number]) => string[]) {
  for (const index of INDEXES) {
    // Built beside the old one and renamed, so the constraint never lapses.
    let create = db.schema.createIndex(`${index.name}_new`).unique().on(index.table).columns(columns(index))
    if (index.partial) create = create.where(sql.ref(index.value), 'is not', null)
    await create.execute()
    await db.schema.dropIndex(index.name).execute()
    await sql`alter index ${sql.id(`${index.name}_new`)} rename to ${sql.id(index.name)}`.execute(db)
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await rebuild(db, (index) => [index.value, 'owner_id'])
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await rebuild(db, (index) => ['owner_id', index.value])
}
