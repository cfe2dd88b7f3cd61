import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, TEST_DB, type TestApp, createTestApp } from '../../test/harness.js'
import { runPendingJobs } from '../../worker/batch-worker.js'
import { FOLD_AFTER_ROWS, countIndicatorsByTally } from './indicator-tally.repository.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

type Counts = Record<string, number>

/** Indicators per `owner|type|active|rating × 10` (unrated -10), counted from the rows, and as the tally holds them. */
async function counted(): Promise<{ rows: Counts; tally: Counts }> {
  const rows = await sql<{
    key: string
    n: number
  }>`select owner_id || '|' || type || '|' || active || '|' || cast(round(coalesce(rating, -1) * 10) as integer) as key,
      count(*) as n
    from indicator group by owner_id, type, active, coalesce(rating, -1)`.execute(t.store.db)
  const tally = await sql<{
    key: string
    n: number
  }>`select owner_id || '|' || type || '|' || active || '|' || cast(round(rating * 10) as integer) as key, sum(n) as n
    from indicator_tally group by owner_id, type, active, rating having sum(n) <> 0`.execute(t.store.db)
  const asCounts = (list: { key: string; n: number }[]) => Object.fromEntries(list.map((r) => [r.key, Number(r.n)]))
  return { rows: asCounts(rows.rows), tally: asCounts(tally.rows) }
}

async function expectTallyTrue() {
  const { rows, tally } = await counted()
  expect(tally).toEqual(rows)
}

async function v2(method: string, url: string, payload?: unknown) {
  const res = await t.request({ method: method as 'GET', url: `/api/v2${url}`, payload: payload as object })
  expect(res.statusCode, res.body).toBeLessThan(300)
  return res.json()
}

async function batch(action: 'Create' | 'Delete', indicators: unknown[]) {
  const created = await v2('POST', '/batch', { owner: ORG, haltOnError: false, action, attributeWriteType: 'Append' })
  const res = await t.request({
    method: 'POST',
    url: `/api/v2/batch/${created.data.batchId}`,
    payload: JSON.stringify({ indicator: indicators }),
    headers: { 'content-type': 'application/octet-stream' },
  })
  expect(res.statusCode).toBe(202)
  expect(await runPendingJobs(t.store, t.services)).toBe(1)
}

const hosts = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ type: 'Host', summary: `${prefix}${i}.example` }))

describe('the Indicator tally (migration 0125)', () => {
  it('follows every way Indicators are written: API creates, flag changes, deletes, batch creates and deletes, File merges', async () => {
    await v2('POST', '/indicators/hosts', { hostName: 'one.example' })
    await v2('POST', '/indicators/addresses', { ip: '192.0.2.1' })
    await v2('POST', '/indicators/addresses', { ip: '192.0.2.2', active: false })
    await expectTallyTrue()

    await v2('PUT', '/indicators/addresses/192.0.2.1', { active: false })
    await v2('PUT', '/indicators/addresses/192.0.2.2', { active: true, rating: 3 })
    await expectTallyTrue()

    await batch('Create', [...hosts('batch', 30), { type: 'Address', summary: '192.0.2.1', rating: 2 }])
    await batch('Delete', hosts('batch', 10))
    await v2('DELETE', '/indicators/hosts/one.example')
    await expectTallyTrue()

    // Two Files that one with both hashes merges into one row (the batch's default fileMergeMode, Merge).
    const md5 = 'a'.repeat(32)
    const sha1 = 'b'.repeat(40)
    await v2('POST', '/indicators/files', { md5 })
    await v2('POST', '/indicators/files', { sha1 })
    const created = await v2('POST', '/batch', {
      owner: ORG,
      haltOnError: false,
      action: 'Create',
      attributeWriteType: 'Append',
    })
    await t.request({
      method: 'POST',
      url: `/api/v2/batch/${created.data.batchId}`,
      payload: JSON.stringify({ indicator: [{ type: 'File', summary: `${md5} : ${sha1}` }] }),
      headers: { 'content-type': 'application/octet-stream' },
    })
    await runPendingJobs(t.store, t.services)
    const { rows } = await counted()
    expect(
      Object.entries(rows)
        .filter(([k]) => k.includes('|File|'))
        .map(([, n]) => n),
    ).toEqual([1])
    await expectTallyTrue()
  })

  it('gives v2 listings their resultCount: active Indicators of the owner, or of one type', async () => {
    const { rows } = await counted()
    const activeOf = (type?: string) =>
      Object.entries(rows)
        .filter(([k]) => k.split('|')[2] === '1' && (!type || k.split('|')[1] === type))
        .reduce((n, [, v]) => n + v, 0)
    expect(activeOf('Host')).toBe(20)
    expect((await v2('GET', '/indicators?resultLimit=1')).data.resultCount).toBe(activeOf())
    expect((await v2('GET', '/indicators/hosts?resultLimit=1')).data.resultCount).toBe(20)
    expect((await v2('GET', '/indicators/addresses?resultLimit=1')).data.resultCount).toBe(1)
    // A filter that names active counts the rows themselves: 192.0.2.1 was made inactive.
    expect((await v2('GET', '/indicators/addresses?filters=active%3Dfalse')).data.resultCount).toBe(1)
    expect((await v2('GET', '/indicators/addresses?filters=active%3Dtrue')).data.resultCount).toBe(1)
  })

  it('follows ratings, and counts a v2 list filtered by rating from the tally (migration 0136)', async () => {
    // Ten Hosts rated 1 to 5 twice over, then two of them re-rated by the batch and one by the API.
    await batch(
      'Create',
      Array.from({ length: 10 }, (_, i) => ({ type: 'Host', summary: `rated${i}.example`, rating: (i % 5) + 1 })),
    )
    await batch('Create', [
      { type: 'Host', summary: 'rated0.example', rating: 5 },
      { type: 'Host', summary: 'rated1.example', rating: 4.5 },
    ])
    await v2('PUT', '/indicators/hosts/rated2.example', { rating: 1 })
    await expectTallyTrue()
    const active = async (where: string) =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from indicator where active = 1 and ${sql.raw(where)}`.execute(
            t.store.db,
          )
        ).rows[0].n,
      )
    // rated: 5, 4.5, 1, 4, 5, 1, 2, 3, 4, 5 and the Address 192.0.2.2 (3); every other Indicator unrated.
    expect(await active('rating > 2')).toBe(8)
    expect((await v2('GET', '/indicators?filters=rating%3E2&resultLimit=1')).data.resultCount).toBe(8)
    expect((await v2('GET', '/indicators/hosts?filters=rating%3E2&resultLimit=1')).data.resultCount).toBe(7)
    expect((await v2('GET', '/indicators?filters=rating%3C2&resultLimit=1')).data.resultCount).toBe(
      await active('rating < 2'),
    )
    expect(await active('rating < 2')).toBe(2)
    // Not by the tally (another column): counted from the rows, the same answer.
    expect((await v2('GET', '/indicators?filters=rating%3E2,confidence%3E-1&resultLimit=1')).data.resultCount).toBe(
      await active('rating > 2 and confidence > -1'),
    )
  })

  it.runIf(TEST_DB === 'postgres')(
    "on PostgreSQL, folds an owner's deltas into one row per key once they pile up, keeping the sum",
    async () => {
      const owner = (
        await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()
      ).id
      for (let i = 0; i < FOLD_AFTER_ROWS + 1; i++)
        await v2('POST', '/indicators/hosts', { hostName: `fold${i}.example` })
      const deltas = async () =>
        Number(
          (
            await sql<{ n: number }>`select count(*) as n from indicator_tally where owner_id = ${owner}`.execute(
              t.store.db,
            )
          ).rows[0].n,
        )
      expect(await deltas()).toBeGreaterThan(FOLD_AFTER_ROWS)
      const before = await counted()
      const hostsNow = await countIndicatorsByTally(t.store.db, { ownerIds: [owner], type: 'Host', activeOnly: true })
      // The 20 Hosts of the first test, the 10 rated ones of the third, these.
      expect(hostsNow).toBe(30 + FOLD_AFTER_ROWS + 1)
      // One row per key left: owner, type, active flag, rating.
      expect(await deltas()).toBe(Object.keys(before.rows).filter((k) => k.startsWith(`${owner}|`)).length)
      expect((await counted()).tally).toEqual(before.rows)
    },
  )
})
