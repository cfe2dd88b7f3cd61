/**
 * `bulwark tokens create|revoke`: API tokens of API and human accounts (TAXII accounts use
 * passwords). A token is printed by `tokens create` only; the database keeps its hash.
 */
import { issueToken, revokeTokens } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { wholeNumber } from './args.js'

export interface CreateTokenArgs {
  userName: string
  lifetimeDays?: string | number
  /** A 4-hour token, for roles that may have one. */
  temporary?: boolean
}

export async function createTokenCommand(store: Store, _services: Services, args: CreateTokenArgs) {
  const issued = await issueToken(
    store.db,
    args.userName,
    { lifetimeDays: wholeNumber(args.lifetimeDays), temporary: args.temporary },
    Date.now(),
  )
  return { userName: args.userName, kind: issued.kind, token: issued.token, expiresAt: issued.expiresAt }
}

export async function revokeTokensCommand(store: Store, _services: Services, args: { userName: string }) {
  return { userName: args.userName, revoked: await revokeTokens(store.db, args.userName) }
}
