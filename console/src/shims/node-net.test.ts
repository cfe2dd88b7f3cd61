import { isIP as nodeIsIP } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isIP } from './node-net.js'

describe("the browser's isIP", () => {
  it.each([
    '1.2.3.4',
    '255.255.255.255',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3',
    '1.2.3.4.5',
    '',
    '::',
    '::1',
    '1::',
    '2001:db8::1',
    '2001:db8:0:0:0:0:0:1',
    '2001:db8:0:0:0:0:0:1:2',
    '1:2:3:4:5:6:7::',
    '::ffff:1.2.3.4',
    '1:2:3:4:5:6:1.2.3.4',
    '1:2:3:4:5:6:7:1.2.3.4',
    'fe80::1%eth0',
    'fe80::1%',
    '1:::2',
    '::1::',
    '12345::',
    'g::1',
    'evil.example',
    '1.2.3.4:80',
    '0.0.0.0::',
    '1.2.3.4::1',
    '::1.2.3.4',
  ])('answers %j as node:net does', (text) => {
    expect(isIP(text)).toBe(nodeIsIP(text))
  })

  it('agrees with node:net on generated addresses and near-misses', () => {
    const part = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('00', '01', 'a', ''))
    const v4 = fc.array(part, { minLength: 3, maxLength: 5 }).map((p) => p.join('.'))
    const group = fc.oneof(fc.stringMatching(/^[0-9a-fA-F]{0,5}$/), v4)
    const v6 = fc.array(group, { minLength: 1, maxLength: 10 }).map((g) => g.join(':'))
    fc.assert(
      fc.property(fc.oneof(v4, v6), (text) => isIP(text) === nodeIsIP(text)),
      { numRuns: 3000 },
    )
  })
})
