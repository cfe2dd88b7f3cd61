/**
 * Which database a request reads from, when PostgreSQL read replicas are configured
 * (BULWARK_DATABASE_REPLICA_URL, store/replicas.ts): the one rule, asked by each interface's gate
 * once it knows the caller.
 *
 * - A read request (v2 and v3 GETs: listings, TQL, objects by id; every TAXII 2.1 and 1.1 request)
 *   reads from a replica that is up, within the lag bound and has replayed the caller's last write;
 *   anything it writes (a TAXII 1.1 result's parts) still goes to the primary.
 * - A write request works on the primary throughout, and what it writes is remembered for the caller.
 *
 * The caller is the account: its API tokens, HMAC keys and console sessions read each other's writes.
 * The memory is the node's own. To carry it to another node behind a load balancer, a REST answer to
 * a write names the position (`Bulwark-Wal-Position` header and cookie), and a request that brings
 * it back (`seen`) reads at least that far on whichever node it reaches (docs/scale-out.md).
 */
import type { Store } from '../store/connect.js'
import type { Caller } from './context.js'

export async function storeForRequest(store: Store, caller: Caller, reads: boolean, seen?: string): Promise<Store> {
  if (!store.replicas) return store
  return store.replicas.storeFor(`account:${caller.account.id}`, reads, seen)
}
