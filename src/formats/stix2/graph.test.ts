/**
 * The STIX graph of one input: associations given once both ends are read, held while one is to
 * come, and settled at the end of the input (a Group end named by xid, an indicator end reported).
 */
import { describe, expect, it } from 'vitest'
import { GROUP_TYPE_OF, StixGraph, groupOfSdo } from './graph.js'

const id = (type: string, n: number) => `${type}--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

describe('StixGraph', () => {
  it('takes the Group type of each imported SDO type from the model', () => {
    expect(Object.fromEntries(GROUP_TYPE_OF)).toEqual({
      'threat-actor': 'Adversary',
      'intrusion-set': 'Intrusion Set',
      campaign: 'Campaign',
      malware: 'Malware',
      tool: 'Tool',
      'attack-pattern': 'Attack Pattern',
      'course-of-action': 'Course of Action',
      vulnerability: 'Vulnerability',
      report: 'Report',
      incident: 'Incident',
    })
  })

  it('gives a link at once when both ends were read, one association per Indicator of an indicator object', () => {
    const g = new StixGraph()
    g.groupRead(id('campaign', 1), 'Campaign')
    g.indicatorRead(id('indicator', 2), [
      { type: 'Host', summary: 'a.example' },
      { type: 'Address', summary: '192.0.2.1' },
    ])
    expect(g.link('objects[3]', id('indicator', 2), id('campaign', 1), true)).toEqual({
      associations: [
        {
          where: 'objects[3] (association 1 of 2)',
          item: { ref_1: 'a.example', type_1: 'Host', ref_2: id('campaign', 1), type_2: 'Campaign' },
        },
        {
          where: 'objects[3] (association 2 of 2)',
          item: { ref_1: '192.0.2.1', type_1: 'Address', ref_2: id('campaign', 1), type_2: 'Campaign' },
        },
      ],
      observations: [],
      errors: [],
    })
  })

  it("carries a relationship's type and version on its associations, its source as end 1, held or not", () => {
    const g = new StixGraph()
    g.groupRead(id('malware', 1), 'Malware')
    const typed = { type: 'authored-by', modified: '2023-01-01T00:00:00.000Z' }
    expect(g.link('line 1', id('malware', 1), id('intrusion-set', 2), true, typed).associations).toEqual([])
    expect(g.groupRead(id('intrusion-set', 2), 'Intrusion Set').associations).toEqual([
      {
        where: 'line 1',
        item: {
          ref_1: id('malware', 1),
          type_1: 'Malware',
          ref_2: id('intrusion-set', 2),
          type_2: 'Intrusion Set',
          relationshipType: 'authored-by',
          relationshipModified: '2023-01-01T00:00:00.000Z',
        },
      },
    ])
    // A report's reference has no type.
    g.groupRead(id('report', 3), 'Report')
    expect(g.link('line 3', id('report', 3), id('malware', 1), false).associations.map((a) => a.item)).toEqual([
      { ref_1: id('report', 3), type_1: 'Report', ref_2: id('malware', 1), type_2: 'Malware' },
    ])
  })

  it('gives a sighting of a Group as a Group sighting (its window and version), not a refusal', () => {
    const g = new StixGraph()
    const sighting = {
      count: 2,
      dateObserved: '2022-02-02T00:00:00Z',
      firstSeen: '2022-02-01T00:00:00Z',
      lastSeen: '2022-02-02T00:00:00Z',
      externalLastModified: '2022-03-01T00:00:00.000Z',
    }
    expect(g.sighting('line 1', id('sighting', 1), id('malware', 2), sighting).observations).toEqual([])
    expect(g.groupRead(id('malware', 2), 'Malware')).toEqual({
      associations: [],
      observations: [
        {
          where: 'line 1',
          item: {
            groupXid: id('malware', 2),
            sourceId: id('sighting', 1),
            count: 2,
            dateObserved: '2022-02-02T00:00:00Z',
            externalLastModified: '2022-03-01T00:00:00.000Z',
            firstSeen: '2022-02-01T00:00:00Z',
            lastSeen: '2022-02-02T00:00:00Z',
          },
        },
      ],
      errors: [],
    })
  })

  it('holds a link until its ends are read, and settles what is left at the end of the input', () => {
    const g = new StixGraph()
    const upper = 'indicator--ABCDEF00-0000-4000-8000-000000000001'
    expect(g.link('line 1', id('malware', 1), upper, true).associations).toEqual([])
    expect(g.link('line 2', id('malware', 1), id('indicator', 9), true).associations).toEqual([])
    expect(g.link('line 3', id('malware', 1), id('intrusion-set', 7), true).associations).toEqual([])
    expect(g.groupRead(id('malware', 1), 'Malware').associations).toEqual([])
    // An id not in the packed form (upper-case hex) is remembered as written.
    expect(g.indicatorRead(upper, [{ type: 'URL', summary: 'http://x.example/' }]).associations).toEqual([
      {
        where: 'line 1',
        item: { ref_1: id('malware', 1), type_1: 'Malware', ref_2: 'http://x.example/', type_2: 'URL' },
      },
    ])
    expect(g.end()).toEqual({
      associations: [
        {
          where: 'line 3',
          item: { ref_1: id('malware', 1), type_1: 'Malware', ref_2: id('intrusion-set', 7), type_2: 'Intrusion Set' },
        },
      ],
      observations: [],
      errors: [
        {
          where: 'line 2',
          error: `${id('indicator', 9)} is not in this input (an Indicator is found by its value, which only its object gives)`,
        },
      ],
    })
  })

  it('refuses what makes no association, and drops a report reference to it', () => {
    const g = new StixGraph()
    g.indicatorRead(id('indicator', 1), [{ type: 'Host', summary: 'a.example' }])
    g.indicatorRead(id('indicator', 2), [])
    g.indicatorRead(id('indicator', 3), [{ type: 'Host', summary: 'b.example' }])
    const errors = (a: string, b: string) => g.link('x', a, b, true).errors.map((e) => e.error)
    expect(errors(id('indicator', 1), id('identity', 1))).toEqual([
      `${id('identity', 1)} is an identity, which Bulwark does not import`,
    ])
    expect(errors(id('indicator', 2), id('campaign', 1))).toEqual([
      `${id('indicator', 2)} made no Indicator (it is reported on its own)`,
    ])
    expect(errors(id('indicator', 1), id('indicator', 3))[0]).toMatch(/are both indicators/)
    expect(g.link('r', id('report', 1), id('relationship', 1), false)).toEqual({
      associations: [],
      observations: [],
      errors: [],
    })
    expect(g.link('r', id('report', 1), id('identity', 1), false).errors).toEqual([])
  })

  it('makes a Group of an SDO: Report file name, Incident event date, attributes from references', () => {
    const report = groupOfSdo(
      {
        type: 'report',
        id: id('report', 1),
        name: 'R',
        created: '2020-01-01T00:00:00Z',
        published: '2020-01-02T00:00:00Z',
        external_references: [{ source_name: 'cve', external_id: 'CVE-2021-44228' }, { source_name: 'note only' }],
      },
      new Map(),
    )
    expect(report).toEqual({
      type: 'Report',
      xid: id('report', 1),
      name: 'R',
      externalDateAdded: '2020-01-01T00:00:00Z',
      fileName: `${id('report', 1)}.json`,
      publishDate: '2020-01-02T00:00:00Z',
      attribute: [
        { type: 'External ID', value: 'cve: CVE-2021-44228' },
        { type: 'Additional Analysis and Context', value: 'note only' },
      ],
    })
    const incident = groupOfSdo(
      { type: 'incident', id: id('incident', 1), name: 'I', created: '2021-05-05T00:00:00Z' },
      new Map(),
    )
    expect(incident.eventDate).toBe('2021-05-05T00:00:00Z')
    expect(() => groupOfSdo({ type: 'malware', id: id('malware', 1), name: 'M', revoked: true }, new Map())).toThrow(
      'the malware is revoked',
    )
  })
})
