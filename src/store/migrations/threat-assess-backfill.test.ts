import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestStore } from '../../test/harness.js'
import type { Store } from '../connect.js'
import { up } from './0085-threat-assess-backfill.js'

let store: Store
let drop: () => Promise<void>
beforeAll(async () => {
  ;({ store, drop } = await createTestStore())
})
afterAll(async () => {
  await drop()
})

describe('migration 0085: ThreatAssess backfill', () => {
  it('fills the figures of Indicators stored without them, and leaves computed ones alone', async () => {
    const db = store.db
    const owner = (
      await db
        .insertInto('owner')
        .values({ name: 'Backfill Org', type: 'Organization', date_added: '2026-01-01T00:00:00.000Z' } as never)
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
    const row = (summary: string, extra: object) => ({
      owner_id: owner,
      type: 'Host',
      summary,
      value1: summary,
      date_added: '2026-01-01T00:00:00.000Z',
      last_modified: '2026-01-01T00:00:00.000Z',
      ...extra,
    })
    // One at a time: a multi-row insert on SQLite writes NULL, not the default, into columns a row leaves out.
    for (const values of [
      row('old.example', { rating: 3, confidence: 50, observation_count: 7, false_positive_count: 1 }),
      row('unrated.example', {}),
      row('done.example', { rating: 5, confidence: 100, threat_assess_score: 999 }),
    ])
      await db
        .insertInto('indicator')
        .values(values as never)
        .execute()
    await up(db)
    const rows = await db
      .selectFrom('indicator')
      .select([
        'summary',
        'threat_assess_rating',
        'threat_assess_confidence',
        'threat_assess_score',
        'threat_assess_score_observed',
        'threat_assess_score_false_positive',
      ])
      .where('owner_id', '=', owner)
      .orderBy('summary')
      .execute()
    expect(
      rows.map((r) => [
        r.summary,
        Number(r.threat_assess_rating ?? NaN),
        Number(r.threat_assess_confidence ?? NaN),
        r.threat_assess_score,
        r.threat_assess_score_observed,
        r.threat_assess_score_false_positive,
      ]),
    ).toEqual([
      ['done.example', NaN, NaN, 999, null, null],
      // 3/5 × 50/100 × 800 = 240, + 14 observed − 50 false positive
      ['old.example', 3, 50, 204, 14, 50],
      ['unrated.example', 0, 0, 0, 0, 0],
    ])
  })
})
