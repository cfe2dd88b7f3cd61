/**
 * An owner (Organization, Community or Source) and, in v3's /security/owners, the caller's role
 * and permissions in it; the permission vector's fields (permIndicator, permGroup…) are one
 * entry, as OPTIONS lists them.
 */
import { defineKind } from './field.js'

export const OWNER = defineKind({
  kind: 'owner',
  table: 'owner',
  word: 'Owner',
  fields: [
    {
      name: 'id',
      column: 'id',
      type: 'integer',
      description: 'The ID of the owner',
      write: 'never',
      v2: { always: true },
    },
    {
      name: 'name',
      column: 'name',
      type: 'text',
      description: 'The name of the owner',
      write: 'never',
      v2: { always: true },
      stix1: 'Producer',
    },
    { name: 'type', column: 'type', type: 'text', description: 'Organization, Community or Source', write: 'never' },
    { name: 'ownerRole', type: 'text', description: 'Your role in the owner', write: 'never', v2: false },
    {
      name: 'perm*',
      type: 'text',
      description: 'Your permission per area: FULL, READ, BUILD or NONE',
      write: 'never',
      v2: false,
    },
  ],
})
