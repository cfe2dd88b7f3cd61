/**
 * Beyond one PostgreSQL, on paper (docs/scale-out.md, "Citus"): distributed by owner, a table's
 * unique keys (its primary key among them) and its foreign keys to other distributed tables must
 * carry `owner_id`, and a table distributed by owner must have the column. This test reads the
 * migrated schema and lists every key that does not, table by table; the list below is the work a
 * move to Citus would need, kept true by this test. Every table must also be placed: distributed
 * by owner, a reference table (small, copied to every worker) or local to the coordinator; a new
 * table fails here until it is. PostgreSQL only.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from './connect.js'
import { TEST_DB, createTestStore } from '../test/harness.js'

type Placement = 'distributed' | 'reference' | 'local'

/** Where each table would live on Citus, and why (docs/scale-out.md has the reasoning). */
const PLACEMENT: Record<string, Placement> = {
  // An owner's intelligence: every read names one owner, or a caller's few.
  indicator: 'distributed',
  indicator_tally: 'distributed',
  indicator_day_tally: 'distributed',
  indicator_confidence_tally: 'distributed',
  indicator_score_tally: 'distributed',
  deleted_indicator: 'distributed',
  indicator_observation: 'distributed',
  indicator_false_positive: 'distributed',
  dns_resolution: 'distributed',
  file_action: 'distributed',
  file_occurrence: 'distributed',
  intel_group: 'distributed',
  adversary_asset: 'distributed',
  document_content: 'distributed',
  victim: 'distributed',
  victim_asset: 'distributed',
  task: 'distributed',
  task_assignee: 'distributed',
  intel_case: 'distributed',
  artifact: 'distributed',
  note: 'distributed',
  intel_requirement: 'distributed',
  attribute: 'distributed',
  tag: 'distributed',
  security_label: 'distributed',
  item_tag: 'distributed',
  item_security_label: 'distributed',
  association: 'distributed',
  custom_metric: 'distributed',
  custom_metric_value: 'distributed',
  playbook: 'distributed',
  batch_job: 'distributed',
  batch_input: 'distributed',
  batch_error: 'distributed',
  feed_result_part: 'distributed',
  taxii_collection: 'distributed',
  indicator_lifecycle_policy: 'distributed',
  import_job: 'distributed',
  import_input_part: 'distributed',
  import_error: 'distributed',
  // The values a mirrored list brought, read beside the feed owner's Indicators when the list changes.
  feed_value: 'distributed',
  // Who may do what, and the catalogues: small, read on every request, joined to everything.
  owner: 'reference',
  user_account: 'reference',
  membership: 'reference',
  api_token: 'reference',
  access_key: 'reference',
  setting: 'reference',
  attribute_type: 'reference',
  artifact_type: 'reference',
  association_type: 'reference',
  console_session: 'reference',
  // Feeds and their bounded run history: a few rows an administrator writes, read by every node's scheduler.
  feed: 'reference',
  feed_run: 'reference',
  // Outbound lists: saved queries an administrator keeps, read on every firewall's poll.
  outbound_list: 'reference',
  // Saved searches and their pins: a few rows per person, read with the dashboard and the lists that follow one.
  saved_search: 'reference',
  saved_search_pin: 'reference',
  // A row per scheduled task, claimed under a lease by any node: the coordinator's.
  scheduled_task: 'reference',
  // The migrator's own.
  kysely_migration: 'local',
  kysely_migration_lock: 'local',
}

/**
 * What a move to Citus would change, as the schema stands. `no owner_id`: the table must gain the
 * column (filled from its parent) to be co-located with its owner's rows. A unique key without it:
 * Citus enforces uniqueness only within a shard, so the key must become (owner_id, …) — for the
 * `(id)` primary keys, (owner_id, id), ids staying unique through their sequence. A foreign key
 * without it: Citus needs both sides to name the distribution column.
 */
const EXPECTED: string[] = [
  'import_error: foreign key (job_id) → import_job',
  'import_error: no owner_id',
  'import_error: unique (id)',
  'import_input_part: foreign key (job_id) → import_job',
  'import_input_part: no owner_id',
  'import_input_part: unique (job_id, part)',
  'import_job: unique (id)',
  'indicator_observation: unique (indicator_id, source_ref)',
  'adversary_asset: no owner_id',
  'adversary_asset: unique (id)',
  'adversary_asset: foreign key (group_id) → intel_group',
  'artifact: unique (id)',
  'artifact: foreign key (case_id) → intel_case',
  'artifact: foreign key (task_id) → task',
  'association: no owner_id',
  'association: unique (from_kind, from_id, to_kind, association_type_id, to_id)',
  'attribute: unique (id)',
  'batch_error: no owner_id',
  'batch_error: unique (id)',
  'batch_error: foreign key (job_id) → batch_job',
  'batch_input: no owner_id',
  'batch_input: unique (job_id)',
  'batch_input: foreign key (job_id) → batch_job',
  'batch_job: unique (id)',
  'custom_metric: unique (id)',
  'custom_metric_value: no owner_id',
  'custom_metric_value: unique (metric_id, name, period_start)',
  'custom_metric_value: foreign key (metric_id) → custom_metric',
  'deleted_indicator: unique (id)',
  'dns_resolution: no owner_id',
  'dns_resolution: unique (id)',
  'dns_resolution: foreign key (address_id) → indicator',
  'dns_resolution: foreign key (host_id) → indicator',
  'document_content: no owner_id',
  'document_content: unique (group_id)',
  'document_content: foreign key (group_id) → intel_group',
  'feed_result_part: unique (result_id, part_number)',
  'feed_value: no owner_id',
  'feed_value: unique (feed_id, type, summary)',
  'file_action: no owner_id',
  'file_action: unique (id)',
  'file_action: foreign key (indicator_id) → indicator',
  'file_action: foreign key (target_indicator_id) → indicator',
  'file_occurrence: no owner_id',
  'file_occurrence: unique (id)',
  'file_occurrence: foreign key (indicator_id) → indicator',
  'indicator: unique (id)',
  'indicator_false_positive: no owner_id',
  'indicator_false_positive: unique (indicator_id, user_id, day)',
  'indicator_false_positive: foreign key (indicator_id) → indicator',
  'indicator_observation: no owner_id',
  'indicator_observation: unique (id)',
  'indicator_observation: foreign key (indicator_id) → indicator',
  'intel_case: unique (id)',
  'intel_group: unique (id)',
  'intel_requirement: unique (id)',
  'item_security_label: no owner_id',
  'item_security_label: unique (item_kind, item_id, label_id)',
  'item_security_label: foreign key (label_id) → security_label',
  'item_tag: no owner_id',
  'item_tag: unique (item_kind, item_id, tag_id)',
  'item_tag: foreign key (tag_id) → tag',
  'note: unique (id)',
  'note: foreign key (artifact_id) → artifact',
  'note: foreign key (case_id) → intel_case',
  'note: foreign key (task_id) → task',
  'playbook: unique (id)',
  'security_label: unique (id)',
  'tag: unique (id)',
  'task: unique (id)',
  'task: foreign key (case_id) → intel_case',
  'task_assignee: no owner_id',
  'task_assignee: unique (task_id, role, user_id)',
  'task_assignee: foreign key (task_id) → task',
  'taxii_collection: unique (id)',
  'victim: unique (id)',
  'victim_asset: unique (id)',
  'victim_asset: foreign key (victim_id) → victim',
]

let store: Store
let drop: () => Promise<void>
beforeAll(async () => {
  if (TEST_DB !== 'postgres') return
  ;({ store, drop } = await createTestStore())
})
afterAll(async () => {
  await drop?.()
})

describe.skipIf(TEST_DB !== 'postgres')('the schema distributed by owner (Citus, on paper)', () => {
  it('places every table', async () => {
    const tables = await sql<{ name: string }>`
      select c.relname as name from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') order by 1`.execute(store.db)
    const unplaced = tables.rows.map((t) => t.name).filter((name) => !(name in PLACEMENT))
    expect(unplaced, 'tables with no place in PLACEMENT (distributed, reference or local)').toEqual([])
  })

  it('lists the keys of distributed tables that do not carry owner_id', async () => {
    const distributed = Object.keys(PLACEMENT).filter((name) => PLACEMENT[name] === 'distributed')
    const columns = await sql<{ table: string }>`
      select table_name as "table" from information_schema.columns
      where table_schema = 'public' and column_name = 'owner_id'`.execute(store.db)
    const owned = new Set(columns.rows.map((r) => r.table))
    // Unique indexes (primary keys and unique constraints among them), with their columns in order.
    const uniques = await sql<{ table: string; columns: string[] }>`
      select t.relname as "table", array_agg(a.attname::text order by k.ord) as columns
      from pg_index i
      join pg_class t on t.oid = i.indrelid
      cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
      join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
      where t.relnamespace = 'public'::regnamespace and i.indisunique
      group by t.relname, i.indexrelid`.execute(store.db)
    const foreign = await sql<{ table: string; columns: string[]; target: string }>`
      select t.relname as "table", r.relname as target,
        array(select a.attname::text from unnest(c.conkey) with ordinality as k(attnum, ord)
              join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.ord) as columns
      from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_class r on r.oid = c.confrelid
      where c.contype = 'f' and c.connamespace = 'public'::regnamespace`.execute(store.db)

    const found: string[] = []
    for (const table of distributed) {
      if (!owned.has(table)) found.push(`${table}: no owner_id`)
      for (const u of uniques.rows.filter((row) => row.table === table))
        if (!u.columns.includes('owner_id')) found.push(`${table}: unique (${u.columns.join(', ')})`)
      for (const f of foreign.rows.filter((row) => row.table === table))
        if (PLACEMENT[f.target] === 'distributed' && !f.columns.includes('owner_id'))
          found.push(`${table}: foreign key (${f.columns.join(', ')}) → ${f.target}`)
    }
    expect(found.sort()).toEqual([...EXPECTED].sort())
  })
})
