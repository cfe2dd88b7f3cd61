/** `bulwark owners create|list`: Organizations, Communities and Sources. */
import { createOwner, listAllOwners } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'

export interface CreateOwnerArgs {
  name: string
  type?: string
  description?: string
}

export async function createOwnerCommand(store: Store, _services: Services, args: CreateOwnerArgs) {
  const owner = await createOwner(
    store.db,
    { name: args.name, type: args.type ?? 'Organization', description: args.description },
    isoNow(),
  )
  return { id: owner.id, name: owner.name, type: owner.type }
}

export async function listOwnersCommand(store: Store, _services: Services, _args: object = {}) {
  return { owners: await listAllOwners(store.db) }
}
