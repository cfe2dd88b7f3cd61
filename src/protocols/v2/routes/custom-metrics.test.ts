import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../../test/harness.js'

let t: TestApp
let standard: TestAccount
let reader: TestAccount

async function create(body: Record<string, unknown>) {
  const res = await t.request({ method: 'POST', url: '/api/v2/customMetrics', payload: body })
  expect(res.statusCode).toBe(201)
  return res.json().data.customMetricConfig as { id: number; name: string }
}
function add(metric: string | number, payload: unknown, as?: TestAccount) {
  return t.request({
    method: 'POST',
    url: `/api/v2/customMetrics/${metric}/data?returnValue=true`,
    payload: payload as object,
    as,
  })
}

beforeAll(async () => {
  t = await createTestApp()
  standard = await t.createAccount({ role: 'Standard User' })
  reader = await t.createAccount({ role: 'Read Only User' })
})
afterAll(async () => {
  await t.close()
})

describe('POST /v2/customMetrics', () => {
  it('creates a metric and answers with its configuration', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/customMetrics',
      payload: {
        name: 'playbookRuns',
        dataType: 'Sum',
        interval: 'Hourly',
        keyedValues: true,
        description: 'Monitor Playbook runs',
      },
    })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toEqual({
      status: 'Success',
      data: {
        customMetricConfig: {
          id: expect.any(Number),
          name: 'playbookRuns',
          dataType: 'Sum',
          interval: 'Hourly',
          keyedValues: true,
          description: 'Monitor Playbook runs',
        },
      },
    })
  })

  it('rejects a bad dataType or interval, a duplicate name and a long name with 400', async () => {
    const bad = await t.request({
      method: 'POST',
      url: '/api/v2/customMetrics',
      payload: { name: 'x', dataType: 'Median', interval: 'Daily' },
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().message).toBe("dataType must be one of Sum, Count, Min, Max, First, Last, Average, not 'Median'")
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/api/v2/customMetrics',
          payload: { name: 'x', dataType: 'Sum', interval: 'Fortnightly' },
        })
      ).statusCode,
    ).toBe(400)
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/api/v2/customMetrics',
          payload: { name: 'playbookRuns', dataType: 'Sum', interval: 'Daily' },
        })
      ).statusCode,
    ).toBe(400)
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/api/v2/customMetrics',
          payload: { name: 'n'.repeat(46), dataType: 'Sum', interval: 'Daily' },
        })
      ).statusCode,
    ).toBe(400)
  })

  it('needs configureMetrics: a Standard User gets 401', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/customMetrics',
      payload: { name: 'mine', dataType: 'Sum', interval: 'Daily' },
      as: standard,
    })
    expect(res.statusCode).toBe(401)
  })
})

describe('GET /v2/customMetrics', () => {
  it('lists configurations as customMetricConfig and finds one by name or id', async () => {
    const list = await t.request({ method: 'GET', url: '/api/v2/customMetrics', as: reader })
    expect(list.json().data).toMatchObject({ resultCount: 1, customMetricConfig: [{ name: 'playbookRuns' }] })
    const id = list.json().data.customMetricConfig[0].id
    expect(
      (await t.request({ method: 'GET', url: `/api/v2/customMetrics/${id}` })).json().data.customMetricConfig.name,
    ).toBe('playbookRuns')
    expect(
      (await t.request({ method: 'GET', url: '/api/v2/customMetrics/playbookRuns' })).json().data.customMetricConfig.id,
    ).toBe(id)
    expect((await t.request({ method: 'GET', url: '/api/v2/customMetrics/nope' })).statusCode).toBe(404)
  })

  it('answers in XML when asked', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/customMetrics', headers: { accept: 'application/xml' } })
    expect(res.body).toContain('<CustomMetricConfig><Id>')
    expect(res.body).toContain('<KeyedValues>true</KeyedValues>')
  })
})

describe('POST /v2/customMetrics/{metric}/data', () => {
  it('answers 204 without returnValue, and the aggregate of the period with it', async () => {
    const plain = await t.request({
      method: 'POST',
      url: '/api/v2/customMetrics/playbookRuns/data',
      payload: { name: 'app1', value: '1', date: '2024-04-09T14:44:00Z' },
      as: standard,
    })
    expect(plain.statusCode).toBe(204)
    expect(plain.body).toBe('')
    const res = await add('playbookRuns', { name: 'app1', value: '2', date: '2024-04-09T14:59:59Z' }, standard)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ value: 3, date: '2024-04-09T14:00:00Z' })
    expect((await add('playbookRuns', { name: 'app1', value: 5, date: '2024-04-09T15:00:00Z' })).json()).toEqual({
      value: 5,
      date: '2024-04-09T15:00:00Z',
    })
    expect((await add('playbookRuns', { name: 'app2', value: 7, date: '2024-04-09T14:10:00Z' })).json()).toEqual({
      value: 7,
      date: '2024-04-09T14:00:00Z',
    })
  })

  it('accepts an array of points, all or none', async () => {
    const res = await add('playbookRuns', [
      { name: 'app3', value: 1, date: '2024-04-09T10:00:00Z' },
      { name: 'app3', value: 1, date: '2024-04-09T10:30:00Z' },
    ])
    expect(res.json()).toEqual([
      { value: 1, date: '2024-04-09T10:00:00Z' },
      { value: 2, date: '2024-04-09T10:00:00Z' },
    ])
    const bad = await add('playbookRuns', [
      { name: 'app4', value: 1 },
      { name: 'app4', value: 'lots' },
    ])
    expect(bad.statusCode).toBe(400)
    expect(bad.json().message).toBe("value (item 1) must be a number, not 'lots'")
    const listed = await t.request({ method: 'GET', url: '/api/v2/customMetrics/playbookRuns/data?name=app4' })
    expect(listed.json().data).toEqual({ resultCount: 0, customMetricValue: [] })
  })

  it('rejects a keyed point without its key, a bad date, a read-only caller and an unknown metric', async () => {
    expect((await add('playbookRuns', { value: 1 })).statusCode).toBe(400)
    expect((await add('playbookRuns', { name: 'a', value: 1, date: 'yesterday' })).statusCode).toBe(400)
    expect((await add('playbookRuns', { name: 'a', value: 1 }, reader)).statusCode).toBe(401)
    expect((await add('nope', { name: 'a', value: 1 })).statusCode).toBe(404)
  })

  it('folds each data type its own way within the period', async () => {
    const cases: [string, [number, number?][], number][] = [
      ['Count', [[9], [9], [9]], 3],
      ['Min', [[5], [2], [8]], 2],
      ['Max', [[5], [2], [8]], 8],
      ['First', [[5], [2], [8]], 5],
      ['Last', [[5], [2], [8]], 8],
      [
        'Average',
        [
          [10, 1],
          [40, 2],
        ],
        30,
      ],
    ]
    for (const [dataType, points, expected] of cases) {
      const metric = await create({ name: `m${dataType}`, dataType, interval: 'Daily' })
      let last: { value: number; date: string } | undefined
      for (const [value, weight] of points)
        last = (await add(metric.id, { value, weight, date: '2024-04-09T14:44:00Z' })).json()
      expect([dataType, last]).toEqual([dataType, { value: expected, date: '2024-04-09T00:00:00Z' }])
    }
  })

  it('starts weeks on Monday and months on the first, in UTC', async () => {
    const weekly = await create({ name: 'weekly', dataType: 'Sum', interval: 'Weekly' })
    expect((await add(weekly.id, { value: 1, date: '2024-04-14T23:00:00Z' })).json().date).toBe('2024-04-08T00:00:00Z')
    const monthly = await create({ name: 'monthly', dataType: 'Sum', interval: 'Monthly' })
    expect((await add(monthly.id, { value: 1, date: '2024-04-14T23:00:00+05:00' })).json().date).toBe(
      '2024-04-01T00:00:00Z',
    )
    const yearly = await create({ name: 'yearly', dataType: 'Sum', interval: 'Yearly' })
    expect((await add(yearly.id, { value: 1, date: '2024-04-14' })).json().date).toBe('2024-01-01T00:00:00Z')
  })
})

describe('GET /v2/customMetrics/{metric}/data', () => {
  it('lists aggregates newest period first, with the key of keyed metrics', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/customMetrics/playbookRuns/data' })
    expect(res.json().data.customMetricValue.slice(0, 3)).toEqual([
      { name: 'app1', value: 5, date: '2024-04-09T15:00:00Z', count: 1 },
      { name: 'app1', value: 3, date: '2024-04-09T14:00:00Z', count: 2 },
      { name: 'app2', value: 7, date: '2024-04-09T14:00:00Z', count: 1 },
    ])
  })
})

describe('DELETE /v2/customMetrics/{metric}', () => {
  it('deletes a metric and its data, by name or id', async () => {
    expect(
      (await t.request({ method: 'DELETE', url: '/api/v2/customMetrics/playbookRuns', as: standard })).statusCode,
    ).toBe(401)
    const res = await t.request({ method: 'DELETE', url: '/api/v2/customMetrics/playbookRuns' })
    expect(res.json()).toEqual({ apiCalls: 1, resultCount: 0, status: 'Success' })
    expect((await t.request({ method: 'GET', url: '/api/v2/customMetrics/playbookRuns' })).statusCode).toBe(404)
    const values = await t.store.db
      .selectFrom('custom_metric_value')
      .innerJoin('custom_metric', 'custom_metric.id', 'custom_metric_value.metric_id')
      .select('custom_metric.name')
      .where('custom_metric.name', '=', 'playbookRuns')
      .execute()
    expect(values).toEqual([])
  })
})
