/**
 * Who an account is when it acts without a request — the admin CLI's import and export, the
 * batch runner working for the account that queued a job — built the way the REST gate builds
 * it: the same account record, the same memberships, an owner chosen by the owner scope.
 */
import {
  type MembershipRow,
  findAccountById,
  findAccountByUserName,
} from '../../store/repositories/account.repository.js'
import type { Store } from '../../store/connect.js'
import { type Caller, type RequestContext, type Services, toAccount } from '../context.js'
import type { Membership } from '../permissions.js'
import { isoNow } from '../../core/time.js'

/** Membership rows as the permission rules read them. */
export function toMemberships(
  rows: readonly Pick<MembershipRow, 'owner_id' | 'owner_name' | 'owner_type' | 'role'>[],
): Membership[] {
  return rows.map((m) => ({
    ownerId: m.owner_id,
    ownerName: m.owner_name,
    ownerType: m.owner_type,
    role: m.role as Membership['role'],
  }))
}

/** The enabled account with this id or user name as a Caller; undefined when there is none. */
export async function callerOf(
  store: Store,
  services: Services,
  account: { id: number } | { userName: string },
): Promise<Caller | undefined> {
  const id = 'id' in account ? account.id : (await findAccountByUserName(store.db, account.userName))?.id
  const row = id === undefined ? undefined : await findAccountById(store.db, id)
  if (!row || row.disabled) return undefined
  return { account: toAccount(row), memberships: toMemberships(await services.auth.listMemberships(row.id)) }
}

/** The context of a call by `caller` in the owner of `membership` (chosen through owner-scope.ts), timed now. */
export function contextOutsideRequest(
  store: Store,
  services: Services,
  caller: Caller,
  membership: Membership,
): RequestContext {
  return {
    store,
    services,
    caller,
    membership,
    now: isoNow(),
    owner: { id: membership.ownerId, name: membership.ownerName, type: membership.ownerType },
  }
}
