import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { INDICATOR_COLUMN_TYPES } from '../../domain/indicators/write.js'
import { TAG_USE_RESOLUTION_MS, insertRows, touchTags, updateRowsById } from './batch-write.repository.js'
import { THREAT_ASSESSED_ON_UPDATE } from './indicator.repository.js'

let t: TestApp
let owner: number
beforeAll(async () => {
  t = await createTestApp()
  owner = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
})
afterAll(async () => {
  await t.close()
})

const tagsNamed = (prefix: string) =>
  t.store.db
    .selectFrom('tag')
    .select(['name', 'description', 'technique_id', 'last_used'])
    .where('name', 'like', `${prefix}%`)
    .orderBy('name')
    .execute()

describe('insertRows', () => {
  it('inserts rows of one shape in statements it writes itself, returning what was asked', async () => {
    const now = '2026-11-25T00:00:00.000Z'
    const rows = Array.from({ length: 3 }, (_, i) => ({
      owner_id: owner,
      name: `same-${i}`,
      description: i === 1 ? null : `d${i}`,
      technique_id: null,
      date_added: now,
      last_used: now,
    }))
    const returned = await insertRows<{ name: string }>(t.store.db, 'tag', rows, ['name'])
    expect(returned.map((r) => r.name).sort()).toEqual(['same-0', 'same-1', 'same-2'])
    expect(await tagsNamed('same-')).toEqual([
      { name: 'same-0', description: 'd0', technique_id: null, last_used: now },
      { name: 'same-1', description: null, technique_id: null, last_used: now },
      { name: 'same-2', description: 'd2', technique_id: null, last_used: now },
    ])
  })

  it('keeps every column of rows whose columns differ, and leaves an undefined value to its default, as the query builder does', async () => {
    const now = '2026-11-25T00:00:00.000Z'
    await insertRows(t.store.db, 'tag', [
      { owner_id: owner, name: 'mixed-a', date_added: now },
      { owner_id: owner, name: 'mixed-b', date_added: now, technique_id: 'T1566', description: undefined },
      { owner_id: owner, name: 'mixed-c', date_added: now, description: 'third', last_used: now },
    ])
    expect(await tagsNamed('mixed-')).toEqual([
      { name: 'mixed-a', description: null, technique_id: null, last_used: null },
      { name: 'mixed-b', description: null, technique_id: 'T1566', last_used: null },
      { name: 'mixed-c', description: 'third', technique_id: null, last_used: now },
    ])
  })

  it('carries values an array literal has to escape, and nulls, through unchanged', async () => {
    const now = '2026-11-25T00:00:00.000Z'
    const awkward = ['q "quoted" {braced}, comma', 'back\\slash \\"', 'NULL', '', ' spaced ', 'ünïcødé 🛡']
    await insertRows(
      t.store.db,
      'tag',
      awkward.map((description, i) => ({
        owner_id: owner,
        name: `odd-${i}`,
        description,
        technique_id: i % 2 ? null : 'T1',
        date_added: now,
        last_used: null,
      })),
    )
    const stored = await tagsNamed('odd-')
    expect(stored.map((r) => r.description)).toEqual(awkward)
    expect(stored.map((r) => r.technique_id)).toEqual(['T1', null, 'T1', null, 'T1', null])
  })

  it('skips rows whose key is taken when asked to, and returns only the rows it inserted', async () => {
    const now = '2026-11-25T00:00:00.000Z'
    const row = (name: string) => ({ owner_id: owner, name, date_added: now })
    await insertRows(t.store.db, 'tag', [row('taken-a')])
    const returned = await insertRows<{ name: string }>(t.store.db, 'tag', [row('taken-a'), row('taken-b')], ['name'], {
      ignoreConflicts: true,
    })
    expect(returned.map((r) => r.name)).toEqual(['taken-b'])
    await expect(insertRows(t.store.db, 'tag', [row('taken-b')])).rejects.toThrow()
  })

  it('refuses a value that is an array rather than shifting the rows after it', async () => {
    const now = '2026-11-25T00:00:00.000Z'
    await expect(
      insertRows(t.store.db, 'tag', [{ owner_id: owner, name: 'listed', description: ['a', 'b'], date_added: now }]),
    ).rejects.toThrow(t.store.dialect === 'postgres' ? /tag\.description holds an array/ : /./)
    expect(await tagsNamed('listed')).toEqual([])
  })
})

describe('touchTags', () => {
  it('stamps a tag last used when it was never used or not within the resolution, and leaves a recent one alone', async () => {
    const now = '2026-11-25T12:00:00.000Z'
    const before = (ms: number) => new Date(Date.parse(now) - ms).toISOString()
    const recent = before(TAG_USE_RESOLUTION_MS / 2)
    const old = before(TAG_USE_RESOLUTION_MS + 1)
    const rows = await insertRows<{ id: number; name: string }>(
      t.store.db,
      'tag',
      [null, recent, old].map((last_used, i) => ({
        owner_id: owner,
        name: `touched-${i}`,
        date_added: now,
        last_used,
      })),
      ['id', 'name'],
    )
    await touchTags(
      t.store.db,
      rows.map((r) => r.id),
      now,
    )
    expect((await tagsNamed('touched-')).map((r) => [r.name, r.last_used])).toEqual([
      ['touched-0', now],
      ['touched-1', recent],
      ['touched-2', now],
    ])
  })
})

describe('updateRowsById', () => {
  const scored = (ids: number[]) =>
    t.store.db
      .selectFrom('indicator')
      .select(['id', 'rating', 'confidence', 'active', 'threat_assess_rating', 'threat_assess_score'])
      .where('id', 'in', ids)
      .orderBy('id')
      .execute()

  it('sets rows of different columns, and the ThreatAssess figures from the new values and the row’s others', async () => {
    const ids: number[] = []
    for (const summary of ['rescored.example', 'observed.example', 'untouched.example']) {
      const r = await t.request({
        method: 'POST',
        url: '/api/v2/indicators/hosts',
        payload: { hostName: summary, rating: 2, confidence: 50 },
      })
      ids.push(r.json().data.host.id)
    }
    // Ten observations add 20 to the raw score: read from the row, as the update does not change them.
    await t.store.db.updateTable('indicator').set({ observation_count: 10 }).where('id', '=', ids[1]).execute()
    await updateRowsById(
      t.store.db,
      'indicator',
      [
        { id: ids[0], changes: { rating: 4, confidence: 80 } },
        { id: ids[1], changes: { confidence: 100 } },
        { id: ids[2], changes: { active: 0 } },
      ],
      INDICATOR_COLUMN_TYPES,
      { derived: THREAT_ASSESSED_ON_UPDATE },
    )
    expect((await scored(ids)).map(({ id, ...row }) => row)).toEqual([
      // 4 × 80 × 1.6
      { rating: 4, confidence: 80, active: 1, threat_assess_rating: 4, threat_assess_score: 512 },
      // 2 × 100 × 1.6 + 10 × 2
      { rating: 2, confidence: 100, active: 1, threat_assess_rating: 2, threat_assess_score: 340 },
      // As the API's create left it: 2 × 50 × 1.6
      { rating: 2, confidence: 50, active: 0, threat_assess_rating: 2, threat_assess_score: 160 },
    ])
  })
})
