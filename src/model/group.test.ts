import { describe, expect, it } from 'vitest'
import type { FieldDeclaration } from './field.js'
import { GROUP, GROUP_SUBTYPES } from './group.js'
import { COMMON_GROUP_DATES, GROUP_TYPES, findGroupType } from './group-types.js'

/** STIX 2.1's domain objects (§4) and the cyber-observable objects (§6) a Group type could be. */
const STIX21_TYPES = new Set([
  'attack-pattern',
  'campaign',
  'course-of-action',
  'grouping',
  'identity',
  'incident',
  'indicator',
  'infrastructure',
  'intrusion-set',
  'location',
  'malware',
  'malware-analysis',
  'note',
  'observed-data',
  'opinion',
  'report',
  'threat-actor',
  'tool',
  'vulnerability',
  'artifact',
  'email-message',
  'file',
])

describe('Group declaration', () => {
  it('gives every Group type its STIX 2.1 object type, or says why there is none', () => {
    const lacking = GROUP_TYPES.filter((t) =>
      'none' in t.stix21 ? t.stix21.none.length < 20 : !STIX21_TYPES.has(t.stix21.type),
    )
    expect(lacking.map((t) => t.name)).toEqual([])
    expect(GROUP_TYPES).toHaveLength(16)
  })

  it('names only Group types in its per-type rules', () => {
    const names = new Set<string>(GROUP_SUBTYPES.map((t) => t.name))
    const strangers = GROUP.fields.flatMap((f: FieldDeclaration) =>
      Object.keys(f.subtypes ?? {})
        .filter((t) => !names.has(t))
        .map((t) => `${f.name}: ${t}`),
    )
    expect(strangers).toEqual([])
  })

  it('gives each type its own fields in the order a body is checked, and every type the common dates', () => {
    const rules = (name: string) =>
      findGroupType(name)!.fields.map(
        (f) => `${f.name}${f.requiredOnCreate ? '!' : ''}${f.requiredOnUpdate ? '^' : ''}`,
      )
    expect(rules('Document')).toEqual(['name!', 'fileName!', 'malware', 'password', 'status'])
    expect(rules('Email')).toEqual(['name!', 'subject!', 'header!', 'body!', 'to', 'from'])
    expect(rules('Event')).toEqual(['name!', 'eventDate!', 'status'])
    expect(rules('Incident')).toEqual(['name!', 'eventDate!', 'status'])
    expect(rules('Report')).toEqual(['name!', 'fileName!', 'publishDate', 'status'])
    expect(rules('Signature')).toEqual(['name!^', 'fileName!^', 'fileType!^', 'fileText!'])
    expect(rules('Adversary')).toEqual(['name!'])
    expect(findGroupType('events')!.fields.find((f) => f.name === 'status')!.values).toContain('Escalated')
    expect(findGroupType('incidents')!.fields.find((f) => f.name === 'status')!.values).toContain(
      'Containment Achieved',
    )
    expect(COMMON_GROUP_DATES.map((d) => [d.name, d.column])).toEqual([
      ['firstSeen', 'first_seen'],
      ['lastSeen', 'last_seen'],
      ['externalDateAdded', 'external_date_added'],
      ['externalLastModified', 'external_last_modified'],
      ['externalDateExpires', 'external_date_expires'],
    ])
  })

  it('finds a type by name, entity or branch', () => {
    expect(
      ['Intrusion Set', 'intrusionset', 'intrusionSet', 'intrusionSets', ' INTRUSIONSETS '].map(
        (n) => findGroupType(n)?.name,
      ),
    ).toEqual(Array(5).fill('Intrusion Set'))
    expect(findGroupType('nope')).toBeUndefined()
  })
})
