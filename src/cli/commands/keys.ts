/**
 * `bulwark keys create|revoke`: access id + secret key pairs of API accounts, for HMAC
 * signatures. The secret key is printed by `keys create` only; at rest it is sealed.
 */
import { createAccessKey, revokeAccessKeys } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'

export async function createKeyCommand(store: Store, services: Services, args: { userName: string }) {
  const key = await createAccessKey(store.db, services.secretBox, args.userName, isoNow())
  return { userName: args.userName, accessId: key.accessId, secretKey: key.secretKey }
}

/** Without an access id, every pair of the account goes. */
export async function revokeKeysCommand(
  store: Store,
  _services: Services,
  args: { userName: string; accessId?: string },
) {
  return { userName: args.userName, revoked: await revokeAccessKeys(store.db, args.userName, args.accessId) }
}
