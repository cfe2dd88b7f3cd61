/**
 * Role names as the platform spells them. What each role may do is decided in one place:
 * domain/permissions.ts.
 */
export const ORGANIZATION_ROLES = [
  'Read Only User',
  'Read Only Commenter',
  'Standard User',
  'Sharing User',
  'Organization Administrator',
  'App Developer',
] as const
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number]

export const COMMUNITY_ROLES = [
  'Subscriber',
  'User',
  'Commenter',
  'Contributor',
  'Editor',
  'Director',
  'Banned',
] as const
export type CommunityRole = (typeof COMMUNITY_ROLES)[number]

export type OwnerRole = OrganizationRole | CommunityRole

export const SYSTEM_ROLES = [
  'User',
  'Administrator',
  'Operations Administrator',
  'Read Only User',
  'Api User',
  'Exchange Admin',
  'Taxii User',
] as const
export type SystemRole = (typeof SYSTEM_ROLES)[number]

export const ACCOUNT_KINDS = ['human', 'api', 'taxii'] as const
export type AccountKind = (typeof ACCOUNT_KINDS)[number]

/** The role `whoami` reports for each account kind when the system role is the default one. */
export function isOrganizationRole(role: string): role is OrganizationRole {
  return (ORGANIZATION_ROLES as readonly string[]).includes(role)
}

export function isCommunityRole(role: string): role is CommunityRole {
  return (COMMUNITY_ROLES as readonly string[]).includes(role)
}
