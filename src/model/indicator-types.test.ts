import { describe, expect, it } from 'vitest'
import { findIndicatorType } from './indicator-types.js'

describe('CIDR blocks', () => {
  const cidr = findIndicatorType('CIDR')!
  it('accept IPv4 prefixes up to 32 and IPv6 prefixes up to 128', () => {
    expect(
      ['10.0.0.0/8', '10.0.0.1/32', '0.0.0.0/0', '2001:DB8::/32', '2001:db8::1/128', '::ffff:10.0.0.0/104'].map((v) =>
        cidr.normalize(0, v),
      ),
    ).toEqual(['10.0.0.0/8', '10.0.0.1/32', '0.0.0.0/0', '2001:db8::/32', '2001:db8::1/128', '::ffff:10.0.0.0/104'])
  })
  it('refuse impossible prefixes and addresses', () => {
    expect(
      [
        '10.0.0.0/99',
        '10.0.0.0/33',
        '2001:db8::/129',
        '2001:db8::/999',
        '300.0.0.0/8',
        '10.0.0/8',
        '10.0.0.0',
        'gg::/64',
        '10.0.0.0/-1',
      ].map((v) => cidr.normalize(0, v)),
    ).toEqual(Array(9).fill(null))
  })
})
