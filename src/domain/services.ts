/**
 * The long-lived collaborators a request needs besides the database: settings, the
 * secret box, the credential lookups. Built once per process from the config.
 */
import { type AuthRepository, createAuthRepository } from '../store/account.repository.js'
import type { Store } from '../store/connect.js'
import { SecretBox } from './access/credentials.js'
import { SettingsService } from './settings.js'

export interface Services {
  settings: SettingsService
  secretBox: SecretBox
  auth: AuthRepository
  /** Base URL for webLink and next/prev links, e.g. https://tip.example.org */
  publicUrl: string
}

export function createServices(store: Store, options: { serverKey: string; publicUrl: string }): Services {
  return {
    settings: new SettingsService(store),
    secretBox: new SecretBox(options.serverKey),
    auth: createAuthRepository(store),
    publicUrl: options.publicUrl.replace(/\/+$/, ''),
  }
}
