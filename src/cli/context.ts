/**
 * A RequestContext for commands that act as an account through the domain (import, export), as
 * the REST gate would build it for that account's request: its memberships, one owner selected.
 */
import { selectOwner } from '../domain/access/owner-scope.js'
import { type RequestContext, toAccount } from '../domain/context.js'
import { notFound } from '../domain/errors.js'
import type { Services } from '../domain/services.js'
import { isoNow } from '../domain/time.js'
import { findAccountById, findAccountByUserName } from '../store/account.repository.js'
import type { Store } from '../store/connect.js'

/** The context the API would give this account, working in `ownerName` (default: its Organization). */
export async function cliContext(store: Store, services: Services, userName: string, ownerName?: string): Promise<RequestContext> {
  const row = await findAccountByUserName(store.db, userName) ?? undefined
  const account = row && await findAccountById(store.db, row.id)
  if (!account || account.disabled) throw notFound(`No enabled account '${userName}'`)
  const memberships = (await services.auth.listMemberships(account.id))
    .map((m) => ({ ownerId: m.owner_id, ownerName: m.owner_name, ownerType: m.owner_type, role: m.role as never }))
  const caller = { account: toAccount(account), memberships }
  const membership = selectOwner(caller, ownerName)
  return { store, services, caller, membership, now: isoNow(), owner: { id: membership.ownerId, name: membership.ownerName, type: membership.ownerType } }
}
