/**
 * Builds the long-lived collaborators of a request (their type is context.ts's) once per
 * process from the config: settings, the secret box, the credential lookups, and the table of
 * nested-item creators, which is built here so that no kind module has to import the others.
 */
import { createAuthRepository } from '../store/account.repository.js'
import type { Store } from '../store/connect.js'
import { SecretBox } from './access/credentials.js'
import type { Services } from './context.js'
import { NESTED_ITEMS } from './items/item-creators.js'
import { SettingsService } from './settings.js'

export type { Services } from './context.js'

export function createServices(store: Store, options: { serverKey: string; publicUrl: string }): Services {
  return {
    settings: new SettingsService(store),
    secretBox: new SecretBox(options.serverKey),
    auth: createAuthRepository(store),
    publicUrl: options.publicUrl.replace(/\/+$/, ''),
    nestedItems: NESTED_ITEMS,
  }
}
