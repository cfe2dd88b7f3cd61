/**
 * A RequestContext for commands that act as an account through the domain (import, export), as
 * the REST gate would build it for that account's request: its memberships, one owner selected.
 */
import { callerOf, contextOutsideRequest } from '../domain/access/callers.js'
import { selectOwner } from '../domain/access/owner-scope.js'
import type { RequestContext } from '../domain/context.js'
import { notFound } from '../core/errors.js'
import type { Services } from '../domain/services.js'
import type { Store } from '../store/connect.js'

/** The context the API would give this account, working in `ownerName` (default: its Organization). */
export async function cliContext(
  store: Store,
  services: Services,
  userName: string,
  ownerName?: string,
): Promise<RequestContext> {
  const caller = await callerOf(store, services, { userName })
  if (!caller) throw notFound(`No enabled account '${userName}'`)
  return contextOutsideRequest(store, services, caller, selectOwner(caller, ownerName))
}
