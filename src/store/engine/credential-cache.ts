/**
 * A short-lived copy of what a credential resolves to (account, memberships, secret), so
 * the lookup every request makes costs a map read. Two bounds keep it honest:
 * - any write to the account, membership, token, key or owner tables in this process
 *   empties it at once (a Kysely plugin sees every such write, whoever makes it);
 * - another node's or the admin CLI's change reaches this node as a change notice
 *   (store/change-notices.ts: PostgreSQL NOTIFY, SQLite's data_version) within milliseconds;
 * - entries live at most CREDENTIAL_CACHE_MS, the bound when no notice can arrive (behind a
 *   transaction pooler without a listen URL, or while the listening connection is lost).
 */
import {
  type AliasNode,
  DeleteQueryNode,
  InsertQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  TableNode,
  type UnknownRow,
  UpdateQueryNode,
} from 'kysely'

export const CREDENTIAL_CACHE_MS = 1000
const MAX_ENTRIES = 10_000
const CREDENTIAL_TABLE_NAMES = [
  'user_account',
  'membership',
  'api_token',
  'access_key',
  'owner',
  'console_session',
  'setting',
] as const
const CREDENTIAL_TABLES = new Set<string>(CREDENTIAL_TABLE_NAMES)
/** Tables whose writes must pass through the query builder, where this module's plugin sees them. */
export type CredentialTable = (typeof CREDENTIAL_TABLE_NAMES)[number]

let epoch = 0

/**
 * Empties every credential cache of this process, and marks the settings each node caches as stale
 * (domain/settings.ts compares cachedStateEpoch): on a write here, and on another node's change
 * notice (store/change-notices.ts).
 */
export function forgetCredentials(): void {
  epoch++
}

/** Moves whenever the credential and settings caches of this process were emptied. */
export function cachedStateEpoch(): number {
  return epoch
}

function tableName(node: OperationNode | undefined): string | undefined {
  if (!node) return undefined
  if (TableNode.is(node)) return node.table.identifier.name
  if (node.kind === 'AliasNode') return tableName((node as AliasNode).node)
  return undefined
}

function writtenTables(node: RootOperationNode): (string | undefined)[] {
  if (InsertQueryNode.is(node)) return [tableName(node.into)]
  if (UpdateQueryNode.is(node)) return [tableName(node.table)]
  if (DeleteQueryNode.is(node)) return node.from.froms.map(tableName)
  return []
}

export class CredentialWritePlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (writtenTables(args.node).some((t) => t !== undefined && CREDENTIAL_TABLES.has(t))) forgetCredentials()
    return args.node
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  }
}

export class CredentialCache<T> {
  private entries = new Map<string, { value: T; until: number; epoch: number }>()

  /** The cached value for the key, or what `load` finds (misses are not remembered). */
  async get(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const now = Date.now()
    const hit = this.entries.get(key)
    if (hit && hit.until > now && hit.epoch === epoch) return hit.value
    const seenEpoch = epoch
    const value = await load()
    if (value !== undefined && seenEpoch === epoch) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear()
      this.entries.set(key, { value, until: now + CREDENTIAL_CACHE_MS, epoch: seenEpoch })
    }
    return value
  }
}
