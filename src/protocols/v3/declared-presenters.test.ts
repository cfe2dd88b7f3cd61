/**
 * The v3 presenters stay explicit object literals (they run per record); this holds each against
 * its kind's declaration: every key an answer carries is a declared field, in declaration order,
 * and every declared scalar field is presented when the record has a value for it.
 */
import { describe, expect, it } from 'vitest'
import type { RequestContext } from '../../domain/context.js'
import { ARTIFACT, ARTIFACT_TYPE } from '../../model/artifact.js'
import { ATTRIBUTE, ATTRIBUTE_TYPE } from '../../model/attribute.js'
import { CASE } from '../../model/case.js'
import type { KindDeclaration } from '../../model/field.js'
import { INTEL_REQUIREMENT } from '../../model/intel-requirement.js'
import { OWNER } from '../../model/owner.js'
import { SECURITY_LABEL } from '../../model/security-label.js'
import { TAG } from '../../model/tag.js'
import { USER } from '../../model/user.js'
import type { AnyEndpoint } from './endpoint.js'
import { ARTIFACT_TYPES, ARTIFACTS } from './routes/artifacts.js'
import { ATTRIBUTE_TYPES } from './routes/attribute-types.js'
import { attributeEndpoint } from './routes/attributes.js'
import { CASES } from './routes/cases.js'
import { INTEL_REQUIREMENTS } from './routes/intel-requirements.js'
import { OWNERS, USERS } from './routes/security.js'
import { SECURITY_LABELS } from './routes/security-labels.js'
import { TAGS } from './routes/tags.js'
import { presentAttribute } from './present-metadata.js'

const user = { id: 7, userName: 'ann', firstName: 'Ann', lastName: 'Lee', pseudonym: 'al', owner: 'Org' }
const time = '2026-01-02T03:04:05.000Z'
const ctx = { services: { publicUrl: 'https://bulwark.example' } } as unknown as RequestContext

interface Case {
  endpoint: AnyEndpoint
  declaration: KindDeclaration
  record: Record<string, unknown>
  /** Declared fields a full record does not show (write-only ones). */
  unshown?: string[]
  /** v3 names of declared fields where the endpoint renames them. */
  renamed?: Record<string, string>
  fields?: string[]
}

const CASES_TO_HOLD: [string, Case][] = [
  [
    'cases',
    {
      endpoint: CASES,
      declaration: CASE,
      record: {
        id: 1,
        xid: 'x',
        name: 'n',
        description: 'd',
        severity: 'Low',
        status: 'Open',
        resolution: 'Escalated',
        caseOpenTime: time,
        caseCloseTime: time,
        caseOccurrenceTime: time,
        caseDetectionTime: time,
        createdBy: user,
        assignee: user,
        ownerId: 2,
        ownerName: 'Org',
        dateAdded: time,
        lastUpdated: time,
      },
    },
  ],
  [
    'artifacts',
    {
      endpoint: ARTIFACTS,
      declaration: ARTIFACT,
      record: {
        id: 1,
        caseId: 2,
        caseXid: 'x',
        taskId: 3,
        summary: 's',
        type: 'Host',
        intelType: 'Host',
        source: 'me',
        fieldName: 'f',
        analyticsScore: 9,
        ownerId: 2,
        ownerName: 'Org',
        dateAdded: time,
        lastModified: time,
      },
    },
  ],
  [
    'artifactTypes',
    {
      endpoint: ARTIFACT_TYPES,
      declaration: ARTIFACT_TYPE,
      record: { id: 1, name: 'Host', dataType: 'String', intelType: 'Host', description: 'd', active: true },
    },
  ],
  [
    'intelRequirements',
    {
      endpoint: INTEL_REQUIREMENTS,
      declaration: INTEL_REQUIREMENT,
      record: {
        id: 1,
        xid: 'x',
        uniqueId: 'IR-1',
        requirementText: 'r',
        category: { name: 'c' },
        subtype: { id: 1, name: 'IR', description: 'd' },
        description: 'd',
        keywordSections: [{ compareValue: 'includes', keywords: [{ value: 'v' }] }],
        resetResults: false,
        createdBy: user,
        ownerId: 2,
        ownerName: 'Org',
        dateAdded: time,
        lastModified: time,
      },
    },
  ],
  [
    'caseAttributes',
    {
      endpoint: attributeEndpoint('case'),
      declaration: ATTRIBUTE,
      renamed: { itemId: 'caseId' },
      record: {
        id: 1,
        itemKind: 'case',
        itemId: 2,
        type: 'Description',
        value: 'v',
        source: 's',
        default: true,
        pinned: false,
        createdBy: user,
        ownerId: 2,
        ownerName: 'Org',
        dateAdded: time,
        lastModified: time,
      },
    },
  ],
  [
    'attributeTypes',
    {
      endpoint: ATTRIBUTE_TYPES,
      declaration: ATTRIBUTE_TYPE,
      fields: ['mapping'],
      record: {
        id: 1,
        name: 'Description',
        description: 'd',
        allowMarkdown: true,
        errorMessage: 'e',
        maxSize: 10,
        validationRule: { name: 'r', type: 'regex', text: '.*', description: 'd' },
        appliesTo: ['case'],
        system: true,
        ownerId: null,
        ownerName: null,
      },
    },
  ],
  [
    'tags',
    {
      endpoint: TAGS,
      declaration: TAG,
      record: {
        id: 1,
        name: 't',
        description: 'd',
        techniqueId: 'T1',
        dateAdded: time,
        lastUsed: time,
        ownerId: 2,
        ownerName: 'Org',
      },
    },
  ],
  [
    'securityLabels',
    {
      endpoint: SECURITY_LABELS,
      declaration: SECURITY_LABEL,
      record: {
        id: 1,
        name: 'TLP:RED',
        description: 'd',
        color: 'FF0000',
        dateAdded: time,
        ownerId: 2,
        ownerName: 'Org',
      },
    },
  ],
  [
    'security/owners',
    {
      endpoint: OWNERS,
      declaration: OWNER,
      record: {
        id: 1,
        name: 'Org',
        type: 'Organization',
        ownerRole: 'Organization Administrator',
        permIndicator: 'FULL',
        permGroup: 'READ',
      },
    },
  ],
  [
    'security/users',
    {
      endpoint: USERS,
      declaration: USER,
      unshown: ['password'],
      record: {
        id: 1,
        userName: 'ann',
        firstName: 'Ann',
        lastName: 'Lee',
        pseudonym: 'al',
        owner: 'Org',
        details: {
          systemRole: 'User',
          ownerRoles: { Org: 'Standard User' },
          disabled: false,
          customTqlTimeout: 1000,
          kind: 'human',
        },
      },
    },
  ],
]

describe('v3 presenters against the declarations', () => {
  it.each(CASES_TO_HOLD)('%s', (_, c) => {
    const fields = new Map((c.fields ?? []).map((name) => [name, new Map()]))
    const presented = Object.keys(c.endpoint.present(c.record as { id: number }, { ctx, fields }))
      .map((key) => (key.startsWith('perm') ? 'perm*' : key))
      .filter((key, i, all) => all.indexOf(key) === i)
    const options = new Set(c.endpoint.options.map((o) => o.name))
    const declared = c.declaration.fields.filter((f) => f.v3 !== false).map((f) => c.renamed?.[f.name] ?? f.name)
    const scalars = c.declaration.fields
      .filter((f) => f.v3 !== false && !(f.v3 && f.v3.list) && !c.unshown?.includes(f.name))
      .map((f) => c.renamed?.[f.name] ?? f.name)
    // What a fields= option adds (attributeTypeMappings for fields=mapping) is the option's, not a declared field.
    const undeclared = presented.filter((key) => !declared.includes(key))
    expect(undeclared.length).toBeLessThanOrEqual((c.fields ?? []).filter((name) => options.has(name)).length)
    expect(presented.filter((key) => declared.includes(key))).toEqual(
      declared.filter((name) => presented.includes(name)),
    )
    expect(scalars.filter((name) => !presented.includes(name))).toEqual([])
  })

  it('an attribute nested in its item (fields=attributes) carries declared fields, in order', () => {
    const presented = Object.keys(
      presentAttribute({
        id: 1,
        type: 'Description',
        value: 'v',
        dateAdded: time,
        lastModified: time,
        displayed: true,
        pinned: false,
        source: 's',
      }),
    )
    const declared: string[] = (ATTRIBUTE as KindDeclaration).fields.filter((f) => f.v3 !== false).map((f) => f.name)
    expect(presented.filter((key) => !declared.includes(key))).toEqual([])
    expect(presented).toEqual(declared.filter((name) => presented.includes(name)))
  })
})
