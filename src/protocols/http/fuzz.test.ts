/**
 * Bad input never reaches a 500: seeded random bodies and parameters against the write and
 * list endpoints of v2 and v3 must all get an answer below 500 in the interface's envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
let groupId: number
beforeAll(async () => {
  t = await createTestApp()
  groupId = (await t.request({ method: 'POST', url: '/api/v2/groups/adversaries', payload: { name: 'Fuzz target' } })).json().data.adversary.id
})
afterAll(async () => { await t.close() })

/** A small deterministic PRNG, so a failure can be replayed. */
function prng(seed: number) {
  let s = seed >>> 0
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32)
}

const STRINGS = ['', ' ', 'x', '💥', '%00', "'; drop table indicator; --", '<a>', '{"a":', 'null', 'true', '-1', '1e309',
  '2026-13-45T99:99:99Z', 'TODAY()', 'a'.repeat(5000), '\\', '../../etc/passwd', '0x1F', 'NaN']

function randomValue(rand: () => number, depth = 0): unknown {
  const pick = Math.floor(rand() * (depth > 2 ? 5 : 8))
  switch (pick) {
    case 0: return null
    case 1: return rand() < 0.5
    case 2: return [0, -1, 1.5, 2 ** 53, -(2 ** 31), 1e308][Math.floor(rand() * 6)]
    case 3: case 4: return STRINGS[Math.floor(rand() * STRINGS.length)]
    case 5: return Array.from({ length: Math.floor(rand() * 3) }, () => randomValue(rand, depth + 1))
    default: return randomObject(rand, depth + 1)
  }
}

const FIELDS = ['name', 'type', 'summary', 'hostName', 'ip', 'md5', 'text', 'rating', 'confidence', 'eventDate', 'status', 'tags',
  'attributes', 'securityLabels', 'associatedGroups', 'associatedIndicators', 'data', 'mode', 'id', 'ownerName', 'fileType', 'xid',
  'dueDate', 'assignee', 'value', 'attribute', 'tag', 'active', 'privateFlag', 'description']

function randomObject(rand: () => number, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (let i = Math.floor(rand() * 5); i >= 0; i--) out[FIELDS[Math.floor(rand() * FIELDS.length)]] = randomValue(rand, depth)
  return out
}

const WRITES = () => [
  ['POST', '/api/v2/indicators/hosts'], ['POST', '/api/v2/indicators/files'], ['PUT', '/api/v2/indicators/hosts/fuzz.example'],
  ['POST', '/api/v2/groups/incidents'], ['POST', '/api/v2/groups/signatures'], ['PUT', `/api/v2/groups/adversaries/${groupId}`],
  ['POST', `/api/v2/groups/adversaries/${groupId}/attributes`], ['POST', '/api/v2/tasks'], ['POST', '/api/v2/victims'],
  ['POST', '/api/v2/customMetrics'], ['POST', '/api/v2/tags'], ['POST', '/api/v2/batch'],
  ['POST', '/api/v3/indicators'], ['POST', '/api/v3/groups'], ['PUT', `/api/v3/groups/${groupId}`], ['POST', '/api/v3/cases'],
  ['POST', '/api/v3/tags'], ['POST', '/api/v3/victims'], ['POST', '/api/v3/groupAttributes'],
] as const

const QUERIES = ['tql', 'fields', 'sorting', 'resultStart', 'resultLimit', 'owner', 'filters', 'includes', 'count', 'modifiedSince']

describe('random input never gives a 500', () => {
  it('on write endpoints', async () => {
    const rand = prng(20261123)
    for (const [method, url] of WRITES()) {
      for (let i = 0; i < 12; i++) {
        const body = rand() < 0.8 ? randomObject(rand) : randomValue(rand)
        const res = await t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(body).slice(0, 300)}`).toBeLessThan(500)
        expect(res.json().status, `${method} ${url}`).toMatch(/^(Success|Error|Queued|Invalid)$/)
      }
    }
  })

  it('on list endpoints with random parameters', async () => {
    const rand = prng(42)
    for (const path of ['/api/v2/indicators', '/api/v2/groups', '/api/v2/tasks', '/api/v2/tags', '/api/v3/indicators', '/api/v3/groups', '/api/v3/tags', '/api/v3/cases']) {
      for (let i = 0; i < 12; i++) {
        const params = new URLSearchParams()
        for (let j = Math.floor(rand() * 3); j >= 0; j--) params.append(QUERIES[Math.floor(rand() * QUERIES.length)], String(randomValue(rand, 3)))
        const url = `${path}?${params}`
        const res = await t.request({ method: 'GET', url })
        expect(res.statusCode, url).toBeLessThan(500)
      }
    }
  })
})
