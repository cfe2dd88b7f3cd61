/**
 * A Security Label, per owner. v2 defines labels (administrators); v3 only shows them, as the
 * platform does. STIX 2.1 writes the labels of an item as marking definitions.
 */
import { defineKind } from './field.js'

export const SECURITY_LABEL = defineKind({
  kind: 'securityLabel',
  table: 'security_label',
  word: 'Security Label',
  fields: [
    {
      name: 'id',
      column: 'id',
      type: 'integer',
      description: 'The ID of the security label',
      write: 'never',
      v2: false,
      tql: { name: 'ID', description: 'The ID of the security label.' },
    },
    {
      name: 'name',
      column: 'name',
      type: 'text',
      description: 'The name of the security label',
      required: true,
      v3: { write: 'never' },
      v2: { always: true },
      stix21: 'object_marking_refs',
      stix1: 'Handling', // in STIX 2.1, the TLP labels only
      tql: [
        {
          name: 'Name',
          type: 'StringLower',
          description: 'The name of the security label (compared case-insensitively).',
        },
        {
          keyword: 'summary',
          name: 'Summary',
          type: 'StringLower',
          description: 'The name of the security label; the same as name.',
        },
      ],
    },
    {
      name: 'description',
      column: 'description',
      type: 'text',
      description: 'A description of the security label',
      v3: { write: 'never' },
      tql: { name: 'Description', description: 'The description of the security label.' },
    },
    {
      name: 'color',
      column: 'color',
      type: 'text',
      description: 'The color of the security label (hex)',
      v3: { write: 'never' },
      v2: { description: 'RRGGBB' },
      tql: { name: 'Color', description: 'The color of the security label (hex).' },
    },
    {
      name: 'dateAdded',
      column: 'date_added',
      type: 'date',
      description: 'When the security label was created',
      write: 'never',
      tql: { name: 'Date Added', description: 'The date the security label was created.' },
    },
    { name: 'owner', type: 'text', description: "The name of the security label's owner", write: 'never', v2: false },
  ],
})
