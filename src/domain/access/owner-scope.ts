/**
 * Which owners a call may read and which owner a new object lands in — the one owner-scope
 * rule. A membership gives read access unless its role is Banned (permissions.canAccessOwner);
 * every list, look-up, type catalogue, nested create and TAXII collection asks here, so a
 * Banned member reads nothing of that owner anywhere.
 *
 * context.ts must not import this file: it imports context.ts's types.
 */
import type { Caller, RequestContext } from '../context.js'
import { DomainError } from '../../core/errors.js'
import { bodyId } from '../../core/input.js'
import type { OwnerType } from '../../model/kinds.js'
import { type Membership, canAccessOwner, isAllowed } from '../permissions.js'

/** 'context': only the call's owner (owner= was given); 'readable': every owner the caller may read. */
export type OwnerScope = 'context' | 'readable'

/** The memberships a caller may read through (Banned excluded). */
export function readableOwners(caller: Caller): Membership[] {
  return caller.memberships.filter(canAccessOwner)
}

export function readableOwnerIds(ctx: RequestContext): number[] {
  return readableOwners(ctx.caller).map((m) => m.ownerId)
}

/**
 * Rows of an owned table loaded by id in any owner, kept when the caller may read their owner and
 * given that owner's name and type from the caller's memberships, so a load by ids needs neither
 * an owner filter nor a join to the owner table.
 */
export function keepReadableRows<R extends { owner_id: number }>(
  caller: Caller,
  rows: R[],
): (R & { owner_name: string; owner_type: OwnerType })[] {
  const owners = readableOwners(caller)
  const kept: (R & { owner_name: string; owner_type: OwnerType })[] = []
  for (const row of rows) {
    const owner = owners.find((m) => m.ownerId === row.owner_id)
    if (!owner) continue
    // The rows were just read for this call: they are completed in place, because copying a row of
    // forty columns cost more than reading it from the database.
    const completed = row as R & { owner_name: string; owner_type: OwnerType }
    completed.owner_name = owner.ownerName
    completed.owner_type = owner.ownerType
    kept.push(completed)
  }
  return kept
}

/**
 * The owners a list reads: those of the scope given; without one, the associations of an
 * item span every readable owner (partners may sit elsewhere) and anything else stays in the
 * call's owner.
 *
 * @example listIndicatorRows(db, { ownerIds: ownerIdsToRead(ctx, query.ownerScope, { associations: !!query.associatedWith }) })
 */
export function ownerIdsToRead(
  ctx: RequestContext,
  scope: OwnerScope | undefined,
  options: { associations?: boolean } = {},
): number[] {
  const effective = scope ?? (options.associations ? 'readable' : 'context')
  return effective === 'context' ? [ctx.owner.id] : readableOwnerIds(ctx)
}

/**
 * Owners the caller is a member of but may not read (Banned): not even their names are shown to
 * it, e.g. among the owner roles of its colleagues.
 */
export function isBarredFrom(ctx: Pick<RequestContext, 'caller'>, ownerId: number): boolean {
  return ctx.caller.memberships.some((m) => m.ownerId === ownerId && !canAccessOwner(m))
}

/** The caller's readable membership in an owner, by id. */
export function membershipFor(ctx: Pick<RequestContext, 'caller'>, ownerId: number): Membership | undefined {
  return readableOwners(ctx.caller).find((m) => m.ownerId === ownerId)
}

/**
 * The owners a caller may read as feeds, by owner id. Organizations need Standard User (or a
 * role that includes it); Communities and Sources any role but Banned (permissions.ts).
 */
export function feedOwners(caller: Caller): Membership[] {
  return readableOwners(caller)
    .filter((m) => isAllowed(m, 'readFeed'))
    .sort((a, b) => a.ownerId - b.ownerId)
}

/** The caller's readable membership in an owner, by name. */
export function membershipNamed(ctx: Pick<RequestContext, 'caller'>, ownerName: string): Membership | undefined {
  return readableOwners(ctx.caller).find((m) => m.ownerName === ownerName)
}

function inaccessible(owner: string | number | undefined, organization = false): DomainError {
  return new DomainError(
    'owner_inaccessible',
    organization
      ? 'Your account has no access to its Organization'
      : `Owner '${owner}' does not exist or you do not have access to it`,
  )
}

/**
 * Picks the owner a call works in: `ownerName`, else the caller's Organization. Unknown owners
 * and owners the caller may not read are the same 403, so names cannot be probed.
 */
export function selectOwner(caller: Caller, ownerName: string | undefined): Membership {
  if (ownerName === undefined || ownerName === '') {
    const membership = readableOwners(caller).find((m) => m.ownerId === caller.account.organizationId)
    if (!membership) throw inaccessible(undefined, true)
    return membership
  }
  const membership = membershipNamed({ caller }, ownerName)
  if (!membership) throw inaccessible(ownerName)
  return membership
}

function withOwner(ctx: RequestContext, membership: Membership): RequestContext {
  return {
    ...ctx,
    membership,
    owner: { id: membership.ownerId, name: membership.ownerName, type: membership.ownerType },
  }
}

function ownerNamedIn(body: Record<string, unknown>): { id?: number; name?: string } {
  return {
    id: bodyId(body.ownerId),
    name: typeof body.ownerName === 'string' && body.ownerName ? body.ownerName : undefined,
  }
}

/**
 * The context a new item nested in a v3 body is created in: the owner named by ownerId or
 * ownerName in its body, else the caller's Organization (the platform's rule for nested Groups
 * and Indicators).
 */
export function contextForNestedItem(ctx: RequestContext, body: Record<string, unknown>): RequestContext {
  const named = ownerNamedIn(body)
  const ownerId = named.id ?? (named.name === undefined ? ctx.caller.account.organizationId : undefined)
  const membership = ownerId !== undefined ? membershipFor(ctx, ownerId) : membershipNamed(ctx, named.name!)
  if (!membership) throw inaccessible(named.name ?? named.id)
  return withOwner(ctx, membership)
}

/** The context a top-level v3 create runs in: the owner named in the body, else the request's own. */
export function contextForNewObject(ctx: RequestContext, body: Record<string, unknown>): RequestContext {
  const named = ownerNamedIn(body)
  return named.id !== undefined || (named.name !== undefined && named.name !== ctx.owner.name)
    ? contextForNestedItem(ctx, body)
    : ctx
}
