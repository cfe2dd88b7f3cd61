/** `bulwark memberships set|remove|list`: an account's roles in owners besides its Organization. */
import { listMembershipSummaries, removeMembership, setMembership } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'

export interface MembershipArgs {
  userName: string
  owner: string
  role: string
}

export async function setMembershipCommand(store: Store, _services: Services, args: MembershipArgs) {
  return setMembership(store.db, args.userName, args.owner, args.role, isoNow())
}

export async function removeMembershipCommand(store: Store, _services: Services, args: Omit<MembershipArgs, 'role'>) {
  await removeMembership(store.db, args.userName, args.owner)
  return { userName: args.userName, owner: args.owner, removed: true }
}

export async function listMembershipsCommand(
  store: Store,
  _services: Services,
  args: { userName?: string; owner?: string } = {},
) {
  return { memberships: await listMembershipSummaries(store.db, { userName: args.userName, ownerName: args.owner }) }
}
