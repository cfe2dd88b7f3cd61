import { describe, expect, it } from 'vitest'
import { parseFilterExpressions } from './params.js'

describe('the v2 filters syntax', () => {
  it('reads comma-separated expressions from every filters parameter', () => {
    expect(parseFilterExpressions({ filters: ['name^APT,rating>3', 'summary=a'] })).toEqual([
      { field: 'name', op: '^', value: 'APT' },
      { field: 'rating', op: '>', value: '3' },
      { field: 'summary', op: '=', value: 'a' },
    ])
  })

  it('reads != as the not operator and keeps dotted names', () => {
    expect(parseFilterExpressions({ filters: 'status!=Completed,host.dnsActive=true' })).toEqual([
      { field: 'status', op: '!', value: 'Completed' },
      { field: 'host.dnsActive', op: '=', value: 'true' },
    ])
  })

  it('refuses an expression without an operator', () => {
    expect(() => parseFilterExpressions({ filters: 'rating' })).toThrow(
      "Malformed filter 'rating': expected <name><operator><value> with an operator of = < > ^ !",
    )
    expect(() => parseFilterExpressions({ filters: '=3' })).toThrow(/Malformed filter/)
  })

  it('gives nothing when no filter is given', () => {
    expect(parseFilterExpressions({})).toEqual([])
  })
})
