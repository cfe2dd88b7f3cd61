import { describe, expect, it } from 'vitest'
import { formatGraphState, parseGraphState } from './state.js'

describe('the graph state in the address', () => {
  it('reads back what it wrote', () => {
    const state = {
      expanded: [
        { kind: 'groups', id: 5, loaded: 50 },
        { kind: 'indicators', id: 9, loaded: 0 },
        { kind: 'indicators', id: 9, loaded: 25, associationType: 'URL Host, typed' },
      ],
      nodes: [
        { parent: 0, node: { kind: 'indicators', id: 9 } },
        { parent: 1, node: { kind: 'groups', id: 7 } },
      ],
      hidden: ['victims'],
      filter: '3',
    }
    const params = formatGraphState(state)
    expect(params).toEqual({
      expanded: 'groups:5~50,indicators:9,indicators:9~25!URL%20Host%2C%20typed',
      nodes: '0.indicators:9,1.groups:7',
      hide: 'victims',
      filter: '3',
    })
    expect(parseGraphState(params)).toEqual(state)
  })

  it('drops tokens that name nothing or a parent that is not expanded', () => {
    expect(parseGraphState({ expanded: 'groups:5,x', nodes: '0.indicators:1,4.groups:2,0.bad,indicators:3' })).toEqual({
      expanded: [{ kind: 'groups', id: 5, loaded: 0 }],
      nodes: [{ parent: 0, node: { kind: 'indicators', id: 1 } }],
      hidden: [],
    })
  })
})
