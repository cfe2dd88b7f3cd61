/**
 * Builds the long-lived collaborators of a request (their type is context.ts's) once per
 * process from the config: settings, the secret box, the credential lookups, and the table of
 * nested-item creators, which is built here so that no kind module has to import the others.
 */
import { createAuthRepository } from '../store/repositories/account.repository.js'
import type { Store } from '../store/connect.js'
import { createHash } from 'node:crypto'
import { SecretBox } from './access/credentials.js'
import type { Services } from './context.js'
import { NESTED_ITEMS } from './items/item-creators.js'
import { SettingsService } from './settings.js'
import { uuidV5 } from '../core/uuid.js'

/** Bulwark's own namespace; installations derive theirs from it (never the OASIS STIX namespace). */
const BULWARK_NAMESPACE = 'de2b43a2-e128-4fe1-98d3-bfadf7cdf32a'

export type { Services } from './context.js'

export function createServices(store: Store, options: { serverKey: string; publicUrl: string }): Services {
  return {
    settings: new SettingsService(store),
    secretBox: new SecretBox(options.serverKey),
    auth: createAuthRepository(store),
    publicUrl: options.publicUrl.replace(/\/+$/, ''),
    installationId: uuidV5(BULWARK_NAMESPACE, createHash('sha256').update(options.serverKey).digest('hex')),
    nestedItems: NESTED_ITEMS,
  }
}
