/**
 * The feed's columns come from the declaration (the columns with a place in STIX); its rows are
 * arrays, so the positions FEED_ROW names and the FeedRow type spells are held here against them.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import { FEED_COLUMNS, FEED_ROW, type FeedRow } from './feed.repository.js'

describe('feed columns', () => {
  it('are the key, the values and the columns STIX carries, in the positions FEED_ROW names', () => {
    expect(FEED_COLUMNS).toEqual([
      'id',
      'owner_id',
      'type',
      'summary',
      'value1',
      'value2',
      'value3',
      'rating',
      'confidence',
      'description',
      'active',
      'external_date_added',
      'external_date_expires',
      'date_added',
      'last_modified',
      'stix_id',
    ])
    const named = {
      id: 'id',
      ownerId: 'owner_id',
      type: 'type',
      summary: 'summary',
      value1: 'value1',
      value2: 'value2',
      value3: 'value3',
      rating: 'rating',
      confidence: 'confidence',
      description: 'description',
      active: 'active',
      externalAdded: 'external_date_added',
      expires: 'external_date_expires',
      dateAdded: 'date_added',
      lastModified: 'last_modified',
      stixId: 'stix_id',
    } as const
    for (const [key, column] of Object.entries(named))
      expect(FEED_COLUMNS[FEED_ROW[key as keyof typeof named]], key).toBe(column)
    expect([FEED_ROW.tags, FEED_ROW.labels]).toEqual([FEED_COLUMNS.length, FEED_COLUMNS.length + 1])
    expectTypeOf<FeedRow['length']>().toEqualTypeOf<18>()
  })
})
