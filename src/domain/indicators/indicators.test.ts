import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'
import { associate } from '../items/associations.js'
import type { RequestContext } from '../context.js'
import { createOrUpdateIndicator, getIndicatorBySummary, indicatorItem, listIndicators } from './indicators.js'
import { compileIndicatorFilter } from './filters.js'
import { withTransaction } from '../transaction.js'
import { findReadableItem } from '../items/items.js'
import { createTestGroup } from '../../test/factories.js'

let t: TestApp
let ctx: RequestContext
beforeAll(async () => {
  t = await createTestApp()
  ctx = await t.context()
})
afterAll(async () => {
  await t.close()
})

describe('the filter table', () => {
  it('maps v2 filters to columns and typed values', () => {
    expect(compileIndicatorFilter({ field: 'rating', op: '>', value: '3' })).toEqual({
      column: 'rating',
      op: '>',
      value: 3,
    })
    expect(compileIndicatorFilter({ field: 'dnsactive', op: '=', value: 'true' })).toEqual({
      column: 'dns_active',
      op: '=',
      value: 1,
    })
    expect(compileIndicatorFilter({ field: 'modifiedSince', op: '=', value: '2024-01-02' })).toEqual({
      column: 'last_modified',
      op: '>=',
      value: '2024-01-02T00:00:00.000Z',
    })
    expect(compileIndicatorFilter({ field: 'summary', op: '^', value: '10.' })).toEqual({
      column: 'summary',
      op: '^',
      value: '10.',
    })
    // tcex qualifies some names with the type's entity.
    expect(compileIndicatorFilter({ field: 'host.dnsActive', op: '=', value: 'false' })).toEqual({
      column: 'dns_active',
      op: '=',
      value: 0,
    })
    expect(compileIndicatorFilter({ field: 'indicator.threatAssessScore', op: '>', value: '5' }).column).toBe(
      'threat_assess_score',
    )
  })

  it('names the field and operator it refuses', () => {
    expect(() => compileIndicatorFilter({ field: 'owner', op: '=', value: 'x' })).toThrow(
      /Unknown filter 'owner' for Indicators; use active, summary/,
    )
    expect(() => compileIndicatorFilter({ field: 'summary', op: '<', value: 'x' })).toThrow(
      'Filter summary takes the operators = ^, not <',
    )
    expect(() => compileIndicatorFilter({ field: 'confidence', op: '=', value: 'high' })).toThrow(/whole number/)
    expect(() => compileIndicatorFilter({ field: 'host.city', op: '=', value: 'x' })).toThrow(
      /Unknown filter 'host.city' for Indicators/,
    )
  })
})

describe('createOrUpdateIndicator', () => {
  it('accepts a summary in place of the value fields, and value1..value3', async () => {
    const { indicator, created } = await createOrUpdateIndicator(ctx, {
      type: 'Registry Key',
      summary: 'HKCU\\Run : x : REG_SZ',
    })
    expect(created).toBe(true)
    expect(indicator.values).toEqual(['HKCU\\Run', 'x', 'REG_SZ'])
    const again = await createOrUpdateIndicator(ctx, {
      type: 'registryKeys',
      value1: 'HKCU\\Run',
      value2: 'x',
      value3: 'REG_SZ',
      rating: '2.5',
    })
    expect(again).toMatchObject({ created: false, indicator: { id: indicator.id, rating: 2.5 } })
  })

  it("joins a caller's transaction and rolls back with it", async () => {
    await expect(
      withTransaction(ctx, async (tctx) => {
        await createOrUpdateIndicator(tctx, { type: 'Host', hostName: 'rollback.example' })
        throw new Error('abort the batch')
      }),
    ).rejects.toThrow('abort the batch')
    await expect(getIndicatorBySummary(ctx, 'Host', 'rollback.example')).rejects.toMatchObject({ code: 'not_found' })
  })
})

describe('listIndicators', () => {
  it('lists Indicators associated with an item, and those sharing a Group with it', async () => {
    const a = (await createOrUpdateIndicator(ctx, { type: 'Address', ip: '10.0.0.1' })).indicator
    const b = (await createOrUpdateIndicator(ctx, { type: 'Host', hostName: 'b.example' })).indicator
    const id = await createTestGroup(t, { type: 'Threat', name: 'T' })
    const group = await findReadableItem(ctx, 'group', id)
    await associate(ctx, group, indicatorItem(ctx, a))
    await associate(ctx, group, indicatorItem(ctx, b))
    const direct = await listIndicators(ctx, { associatedWith: { kind: 'group', id } })
    expect(direct.items.map((i) => i.summary).sort()).toEqual(['10.0.0.1', 'b.example'])
    const sharing = await listIndicators(ctx, { associatedWith: { kind: 'indicator', id: a.id, via: 'group' } })
    expect(sharing).toMatchObject({ total: 1, items: [{ summary: 'b.example' }] })
  })

  it('honours modifiedSince and refuses a malformed one', async () => {
    expect((await listIndicators(ctx, { modifiedSince: '2999-01-01' })).total).toBe(0)
    expect((await listIndicators(ctx, { modifiedSince: '2000-01-01T00:00:00Z' })).total).toBeGreaterThan(0)
    await expect(listIndicators(ctx, { modifiedSince: 'last week' })).rejects.toMatchObject({ code: 'invalid' })
  })
})

describe('one v2 filter builder', () => {
  it('reads values and words refusals alike for Indicators and every other list', async () => {
    const { toConditions } = await import('../listing/list-filters.js')
    const groups = {
      resource: 'Groups',
      specs: { name: { column: 'name', kind: 'string' as const, ops: ['=', '^'] as const } },
    }
    expect(() => toConditions(groups, [{ field: 'name', op: '<', value: 'x' }])).toThrow(
      'Filter name takes the operators = ^, not <',
    )
    expect(() => compileIndicatorFilter({ field: 'summary', op: '<', value: 'x' })).toThrow(
      'Filter summary takes the operators = ^, not <',
    )
    expect(compileIndicatorFilter({ field: 'active', op: '=', value: '1' })).toEqual({
      column: 'active',
      op: '=',
      value: 1,
    })
    expect(compileIndicatorFilter({ field: 'modifiedSince', op: '^', value: '2024-03' })).toEqual({
      column: 'last_modified',
      op: '^',
      value: '2024-03',
    })
  })
})
