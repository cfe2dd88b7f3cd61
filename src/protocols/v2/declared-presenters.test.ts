/**
 * The v2 presenters of attributes, security labels, tags, owners and members keep their own
 * field order (v2's XML and JSON answers have had it); this holds the fields they write against
 * the declarations, so that the record schemas (declared-schemas.ts) name exactly what they write.
 */
import { describe, expect, it } from 'vitest'
import { ATTRIBUTE } from '../../model/attribute.js'
import type { KindDeclaration } from '../../model/field.js'
import { OWNER } from '../../model/owner.js'
import { SECURITY_LABEL } from '../../model/security-label.js'
import { TAG } from '../../model/tag.js'
import { USER } from '../../model/user.js'
import { presentAttributeV2, presentSecurityLabelV2, presentWeighedTagV2 } from './present-metadata.js'
import { presentMemberV2, presentOwnerV2 } from './present-owner.js'

const time = '2026-01-02T03:04:05.000Z'

function v2RecordNames(declaration: KindDeclaration): string[] {
  return declaration.fields
    .filter((f) => f.v2 !== false && f.v2?.record !== false)
    .map((f) => (f.v2 && f.v2.name) || f.name)
}

const PRESENTED: [string, KindDeclaration, Record<string, unknown>][] = [
  [
    'attribute',
    ATTRIBUTE,
    presentAttributeV2({
      id: 1,
      type: 'Description',
      value: 'v',
      dateAdded: time,
      lastModified: time,
      displayed: true,
      pinned: true,
      source: 's',
    }),
  ],
  [
    'security label',
    SECURITY_LABEL,
    presentSecurityLabelV2({
      id: 1,
      name: 'TLP:RED',
      description: 'd',
      color: 'FF0000',
      dateAdded: time,
      ownerId: 2,
      ownerName: 'Org',
    }),
  ],
  [
    'tag',
    TAG,
    presentWeighedTagV2(
      'https://bulwark.example',
      {
        id: 1,
        name: 't',
        description: 'd',
        techniqueId: null,
        dateAdded: time,
        lastUsed: time,
        ownerId: 2,
        ownerName: 'Org',
        weight: 3,
      },
      true,
    ),
  ],
  ['owner', OWNER, presentOwnerV2({ id: 1, name: 'Org', type: 'Organization' })],
  [
    'member',
    USER,
    presentMemberV2({ userName: 'ann', firstName: 'Ann', lastName: 'Lee', pseudonym: 'al', role: 'Standard User' }),
  ],
]

describe('v2 presenters against the declarations', () => {
  it.each(PRESENTED)('%s: a full record writes every field v2 declares, and no other', (_, declaration, presented) => {
    expect(Object.keys(presented).sort()).toEqual(v2RecordNames(declaration).sort())
  })
})
