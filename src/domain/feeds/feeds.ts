/**
 * Defining feeds: add, change, remove, list and read them (REST /v3/feeds and `bulwark feeds`).
 * Only system Administrators may, reading included: a feed names where the installation reaches
 * and holds its credentials. Credentials are sealed under the server key as they arrive and never
 * leave: a FeedView shows their kind alone. Running feeds is the runner's; this module sets when a
 * feed is next due (at once when added, re-enabled or pointed at another source).
 */
import type { Updateable } from 'kysely'
import { conflict, invalid, isDomainError, notFound } from '../../core/errors.js'
import { findOwnerByName } from '../../store/repositories/account.repository.js'
import type { FeedTable } from '../../store/database.js'
import {
  type FeedRowWithOwner,
  deleteFeedRow,
  findFeedRowById,
  findFeedRowByName,
  insertFeedRow,
  listFeedRows,
  updateFeedRow,
} from '../../store/repositories/feed-admin.repository.js'
import { STANDARD_SECURITY_LABELS, findLabelByName } from '../../store/repositories/security-label.repository.js'
import type { RequestContext } from '../context.js'
import { requireImportable } from '../imports/run-import.js'
import { requirePlatformAdministrator } from '../permissions.js'
import { withTransaction } from '../transaction.js'
import type { FeedView } from './feed.js'
import { type FeedDraft, readCaPem, readCredentials, readFeedDraft } from './feed-input.js'
import { feedViewOf, sealCredentials } from './feed-records.js'

/** A feed by id (number) or by name (string). */
export type FeedRef = number | string

export const requireFeedAdministrator = (ctx: RequestContext) =>
  requirePlatformAdministrator(ctx.caller.account, 'manage feeds')

const viewOf = (ctx: RequestContext, row: FeedRowWithOwner) => feedViewOf(row, row.owner_name, ctx.services.secretBox)

async function requireFeed(ctx: RequestContext, ref: FeedRef): Promise<FeedRowWithOwner> {
  const row =
    typeof ref === 'number' ? await findFeedRowById(ctx.store.db, ref) : await findFeedRowByName(ctx.store.db, ref)
  if (!row) throw notFound(typeof ref === 'number' ? `No feed with id ${ref}` : `No feed named '${ref}'`)
  return row
}

/**
 * A feed's runs write as the administrator who set it up, through batch jobs that check that
 * account's role in the owner as any import does; so the role is asked for now, not at the first run.
 */
function requireFeedWriter(ctx: RequestContext, owner: string): void {
  try {
    requireImportable(ctx.caller, owner)
  } catch (error) {
    const user = ctx.caller.account.userName
    throw invalid(
      `owner: a feed writes as the administrator who sets it up, and ${user} cannot import into '${owner}' (${(error as Error).message.replace(/\.$/, '')}); give them a role there first, e.g. bulwark memberships set ${user} '${owner}' Editor`,
    )
  }
}

/** Every feed, by name. */
export async function listFeeds(ctx: RequestContext): Promise<FeedView[]> {
  requireFeedAdministrator(ctx)
  return (await listFeedRows(ctx.store.db)).map((row) => viewOf(ctx, row))
}

export async function getFeed(ctx: RequestContext, ref: FeedRef): Promise<FeedView> {
  requireFeedAdministrator(ctx)
  return viewOf(ctx, await requireFeed(ctx, ref))
}

/**
 * Adds a feed, due at once.
 *
 * @example await addFeed(ctx, { name: 'OTX', kind: 'taxii21', url: 'https://otx.example/taxii/', owner: 'OTX',
 *   settings: { collection: 'user_AlienVault' }, credentials: { kind: 'basic', user: 'me', password: '…' } })
 */
export async function addFeed(ctx: RequestContext, body: unknown): Promise<FeedView> {
  requireFeedAdministrator(ctx)
  const draft = readFeedDraft(body)
  const { credentials, caPem } = body as Record<string, unknown>
  const sealed = sealedOf(ctx, readCredentials(credentials))
  const ca = readCaPem(caPem)
  return whileNameFree(ctx, draft.name, async (tctx) => {
    const ownerId = await resolveOwner(tctx, draft)
    requireFeedWriter(tctx, draft.owner)
    await requireFreeName(tctx, draft.name)
    const id = await insertFeedRow(tctx.store.db, {
      ...columnsOf(draft, ownerId),
      credentials_sealed: sealed ?? null,
      ca_pem: ca ?? null,
      next_run_at: tctx.now,
      created_by: tctx.caller.account.id,
      date_added: tctx.now,
      last_modified: tctx.now,
    })
    return viewOf(tctx, (await findFeedRowById(tctx.store.db, id))!)
  })
}

/**
 * Changes the fields the body gives (settings and defaults key by key; null removes one). A feed
 * pointed at another source (kind, URL, collection, owner or importFrom changed) starts over: its
 * cursor and failures are dropped and it is due at once; so is a feed enabled again. Credentials
 * are kept unless the body gives them (null removes them), even when the URL's host changes.
 */
export async function updateFeed(ctx: RequestContext, ref: FeedRef, body: unknown): Promise<FeedView> {
  requireFeedAdministrator(ctx)
  return withTransaction(ctx, async (tctx) => {
    const row = await requireFeed(tctx, ref)
    const current = viewOf(tctx, row)
    const draft = readFeedDraft(body, draftOf(current))
    const { credentials, caPem } = body as Record<string, unknown>
    // What GET gave (the kind alone) sent back unchanged keeps them.
    const echoed = credentials === current.credentials
    const sealed = echoed ? undefined : sealedOf(tctx, readCredentials(credentials))
    const ca = readCaPem(caPem)
    const ownerId = await resolveOwner(tctx, draft)
    if (ownerId !== row.owner_id) requireFeedWriter(tctx, draft.owner)
    if (draft.name !== row.name) await requireFreeName(tctx, draft.name)
    const changes: Updateable<FeedTable> = { ...columnsOf(draft, ownerId), last_modified: tctx.now }
    if (sealed !== undefined) changes.credentials_sealed = sealed
    if (ca !== undefined) changes.ca_pem = ca
    const otherSource =
      draft.kind !== current.kind ||
      draft.url !== current.url ||
      draft.settings.collection !== current.settings.collection ||
      ownerId !== row.owner_id ||
      draft.importFrom !== (current.importFrom ?? null)
    if (otherSource) Object.assign(changes, { cursor: null, failures: 0 })
    if (otherSource || (draft.enabled && !current.enabled)) changes.next_run_at = tctx.now
    await updateFeedRow(tctx.store.db, row.id, changes)
    return viewOf(tctx, (await findFeedRowById(tctx.store.db, row.id))!)
  })
}

/** Removes a feed and the record of its runs; what it imported stays. */
export async function removeFeed(ctx: RequestContext, ref: FeedRef): Promise<FeedView> {
  requireFeedAdministrator(ctx)
  return withTransaction(ctx, async (tctx) => {
    const row = await requireFeed(tctx, ref)
    await deleteFeedRow(tctx.store.db, row.id)
    return viewOf(tctx, row)
  })
}

function sealedOf(ctx: RequestContext, credentials: ReturnType<typeof readCredentials>): string | null | undefined {
  return credentials ? sealCredentials(credentials, ctx.services.secretBox) : credentials
}

async function requireFreeName(ctx: RequestContext, name: string): Promise<void> {
  if (await findFeedRowByName(ctx.store.db, name)) throw conflict(`A feed named '${name}' already exists`)
}

/** The work in a transaction; when a feed of that name was written meanwhile, its unique index's refusal is the same conflict. */
async function whileNameFree<T>(ctx: RequestContext, name: string, work: (tctx: RequestContext) => Promise<T>) {
  try {
    return await withTransaction(ctx, work)
  } catch (error) {
    if (!ctx.store.db.isTransaction && !isDomainError(error)) await requireFreeName(ctx, name)
    throw error
  }
}

/** The owner's id; the draft takes the owner's spelling and its default label's. */
async function resolveOwner(ctx: RequestContext, draft: FeedDraft): Promise<number> {
  const owner = await findOwnerByName(ctx.store.db, draft.owner)
  if (!owner) throw invalid(`owner: there is no owner named '${draft.owner}'`)
  draft.owner = owner.name
  const label = draft.defaults.securityLabel
  if (label !== undefined) draft.defaults.securityLabel = await securityLabelOf(ctx, owner, label)
  return owner.id
}

/**
 * A label of the owner or a standard TLP label, in its own spelling. Only what the administrator
 * names is ever put on the feed's items: a feed has no TLP unless given one.
 */
async function securityLabelOf(ctx: RequestContext, owner: { id: number; name: string }, name: string) {
  const standard = STANDARD_SECURITY_LABELS.find((l) => l.name.toLowerCase() === name.toLowerCase())
  if (standard) return standard.name
  const label = await findLabelByName(ctx.store.db, owner.id, name)
  if (!label)
    throw invalid(
      `defaults.securityLabel: '${name}' is neither a Security Label of ${owner.name} nor a standard TLP label (${STANDARD_SECURITY_LABELS.map((l) => l.name).join(', ')})`,
    )
  return label.name
}

function draftOf(view: FeedView): FeedDraft {
  return {
    name: view.name,
    kind: view.kind,
    url: view.url,
    owner: view.owner,
    intervalSeconds: view.intervalSeconds,
    enabled: view.enabled,
    settings: view.settings,
    defaults: view.defaults,
    importFrom: view.importFrom ?? null,
    maxObjectsPerRun: view.maxObjectsPerRun ?? null,
  }
}

function columnsOf(draft: FeedDraft, ownerId: number) {
  return {
    name: draft.name,
    kind: draft.kind,
    url: draft.url,
    owner_id: ownerId,
    interval_seconds: draft.intervalSeconds,
    enabled: draft.enabled ? 1 : 0,
    settings: JSON.stringify(draft.settings),
    defaults: JSON.stringify(draft.defaults),
    import_from: draft.importFrom,
    max_objects_per_run: draft.maxObjectsPerRun,
  }
}
