/**
 * A small, fixed data set for executing TQL on both databases: two owners, four indicators,
 * three groups, tags, a label, a victim with an asset, a case with an artifact, task and note,
 * attributes and an intel requirement. Names are what tests assert on.
 */
import type { Kysely } from 'kysely'
import { createTestStore } from '../test/harness.js'
import type { Store } from '../store/connect.js'
import type { Database } from '../store/database.js'

export const NOW = new Date('2026-03-15T10:20:30Z')

export interface TestStore {
  store: Store
  ids: Record<string, number>
  drop(): Promise<void>
}

type Insertable = Record<string, unknown>

export async function createTestStoreForTql(): Promise<TestStore> {
  const { store, drop } = await createTestStore()
  const ids = await seed(store.db)
  return { store, ids, drop }
}

async function seed(db: Kysely<Database>): Promise<Record<string, number>> {
  const ids: Record<string, number> = {}
  const insert = async (key: string, table: keyof Database, row: Insertable) => {
    const result = await db
      .insertInto(table)
      .values(row as never)
      .returning('id' as never)
      .executeTakeFirstOrThrow()
    ids[key] = (result as { id: number }).id
    return ids[key]
  }
  const at = '2026-03-01T00:00:00.000Z'
  const orgA = await insert('orgA', 'owner', { name: 'Org A', type: 'Organization', date_added: at })
  const orgB = await insert('orgB', 'owner', { name: 'Org B', type: 'Organization', date_added: at })
  const alice = await insert('alice', 'user_account', {
    user_name: 'alice',
    kind: 'human',
    system_role: 'User',
    organization_id: orgA,
    date_added: at,
    last_modified: at,
  })

  const indicator = (key: string, row: Insertable) =>
    insert(key, 'indicator', { owner_id: orgA, date_added: at, last_modified: at, created_by: alice, ...row })
  await indicator('i1', {
    type: 'Address',
    summary: '10.0.0.1',
    value1: '10.0.0.1',
    rating: 5,
    confidence: 80,
    description: '1000 reasons',
    date_added: '2026-03-14T08:00:00.000Z',
    address_country_code: 'US',
    address_asn: 64500,
  })
  await indicator('i2', {
    type: 'Host',
    summary: 'evil.example.com',
    value1: 'evil.example.com',
    rating: 3,
    description: 'Contains 100% evil_stuff',
    dns_active: 1,
  })
  await indicator('i3', {
    owner_id: orgB,
    type: 'File',
    summary: 'D41D8CD98F00B204E9800998ECF8427E',
    value1: 'D41D8CD98F00B204E9800998ECF8427E',
    active: 0,
    date_added: '2025-12-31T23:59:59.999Z',
    size: 2_000_000_000,
  })
  await indicator('i4', {
    type: 'Registry Key',
    summary: 'C:\\Temp\\O\'Brien "x"',
    value1: 'C:\\Temp\\O\'Brien "x"',
    rating: 1,
  })

  const group = (key: string, row: Insertable) =>
    insert(key, 'intel_group', { owner_id: orgA, date_added: at, last_modified: at, created_by: alice, ...row })
  await group('g1', { type: 'Adversary', name: 'Bad Bear' })
  await group('g2', { type: 'Incident', name: 'Phish Wave', status: 'New', event_date: '2026-03-10T12:00:00.000Z' })
  await group('g3', { owner_id: orgB, type: 'Report', name: 'Secret Report', status: 'Success' })

  await insert('v1', 'victim', { owner_id: orgA, name: 'Acme Corp', org: 'Acme', date_added: at, last_modified: at })
  await insert('va1', 'victim_asset', {
    owner_id: orgA,
    victim_id: ids.v1,
    type: 'EmailAddress',
    value: 'ceo@acme.test',
    date_added: at,
  })
  await insert('c1', 'intel_case', {
    owner_id: orgA,
    name: 'Case One',
    severity: 'High',
    status: 'Open',
    created_by: alice,
    date_added: at,
    last_updated: at,
  })
  await insert('c2', 'intel_case', {
    owner_id: orgA,
    name: 'Case Two',
    severity: 'Low',
    status: 'Closed',
    date_added: at,
    last_updated: at,
  })
  const host = await db.selectFrom('artifact_type').select('id').where('name', '=', 'Host').executeTakeFirstOrThrow()
  await insert('t1', 'task', {
    owner_id: orgA,
    case_id: ids.c1,
    name: 'Triage',
    status: 'In Progress',
    date_added: at,
    last_modified: at,
  })
  await insert('a1', 'artifact', {
    owner_id: orgA,
    case_id: ids.c1,
    task_id: ids.t1,
    type_id: host.id,
    summary: 'evil.example.com',
    date_added: at,
    last_modified: at,
  })
  await insert('n1', 'note', {
    owner_id: orgA,
    case_id: ids.c1,
    artifact_id: ids.a1,
    text: 'first note',
    author_id: alice,
    date_added: at,
    last_modified: at,
  })
  await insert('ir1', 'intel_requirement', {
    owner_id: orgA,
    requirement_text: 'Track APT28',
    date_added: at,
    last_modified: at,
  })

  await insert('tagApt', 'tag', { owner_id: orgA, name: 'APT28', technique_id: null, date_added: at })
  await insert('tagPhish', 'tag', { owner_id: orgA, name: 'Phishing', date_added: at })
  await insert('tagT1566', 'tag', { owner_id: orgA, name: 'T1566 - Phishing', technique_id: 'T1566', date_added: at })
  const tag = (tagKey: string, kind: string, itemKey: string) =>
    db
      .insertInto('item_tag')
      .values({ tag_id: ids[tagKey], item_kind: kind, item_id: ids[itemKey], date_added: at })
      .execute()
  await tag('tagApt', 'indicator', 'i1')
  await tag('tagPhish', 'indicator', 'i1')
  await tag('tagPhish', 'indicator', 'i2')
  await tag('tagT1566', 'indicator', 'i2')
  await tag('tagApt', 'group', 'g1')
  await tag('tagApt', 'case', 'c1')

  await insert('red', 'security_label', { owner_id: orgA, name: 'TLP:RED', date_added: at })
  await db
    .insertInto('item_security_label')
    .values({ label_id: ids.red, item_kind: 'indicator', item_id: ids.i1, date_added: at })
    .execute()

  const custom = await db.selectFrom('association_type').select('id').orderBy('id').executeTakeFirstOrThrow()
  const associate = async (
    fromKind: string,
    fromKey: string,
    toKind: string,
    toKey: string,
    source: string,
    typeId = 0,
  ) => {
    const row = { association_type_id: typeId, source, date_added: at }
    await db
      .insertInto('association')
      .values([
        { from_kind: fromKind, from_id: ids[fromKey], to_kind: toKind, to_id: ids[toKey], ...row },
        { from_kind: toKind, from_id: ids[toKey], to_kind: fromKind, to_id: ids[fromKey], ...row },
      ])
      .execute()
  }
  await associate('indicator', 'i1', 'group', 'g1', 'API')
  await associate('indicator', 'i2', 'group', 'g1', 'MANUAL')
  await associate('indicator', 'i2', 'group', 'g2', 'TQL')
  await associate('indicator', 'i3', 'group', 'g3', 'API')
  await associate('indicator', 'i1', 'indicator', 'i2', 'API', custom.id)
  await associate('victim', 'v1', 'group', 'g2', 'MANUAL')
  await associate('intelRequirement', 'ir1', 'group', 'g1', 'MANUAL')
  await associate('case', 'c1', 'indicator', 'i2', 'MANUAL')

  const attributeType = async (name: string) =>
    (await db.selectFrom('attribute_type').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id
  await insert('attr1', 'attribute', {
    owner_id: orgA,
    item_kind: 'indicator',
    item_id: ids.i1,
    type_id: await attributeType('Description'),
    value: 'Seen in the wild',
    date_added: at,
    last_modified: at,
  })
  await insert('attr2', 'attribute', {
    owner_id: orgA,
    item_kind: 'group',
    item_id: ids.g1,
    type_id: await attributeType('Source'),
    value: 'vendor feed',
    source: 'vendor',
    date_added: at,
    last_modified: at,
  })
  return ids
}
