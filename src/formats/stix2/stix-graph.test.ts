import { describe, expect, it } from 'vitest'
import type { FeedGroup } from '../../domain/listing/feed-graph.js'
import { stixSchemaErrors, stixSchemasUnavailable } from '../../test/stix-schemas.js'
import { StixIds } from './stix.js'
import { SERVED_GROUP_TYPES, relationshipType, stixGraphObjects } from './stix-graph.js'

const ids = new StixIds('0d9c9d3a-2f55-4c67-9d0b-0e2bd1c0c001')
const noSchemas = stixSchemasUnavailable()

function group(id: number, type: string, more: Partial<FeedGroup> = {}): FeedGroup {
  return {
    id,
    ownerId: 7,
    type,
    name: `${type} ${id}`,
    xid: null,
    description: null,
    dateAdded: '2026-01-02T00:00:00.000Z',
    lastModified: `2026-01-0${id}T00:00:00.000Z`,
    externalDateAdded: null,
    externalLastModified: null,
    firstSeen: null,
    lastSeen: null,
    publishDate: null,
    tags: [],
    securityLabels: [],
    attributes: [],
    ...more,
  }
}

describe('Groups as STIX 2.1 objects', () => {
  it('serves every Group type with a STIX domain object, and no Signature, Email, Document or Tactic', () => {
    expect(Object.fromEntries(SERVED_GROUP_TYPES)).toEqual({
      Adversary: 'threat-actor',
      Campaign: 'campaign',
      Event: 'grouping',
      Incident: 'incident',
      'Intrusion Set': 'intrusion-set',
      Report: 'report',
      Threat: 'threat-actor',
      'Attack Pattern': 'attack-pattern',
      'Course of Action': 'course-of-action',
      Malware: 'malware',
      Tool: 'tool',
      Vulnerability: 'vulnerability',
    })
  })

  it('chooses the relationship type by the pair of types, either way round, else related-to', () => {
    expect(relationshipType('malware', 'indicator')).toEqual({ type: 'indicates', reversed: true })
    expect(relationshipType('intrusion-set', 'malware')).toEqual({ type: 'uses', reversed: false })
    expect(relationshipType('attack-pattern', 'course-of-action')).toEqual({ type: 'mitigates', reversed: true })
    expect(relationshipType('campaign', 'threat-actor')).toEqual({ type: 'attributed-to', reversed: false })
    expect(relationshipType('vulnerability', 'tool')).toEqual({ type: 'targets', reversed: true })
    expect(relationshipType('incident', 'malware')).toEqual({ type: 'related-to', reversed: false })
  })

  it('keeps an imported STIX id and dates, derives the others, and writes what the attributes say', () => {
    const imported = group(1, 'Intrusion Set', {
      xid: 'intrusion-set--2f0a3a28-1b9c-4c6e-8f6a-3a1c1e0c1d11',
      externalDateAdded: '2021-01-01T00:00:00.000Z',
      externalLastModified: '2021-06-01T00:00:00.000Z',
      firstSeen: '2020-05-01T00:00:00.000Z',
      tags: ['apt'],
      securityLabels: ['TLP:AMBER'],
      attributes: [
        { type: 'Description', value: '<b>verbatim</b>', displayed: true },
        { type: 'External ID', value: 'mitre-attack: G0016' },
        { type: 'Source', value: 'https://attack.mitre.org/groups/G0016' },
        { type: 'Additional Analysis and Context', value: 'aliases: Cozy Bear, The Dukes' },
        { type: 'Additional Analysis and Context', value: 'confidence: 85' },
      ].map((a) => ({ displayed: false, ...a })),
    })
    const custom = group(2, 'Malware', { xid: 'my-own-xid', tags: [] })
    const threat = group(3, 'Threat')
    const lonelyReport = group(4, 'Report')
    const [a, b, c] = stixGraphObjects(ids, {
      groups: [imported, custom, threat, lonelyReport],
      links: [],
    }).map((o) => o.object)
    expect(a).toEqual({
      type: 'intrusion-set',
      spec_version: '2.1',
      id: 'intrusion-set--2f0a3a28-1b9c-4c6e-8f6a-3a1c1e0c1d11',
      created: '2021-01-01T00:00:00.000Z',
      modified: '2021-06-01T00:00:00.000Z',
      name: 'Intrusion Set 1',
      description: '<b>verbatim</b>',
      first_seen: '2020-05-01T00:00:00.000Z',
      aliases: ['Cozy Bear', 'The Dukes'],
      confidence: 85,
      labels: ['apt'],
      external_references: [
        { source_name: 'mitre-attack', external_id: 'G0016' },
        { source_name: 'attack.mitre.org', url: 'https://attack.mitre.org/groups/G0016' },
      ],
      object_marking_refs: ['marking-definition--f88d31f6-486f-44da-b317-01333bde0b82'],
    })
    expect(b).toEqual({
      type: 'malware',
      spec_version: '2.1',
      id: ids.group(7, 'malware', 2),
      created: '2026-01-02T00:00:00.000Z',
      modified: '2026-01-02T00:00:00.000Z',
      name: 'Malware 2',
      is_family: true,
    })
    expect(c).toMatchObject({ type: 'threat-actor', threat_actor_types: ['unknown'] })
    // A Report with nothing to refer to is left out: STIX requires object_refs.
    expect(stixGraphObjects(ids, { groups: [lonelyReport], links: [] })).toEqual([])
  })

  it('makes associations relationships, and a Report’s or an Event’s associations its object_refs', () => {
    const objects = stixGraphObjects(ids, {
      groups: [group(1, 'Malware'), group(2, 'Intrusion Set'), group(3, 'Report'), group(4, 'Event')],
      links: [
        { groupId: 1, to: { kind: 'group', id: 2 }, dateAdded: '2026-01-05T00:00:00.000Z' },
        { groupId: 1, to: { kind: 'indicator', id: 40 }, dateAdded: '2026-01-06T00:00:00.000Z' },
        { groupId: 3, to: { kind: 'indicator', id: 40 }, dateAdded: '2026-01-06T00:00:00.000Z' },
        { groupId: 2, to: { kind: 'group', id: 3 }, dateAdded: '2026-01-06T00:00:00.000Z' },
        { groupId: 4, to: { kind: 'group', id: 1 }, dateAdded: '2026-01-07T00:00:00.000Z' },
      ],
    })
    const malware = ids.group(7, 'malware', 1)
    const intrusionSet = ids.group(7, 'intrusion-set', 2)
    const indicator = ids.indicator(7, 40)
    const relationships = objects.filter((o) => o.type === 'relationship').map((o) => o.object)
    expect(relationships.map((r) => [r.source_ref, r.relationship_type, r.target_ref])).toEqual([
      [intrusionSet, 'uses', malware],
      [indicator, 'indicates', malware],
    ])
    expect(relationships[0]).toMatchObject({
      id: ids.relationship(7, 'group:1', 'group:2'),
      created: '2026-01-05T00:00:00.000Z',
      modified: '2026-01-05T00:00:00.000Z',
    })
    const report = objects.find((o) => o.type === 'report')!.object
    expect(report.object_refs).toEqual([indicator, intrusionSet].sort())
    expect(report.published).toBe(report.created)
    expect(objects.find((o) => o.type === 'grouping')!.object).toMatchObject({
      context: 'suspicious-activity',
      object_refs: [malware],
    })
    // date_added order, then id.
    expect(objects.map((o) => o.dateAdded)).toEqual([...objects.map((o) => o.dateAdded)].sort())
    if (!noSchemas) expect(objects.flatMap((o) => stixSchemaErrors(o.object as { type: string }))).toEqual([])
  })
})

describe('what an import kept, served back', () => {
  it("serves an association's kept type and direction, its retyping as a new version, and an Indicator end under its source id", () => {
    const objects = stixGraphObjects(ids, {
      groups: [group(1, 'Malware'), group(2, 'Intrusion Set')],
      links: [
        {
          groupId: 1,
          to: { kind: 'group', id: 2 },
          dateAdded: '2026-01-05T00:00:00.000Z',
          lastModified: '2026-02-01T00:00:00.000Z',
          relationship: { type: 'authored-by', groupIsSource: true },
        },
        {
          groupId: 2,
          to: { kind: 'indicator', id: 40, stixId: 'indicator--8f4728a7-f6fd-4af3-8f85-20fe4e39c6a0' },
          dateAdded: '2026-01-06T00:00:00.000Z',
          relationship: { type: 'uses', groupIsSource: false },
        },
      ],
    })
    const relationships = objects.filter((o) => o.type === 'relationship')
    expect(
      relationships.map((o) => [o.object.source_ref, o.object.relationship_type, o.object.target_ref, o.version]),
    ).toEqual([
      [
        'indicator--8f4728a7-f6fd-4af3-8f85-20fe4e39c6a0',
        'uses',
        ids.group(7, 'intrusion-set', 2),
        '2026-01-06T00:00:00.000Z',
      ],
      [ids.group(7, 'malware', 1), 'authored-by', ids.group(7, 'intrusion-set', 2), '2026-02-01T00:00:00.000Z'],
    ])
    // Retyped later: created stays the association's, modified and date added move.
    expect(relationships[1]).toMatchObject({
      dateAdded: '2026-02-01T00:00:00.000Z',
      object: { created: '2026-01-05T00:00:00.000Z', modified: '2026-02-01T00:00:00.000Z' },
    })
    if (!noSchemas) expect(objects.flatMap((o) => stixSchemaErrors(o.object as { type: string }))).toEqual([])
  })

  it('serves kill chain phases from attributes on attack patterns, malware and tools only', () => {
    const attributes = [
      { type: 'Attack Phase', value: 'Command and Control', displayed: false },
      { type: 'Additional Analysis and Context', value: 'kill_chain_phase: mitre-attack: execution', displayed: false },
      { type: 'Attack Phase', value: 'not a phase', displayed: false },
    ]
    const objects = stixGraphObjects(ids, {
      groups: [group(1, 'Attack Pattern', { attributes }), group(2, 'Campaign', { attributes })],
      links: [],
    })
    expect(objects.map((o) => [o.type, o.object.kill_chain_phases])).toEqual([
      [
        'attack-pattern',
        [
          { kill_chain_name: 'lockheed-martin-cyber-kill-chain', phase_name: 'command-and-control' },
          { kill_chain_name: 'mitre-attack', phase_name: 'execution' },
        ],
      ],
      ['campaign', undefined],
    ])
    if (!noSchemas) expect(objects.flatMap((o) => stixSchemaErrors(o.object as { type: string }))).toEqual([])
  })
})
