/**
 * Who is calling and in which owner. Every domain function takes a RequestContext; the
 * adapters build it once per request (protocols/http/rest-auth.ts) and never look at roles.
 */
import type { ItemKind, OwnerType } from '../model/kinds.js'
import type { AccountRow, AuthRepository } from '../store/repositories/account.repository.js'
import type { Store } from '../store/connect.js'
import type { SecretBox } from './access/credentials.js'
import { type Action, type Membership, authorize } from './permissions.js'
import type { SettingsService } from './settings.js'

/**
 * The long-lived collaborators a request needs besides the database, built once per process
 * (services.ts). They are declared here, beside the context that carries them, so that the
 * kind modules, which all import this file, never import the table of item creators that
 * imports them.
 */
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
  nestedItems: NestedItemTable
}

/** An item located by kind and id, with the caller's membership in its owner. */
export interface ItemInfo {
  kind: ItemKind
  id: number
  ownerId: number
  ownerName: string
  membership: Membership
  /** Indicator type name, Group type name or Victim Asset type, where the kind has one. */
  type?: string
}

/** Creates one item from a nested v3 body inside an open transaction, checking permissions itself. */
export type ItemCreator = (ctx: RequestContext, body: Record<string, unknown>) => Promise<ItemInfo>

/** Finds an existing item from a nested body without an id (undefined: not found, create it). */
export type ItemResolver = (ctx: RequestContext, body: Record<string, unknown>) => Promise<ItemInfo | undefined>

/** Who creates, and who finds, the items a v3 body may nest, by kind (items/item-creators.ts). */
export interface NestedItemTable {
  creators: Partial<Record<ItemKind, ItemCreator>>
  resolvers: Partial<Record<ItemKind, ItemResolver>>
}

export interface Account {
  id: number
  userName: string
  kind: 'human' | 'api' | 'taxii'
  firstName: string | null
  lastName: string | null
  pseudonym: string | null
  systemRole: string
  organizationId: number
  observationsEnabled: boolean
  tqlTimeoutMs: number | null
}

export interface Caller {
  account: Account
  /** Every owner the account belongs to, Banned included (so the refusal can say why). */
  memberships: Membership[]
}

export interface Owner {
  id: number
  name: string
  type: OwnerType
}

export interface RequestContext {
  store: Store
  services: Services
  caller: Caller
  /** The owner the call operates in: `owner=<name>` or the caller's Organization. */
  owner: Owner
  membership: Membership
  now: string
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    userName: row.user_name,
    kind: row.kind,
    firstName: row.first_name,
    lastName: row.last_name,
    pseudonym: row.pseudonym,
    systemRole: row.system_role,
    organizationId: row.organization_id,
    observationsEnabled: !!row.observations_enabled,
    tqlTimeoutMs: row.tql_timeout_ms,
  }
}

/** Authorizes an action in the context's owner, with the system settings that widen roles. */
export async function requirePermission(
  ctx: RequestContext,
  action: Action,
  membership: Membership = ctx.membership,
): Promise<void> {
  const readOnlyUserUpdatesAllowed =
    action === 'observe' ? await ctx.services.settings.getBoolean('readOnlyUserUpdatesAllowed') : false
  authorize(membership, action, { readOnlyUserUpdatesAllowed })
}
