import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { TEST_DB, type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
  for (const host of ['a.example', 'b.example', 'c.example']) {
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/api/v3/indicators',
          payload: { type: 'Host', hostName: host, rating: 3 },
        })
      ).statusCode,
    ).toBe(201)
  }
})
afterAll(async () => {
  await t.close()
})

describe('a v3 list page on PostgreSQL', () => {
  // Every statement is a round trip to the database; on a loaded machine each cost about as much as reading a page.
  const statementsOf = async (url: string) => {
    const queries = vi.spyOn(pg.Client.prototype, 'query')
    try {
      await t.request({ method: 'GET', url }) // settings and credentials are then cached, as they are under load
      queries.mockClear()
      const res = await t.request({ method: 'GET', url })
      expect(res.statusCode).toBe(200)
      expect(res.json().data.map((i: { summary: string }) => i.summary)).toEqual(['a.example', 'b.example'])
      return queries.mock.calls.map(([text]) =>
        String(typeof text === 'string' ? text : (text as { text: string }).text),
      )
    } finally {
      queries.mockRestore()
    }
  }
  const verbs = (texts: string[]) => texts.map((s) => s.split(/\s/)[0]!.toLowerCase())

  it.runIf(TEST_DB === 'postgres')(
    'with TQL is a read-only transaction (a replica may run it), one statement of settings, the owner count, the ids, commit and the records',
    async () => {
      const texts = await statementsOf('/api/v3/indicators?resultLimit=2&tql=rating%20%3E%3D%203')
      expect(texts[0]).toBe('start transaction read only')
      expect(verbs(texts)).toEqual(['start', 'select', 'select', 'select', 'commit', 'select'])
      expect(texts[1]).toMatch(/set_config\(\$1, \$2, true\), set_config\(\$3, \$4, true\)/)
    },
  )

  it.runIf(TEST_DB === 'postgres')(
    'without TQL is the owner count, the ids and the records: nothing to limit, no transaction',
    async () => {
      expect(verbs(await statementsOf('/api/v3/indicators?resultLimit=2'))).toEqual(['select', 'select', 'select'])
    },
  )
})
