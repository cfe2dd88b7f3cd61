/**
 * The one place that decides "may this account do this action in this owner".
 * Driven by the role matrices of ../shared/research/roles.md: Organization roles and Community roles
 * (the latter also serve Sources). Every adapter calls `authorize`; none checks roles itself.
 */
import type { OwnerRole, SystemRole } from '../model/roles.js'
import type { OwnerType } from '../model/kinds.js'
import { DomainError } from '../core/errors.js'

export const ACTIONS = [
  'read', // read intelligence and metadata
  'create', // create Indicators, Groups, Victims, Tasks and their metadata
  'update', // change fields, attributes and tags of existing items
  'delete', // delete items
  'associate', // create or remove associations
  'applyLabel', // put an existing Security Label on an item or attribute
  'manageLabels', // define and delete Security Labels
  'manageTags', // create, describe and delete Tags as objects
  'manageAttributeTypes',
  'observe', // report observations and false positives
  'batch', // run batch jobs
  'publish',
  'managePlaybooks',
  'configureMetrics',
  'addMetricData',
  'caseWrite', // write Cases, Artifacts, Notes, case Tasks, Intelligence Requirements
  'manageUsers',
  'issueTemporaryToken',
  // read an owner's data as a feed (TAXII): an Organization needs Standard User or more, a Community or Source any role but Banned
  'readFeed',
] as const
export type Action = (typeof ACTIONS)[number]

type Matrix = Partial<Record<OwnerRole, readonly Action[]>>

const ORG_WRITER: readonly Action[] = [
  'read',
  'create',
  'update',
  'delete',
  'associate',
  'applyLabel',
  'manageTags',
  'observe',
  'batch',
  'managePlaybooks',
  'addMetricData',
  'issueTemporaryToken',
  'readFeed',
]

const ORGANIZATION: Matrix = {
  'Read Only User': ['read'],
  'Read Only Commenter': ['read'],
  'Standard User': ORG_WRITER,
  'Sharing User': ORG_WRITER,
  'App Developer': ORG_WRITER,
  'Organization Administrator': [
    ...ORG_WRITER,
    'manageLabels',
    'manageAttributeTypes',
    'configureMetrics',
    'caseWrite',
    'manageUsers',
    'publish',
  ],
}

const COMMUNITY_EDITOR: readonly Action[] = [
  'read',
  'create',
  'update',
  'delete',
  'associate',
  'applyLabel',
  'manageTags',
  'observe',
  'batch',
  'publish',
  'manageLabels',
  'addMetricData',
  'readFeed',
]

const COMMUNITY: Matrix = {
  Subscriber: ['read', 'readFeed'],
  User: ['read', 'readFeed'],
  Commenter: ['read', 'readFeed'],
  Contributor: ['read', 'create', 'applyLabel', 'manageTags', 'observe', 'publish', 'readFeed'],
  Editor: COMMUNITY_EDITOR,
  Director: [...COMMUNITY_EDITOR, 'manageAttributeTypes', 'manageUsers', 'configureMetrics'],
  Banned: [],
}

/** Actions a read-only role gains when the system setting readOnlyUserUpdatesAllowed is on. */
const READ_ONLY_WIDENING: readonly Action[] = ['observe']

export interface Membership {
  ownerId: number
  ownerName: string
  ownerType: OwnerType
  role: OwnerRole
}

export function isAllowed(
  membership: Membership,
  action: Action,
  options: { readOnlyUserUpdatesAllowed?: boolean } = {},
): boolean {
  const matrix = membership.ownerType === 'Organization' ? ORGANIZATION : COMMUNITY
  const allowed = matrix[membership.role] ?? []
  if (allowed.includes(action)) return true
  return !!options.readOnlyUserUpdatesAllowed && membership.role !== 'Banned' && READ_ONLY_WIDENING.includes(action)
}

/** Can the member see the owner at all? Banned members cannot. */
export function canAccessOwner(membership: Membership): boolean {
  return membership.role !== 'Banned'
}

const ACTION_WORDS: Record<Action, string> = {
  read: 'read data',
  create: 'create data',
  update: 'update data',
  delete: 'delete data',
  associate: 'create associations',
  applyLabel: 'apply security labels',
  manageLabels: 'manage security labels',
  manageTags: 'manage tags',
  manageAttributeTypes: 'manage attribute types',
  observe: 'report observations and false positives',
  batch: 'run batch jobs',
  publish: 'publish',
  managePlaybooks: 'manage playbooks',
  configureMetrics: 'configure custom metrics',
  addMetricData: 'add custom metric data',
  caseWrite: 'write case management data',
  manageUsers: 'manage users',
  issueTemporaryToken: 'create temporary API tokens',
  readFeed: 'read its data as a feed',
}

/** Throws `forbidden` (401 on the REST API) naming what was refused and where. */
export function authorize(
  membership: Membership,
  action: Action,
  options: { readOnlyUserUpdatesAllowed?: boolean } = {},
): void {
  if (!isAllowed(membership, action, options)) {
    throw new DomainError(
      'forbidden',
      `You do not have permission to ${ACTION_WORDS[action]} in ${membership.ownerName} (role: ${membership.role})`,
    )
  }
}

/**
 * The system roles that run the installation itself rather than an owner's intelligence: what it
 * pulls in (feeds, which reach out to the network with stored credentials) and what it serves to
 * firewalls (outbound lists). An Organization Administrator runs one owner, not these.
 */
export const PLATFORM_ADMINISTRATOR_ROLES: readonly SystemRole[] = ['Administrator', 'Operations Administrator']

export function isPlatformAdministrator(account: { systemRole: string }): boolean {
  return (PLATFORM_ADMINISTRATOR_ROLES as readonly string[]).includes(account.systemRole)
}

/** Refuses, in words naming what was asked (`manage feeds`), a caller whose system role does not run the installation. */
export function requirePlatformAdministrator(account: { systemRole: string }, what: string): void {
  if (!isPlatformAdministrator(account))
    throw new DomainError(
      'forbidden',
      `Only system administrators (${PLATFORM_ADMINISTRATOR_ROLES.join(' or ')}) ${what}; your system role is ${account.systemRole}`,
    )
}
