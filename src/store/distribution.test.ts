/**
 * Bulwark on Citus, checked against the schema the migrations make (docs/scale-out-citus.md): every
 * table is either a reference table (small, replicated to every node) or distributed by `owner_id`,
 * co-located. Citus needs the distribution column in every unique key of a distributed table and in
 * every foreign key between two of them, and no foreign key from a reference table to a distributed
 * one. What the schema does not give yet is listed below, each with the change it needs: the test
 * fails when a migration adds a key that breaks the rule or mends one (then the list and the document
 * change with it).
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from './connect.js'
import { TEST_DB, createTestStore } from '../test/harness.js'

/** Small, read everywhere, written rarely: replicated whole to every worker. */
const REFERENCE_TABLES = [
  'owner',
  'user_account',
  'access_key',
  'api_token',
  'console_session',
  'membership',
  'setting',
  'association_type',
  'artifact_type',
  'attribute_type',
  'custom_metric',
  'custom_metric_value',
  'scheduled_task',
  'kysely_migration',
  'kysely_migration_lock',
]

/**
 * What Citus would need changed, by kind:
 * - `no owner_id`: a child table that reaches its owner through its parent; it gains the parent's owner_id,
 *   and its keys and foreign keys gain it with it (not listed again).
 * - `unique (…)`: a key without owner_id; it becomes (owner_id, …). For `(id)` primary keys this is
 *   harmless: ids stay unique by their sequence, the key only has to name the owner too.
 * - `foreign key (…) → table`: between two distributed tables; it becomes (owner_id, …) → (owner_id, id).
 */
const CITUS_CHANGES = [
  'adversary_asset: no owner_id',
  'artifact: foreign key (case_id) → intel_case',
  'artifact: foreign key (task_id) → task',
  'artifact: unique (id)',
  'association: no owner_id',
  'attribute: unique (id)',
  'batch_error: no owner_id',
  'batch_input: no owner_id',
  'batch_job: unique (id)',
  'deleted_indicator: unique (id)',
  'dns_resolution: no owner_id',
  'document_content: no owner_id',
  'feed_result_part: unique (result_id,part_number)',
  'file_action: no owner_id',
  'file_occurrence: no owner_id',
  'import_error: no owner_id',
  'import_input_part: no owner_id',
  'import_job: unique (id)',
  'indicator: unique (id)',
  'indicator_false_positive: no owner_id',
  'indicator_observation: no owner_id',
  'intel_case: unique (id)',
  'intel_group: unique (id)',
  'intel_requirement: unique (id)',
  'item_security_label: no owner_id',
  'item_tag: no owner_id',
  'note: foreign key (artifact_id) → artifact',
  'note: foreign key (case_id) → intel_case',
  'note: foreign key (task_id) → task',
  'note: unique (id)',
  'playbook: unique (id)',
  'security_label: unique (id)',
  'tag: unique (id)',
  'task: foreign key (case_id) → intel_case',
  'task: unique (id)',
  'task_assignee: no owner_id',
  'taxii_collection: unique (id)',
  'victim: unique (id)',
  'victim_asset: foreign key (victim_id) → victim',
  'victim_asset: unique (id)',
]

describe.runIf(TEST_DB === 'postgres')('distribution by owner (Citus)', () => {
  let store: Store
  let drop: () => Promise<void>
  beforeAll(async () => ({ store, drop } = await createTestStore()))
  afterAll(() => drop())

  async function schema() {
    const columns = await sql<{ table: string; column: string }>`
      select table_name as table, column_name as column from information_schema.columns
      where table_schema = current_schema()`.execute(store.db)
    const uniques = await sql<{ table: string; columns: string[] }>`
      select t.relname as table, array_agg(a.attname::text order by k.n) as columns
      from pg_index ix
      join pg_class t on t.oid = ix.indrelid
      join pg_namespace s on s.oid = t.relnamespace
      cross join lateral unnest(ix.indkey) with ordinality as k(attnum, n)
      join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
      where s.nspname = current_schema() and ix.indisunique
      group by t.relname, ix.indexrelid`.execute(store.db)
    const foreignKeys = await sql<{ table: string; columns: string[]; target: string }>`
      select c.conrelid::regclass::text as table, c.confrelid::regclass::text as target,
        array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, n)
          join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.n) as columns
      from pg_constraint c where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`.execute(store.db)
    const tables = new Map<string, Set<string>>()
    for (const { table, column } of columns.rows) tables.set(table, (tables.get(table) ?? new Set()).add(column))
    return { tables, uniques: uniques.rows, foreignKeys: foreignKeys.rows }
  }

  it('names every table either a reference table or one distributed by owner_id', async () => {
    const { tables } = await schema()
    expect(REFERENCE_TABLES.filter((t) => !tables.has(t))).toEqual([])
  })

  it('lists exactly what each distributed table lacks: owner_id, or owner_id in a key', async () => {
    const { tables, uniques, foreignKeys } = await schema()
    const distributed = (t: string) => tables.has(t) && !REFERENCE_TABLES.includes(t)
    const found: string[] = []
    for (const table of [...tables.keys()].filter(distributed)) {
      if (!tables.get(table)!.has('owner_id')) found.push(`${table}: no owner_id`)
    }
    const owned = (t: string) => distributed(t) && tables.get(t)!.has('owner_id')
    for (const u of uniques)
      if (owned(u.table) && !u.columns.includes('owner_id')) found.push(`${u.table}: unique (${u.columns.join(',')})`)
    for (const f of foreignKeys)
      if (owned(f.table) && distributed(f.target) && !f.columns.includes('owner_id'))
        found.push(`${f.table}: foreign key (${f.columns.join(',')}) → ${f.target}`)
    expect(found.sort()).toEqual([...CITUS_CHANGES].sort())
  })

  it('has no foreign key from a reference table to a distributed one', async () => {
    const { tables, foreignKeys } = await schema()
    const offending = foreignKeys.filter(
      (f) => REFERENCE_TABLES.includes(f.table) && tables.has(f.target) && !REFERENCE_TABLES.includes(f.target),
    )
    expect(offending).toEqual([])
  })
})
