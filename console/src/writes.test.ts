import { describe, expect, it } from 'vitest'
import { type OwnerAccess, mayWrite } from './api.js'
import { eachOf, fieldLabel, indicatorBody, writableOwners } from './writes.js'

const OWNERS: OwnerAccess[] = [
  {
    id: 1,
    name: 'Acme',
    type: 'Organization',
    ownerRole: 'Standard User',
    permIndicator: 'FULL',
    permGroup: 'FULL',
    permTask: 'FULL',
  },
  {
    id: 2,
    name: 'Partners',
    type: 'Community',
    ownerRole: 'Subscriber',
    permIndicator: 'READ',
    permGroup: 'READ',
    permTask: 'NONE',
  },
]

describe("the console's writes", () => {
  it('builds the v3 body of an Indicator from a typed value, defanged too', () => {
    expect(indicatorBody('hxxp://made[.]example/a')).toEqual({ body: { type: 'URL', text: 'http://made.example/a' } })
    expect(indicatorBody(' 1.2.3[.]4 ')).toEqual({ body: { type: 'Address', ip: '1.2.3.4' } })
    expect(indicatorBody('evil[.]example')).toEqual({ body: { type: 'Host', hostName: 'evil.example' } })
    expect(indicatorBody('d41d8cd98f00b204e9800998ecf8427e')).toEqual({
      body: { type: 'File', md5: 'D41D8CD98F00B204E9800998ECF8427E' },
    })
    expect(indicatorBody('nss3.dll')).toEqual({
      reason: "'nss3.dll' is a file name (.dll is no top-level domain), not a host",
    })
  })

  it('offers only the owners where the role gives FULL, and shows controls only there', () => {
    expect(writableOwners(OWNERS, 'permIndicator').map((o) => o.name)).toEqual(['Acme'])
    expect(mayWrite(OWNERS, 'Acme', 'indicators')).toBe(true)
    expect(mayWrite(OWNERS, 'Acme', 'cases')).toBe(true)
    expect(mayWrite(OWNERS, 'Partners', 'groups')).toBe(false)
    expect(mayWrite(OWNERS, 'Nobody', 'indicators')).toBe(false)
    expect(mayWrite(OWNERS, 'Acme', 'artifacts')).toBe(false)
  })

  it('runs many writes four at a time and keeps each refusal', async () => {
    let running = 0
    let most = 0
    const refused = await eachOf([1, 2, 3, 4, 5, 6, 7, 8, 9], async (id) => {
      most = Math.max(most, ++running)
      await new Promise((resolve) => setTimeout(resolve, 5))
      running--
      if (id % 4 === 0) throw new Error(`no ${id}`)
    })
    expect(most).toBe(4)
    expect([...refused]).toEqual([
      [4, 'no 4'],
      [8, 'no 8'],
    ])
  })

  it('names the API fields in words', () => {
    expect(fieldLabel('externalDateAdded')).toBe('External date added')
    expect(fieldLabel('ownerName')).toBe('Owner name')
    expect(fieldLabel('type')).toBe('Type')
  })
})
