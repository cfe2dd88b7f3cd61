/**
 * The long-lived collaborators a request needs besides the database: settings, the
 * secret box, the credential lookups. Built once per process from the config.
 */
import { type AuthRepository, createAuthRepository } from '../store/account.repository.js'
import type { Store } from '../store/connect.js'
import { createHash } from 'node:crypto'
import { SecretBox } from './credentials.js'
import { SettingsService } from './settings.js'
import { uuidV5 } from './uuid.js'

/** Bulwark's own namespace; installations derive theirs from it (never the OASIS STIX namespace). */
const BULWARK_NAMESPACE = 'de2b43a2-e128-4fe1-98d3-bfadf7cdf32a'

export interface Services {
  settings: SettingsService
  secretBox: SecretBox
  auth: AuthRepository
  /** Base URL for webLink and next/prev links, e.g. https://tip.example.org */
  publicUrl: string
  /**
   * A UUID naming this installation, the namespace of the ids it derives (TAXII collections,
   * STIX objects). Derived from the server key, which every node shares and which cannot
   * change without losing the sealed secrets: so the same on every node and after restarts.
   */
  installationId: string
}

export function createServices(store: Store, options: { serverKey: string; publicUrl: string }): Services {
  return {
    settings: new SettingsService(store),
    secretBox: new SecretBox(options.serverKey),
    auth: createAuthRepository(store),
    publicUrl: options.publicUrl.replace(/\/+$/, ''),
    installationId: uuidV5(BULWARK_NAMESPACE, createHash('sha256').update(options.serverKey).digest('hex')),
  }
}
