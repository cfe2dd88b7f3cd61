import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { insertRows } from './batch-write.repository.js'

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
})
