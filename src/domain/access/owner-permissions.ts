/**
 * The platform's per-owner permission vector (GET /v3/security/owners: ownerRole plus
 * permIndicator … permPlaybooks, each FULL, READ, BUILD or NONE), derived from the one
 * permission table in permissions.ts so the two can never disagree.
 *
 * Mapping: an intelligence perm is FULL when the role may create or update that data, else
 * READ; admin perms are FULL with the matching manage* action, else READ (users, labels, tags,
 * attribute types) or NONE (settings, invite); case-management and playbook perms exist only
 * in Organizations (NONE in Communities and Sources, as the platform shows for Directors).
 */
import type { RequestContext } from '../context.js'
import { readableOwners } from './owner-scope.js'
import { notFound } from '../../core/errors.js'
import { type Action, type Membership, isAllowed } from '../permissions.js'

type Level = 'FULL' | 'READ' | 'NONE' | 'BUILD'

export interface OwnerPermissions {
  id: number
  name: string
  type: string
  ownerRole: string
  [perm: `perm${string}`]: Level
}

function level(m: Membership, full: Action[], otherwise: Level = 'READ'): Level {
  return full.some((a) => isAllowed(m, a)) ? 'FULL' : otherwise
}

function permissionsOf(m: Membership): OwnerPermissions {
  const org = m.ownerType === 'Organization'
  const intel = level(m, ['create', 'update'])
  const caseLevel = org ? level(m, ['caseWrite']) : 'NONE'
  const playbooks = org ? level(m, ['managePlaybooks']) : 'NONE'
  const share = org
    ? m.role === 'Sharing User' || m.role === 'Organization Administrator'
      ? 'FULL'
      : 'NONE'
    : ['Contributor', 'Editor', 'Director'].includes(m.role)
      ? 'FULL'
      : 'NONE'
  return {
    id: m.ownerId,
    name: m.ownerName,
    type: m.ownerType,
    ownerRole: m.role,
    permIndicator: intel,
    permGroup: intel,
    permPost: level(m, ['update']),
    permTrack: level(m, ['observe']),
    permVictim: intel,
    permAttribute: level(m, ['update', 'create']),
    permApps: org && (m.role === 'Organization Administrator' || m.role === 'App Developer') ? 'BUILD' : 'NONE',
    permUsers: level(m, ['manageUsers']),
    permSecurityLabel: level(m, ['manageLabels']),
    permTag: level(m, ['manageTags']),
    permAttributeType: level(m, ['manageAttributeTypes']),
    permSettings: level(m, ['manageUsers'], 'NONE'),
    permMembers: org ? (isAllowed(m, 'manageUsers') ? 'READ' : 'NONE') : level(m, ['manageUsers'], 'NONE'),
    permCopyData: share,
    permInvite: level(m, ['manageUsers'], 'NONE'),
    permTask: caseLevel,
    permCaseTag: caseLevel,
    permArtifact: caseLevel,
    permComment: caseLevel,
    permTimeline: caseLevel,
    permWorkflowTemplate: caseLevel,
    permPublish: level(m, ['publish'], 'NONE'),
    permPlaybooksExecute: playbooks,
    permPlaybooks: playbooks,
  }
}

/** The caller's owners (Banned memberships excluded), each with its permission vector. */
export function listOwnerPermissions(ctx: RequestContext): OwnerPermissions[] {
  return readableOwners(ctx.caller).map(permissionsOf)
}

export function getOwnerPermissions(ctx: RequestContext, id: number): OwnerPermissions {
  const found = readableOwners(ctx.caller).find((m) => m.ownerId === id)
  if (!found) throw notFound(`Owner ${id} not found`)
  return permissionsOf(found)
}
