/**
 * A user account as /v3/security/users shows and edits it, and as v2 lists an owner's members
 * (with the member's role in it).
 */
import { defineKind } from './field.js'

export const USER = defineKind({
  kind: 'user',
  table: 'user_account',
  word: 'User',
  fields: [
    { name: 'id', column: 'id', type: 'integer', description: 'The ID of the user', write: 'never', v2: false },
    { name: 'userName', column: 'user_name', type: 'text', description: 'The user name', required: true },
    { name: 'firstName', column: 'first_name', type: 'text', description: 'First name', required: true },
    { name: 'lastName', column: 'last_name', type: 'text', description: 'Last name', required: true },
    { name: 'pseudonym', column: 'pseudonym', type: 'text', description: 'Pseudonym' },
    {
      name: 'owner',
      type: 'text',
      description: 'The Organization of the user (yours)',
      required: true,
      write: 'create',
      v2: false,
    },
    {
      name: 'systemRole',
      column: 'system_role',
      type: 'text',
      description: 'System role (not Administrator or Operations Administrator)',
      required: true,
      v2: false,
    },
    {
      name: 'ownerRoles',
      type: 'object',
      description: 'The user\'s role in your Organization: {"<Organization>": "<role>"}',
      required: true,
      v2: false,
    },
    {
      name: 'disabled',
      column: 'disabled',
      type: 'boolean',
      description: 'Whether the account is disabled',
      v2: false,
    },
    {
      name: 'locked',
      type: 'boolean',
      description: 'Whether the account is locked (always false here)',
      write: 'never',
      v2: false,
    },
    {
      name: 'customTqlTimeout',
      column: 'tql_timeout_ms',
      type: 'integer',
      description: 'TQL timeout for the user in milliseconds',
      v2: false,
    },
    // Kept as a hash (password_hash): never shown.
    { name: 'password', type: 'text', description: 'Password (not for API users)', required: true, v2: false },
    { name: 'role', type: 'text', description: "The member's role in the owner", write: 'never', v3: false },
  ],
})
