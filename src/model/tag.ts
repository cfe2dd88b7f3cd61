/** A Tag, per owner; items carry tags by name. STIX 2.1 writes an Indicator's tags as its labels. */
import { defineKind } from './field.js'

export const TAG = defineKind({
  kind: 'tag',
  table: 'tag',
  word: 'Tag',
  tqlOrder: ['id', 'name', 'description', 'techniqueId', 'lastUsed'],
  fields: [
    {
      name: 'id',
      column: 'id',
      type: 'integer',
      description: 'The ID of the tag',
      write: 'never',
      v2: false,
      tql: { name: 'ID', description: 'The ID of the tag.' },
    },
    // v2's PUT may describe a tag without renaming it, so v2's body schema leaves the name optional.
    {
      name: 'name',
      column: 'name',
      type: 'text',
      description: 'The name of the tag (case-sensitive, at most 128 characters)',
      required: true,
      v2: { always: true, body: 'optional' },
      stix21: 'labels',
      tql: [
        { name: 'Name', type: 'StringLower', description: 'The name of the tag (compared case-insensitively).' },
        {
          keyword: 'summary',
          name: 'Summary',
          type: 'StringLower',
          description: 'The name of the tag; the same as name.',
        },
      ],
    },
    {
      name: 'owner',
      type: 'text',
      description: "The name of the tag's owner (choose it with ?owner=)",
      write: 'never',
      v2: false,
    },
    {
      name: 'description',
      column: 'description',
      type: 'text',
      description: 'A description of the tag',
      tql: { name: 'Description', description: 'The description of the tag.' },
    },
    {
      name: 'lastUsed',
      column: 'last_used',
      type: 'date',
      description: 'When the tag was last applied',
      write: 'never',
      v2: false,
      tql: { name: 'Last Used', description: 'The date the tag was last applied.' },
    },
    {
      name: 'techniqueId',
      column: 'technique_id',
      type: 'text',
      description: 'The ATT&CK technique of an ATT&CK tag',
      write: 'never',
      v2: false,
      tql: { name: 'Technique ID', description: 'The ATT&CK technique ID of the tag.' },
    },
    {
      name: 'dateAdded',
      column: 'date_added',
      type: 'date',
      description: 'When the tag was created',
      write: 'never',
      v3: false,
      v2: false,
    },
    { name: 'webLink', type: 'text', description: "Link to the tag's page", write: 'never', v3: false },
    {
      name: 'weight',
      type: 'integer',
      description: 'How many items carry it',
      write: 'never',
      v3: false,
      v2: { description: 'How many items carry it' },
    },
  ],
})
