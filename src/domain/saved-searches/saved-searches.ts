/**
 * Saved searches: a named TQL query over Indicators or Groups, private to the person who saved it or shared
 * with the members of one owner they belong to. Members of that owner see and run it and may pin it to their
 * own dashboard; only its creator, an Organization Administrator of the creator's Organization or a system
 * administrator changes or deletes it. The TQL is compiled when it is saved, so a saved search always runs.
 * An outbound list may follow one (domain/lists/): such a search cannot be deleted, nor turned into a search of
 * Groups, while a list follows it.
 */
import { DomainError, conflict, invalid, notFound } from '../../core/errors.js'
import {
  type SavedSearchRow,
  type SavedSearchWrite,
  deleteSavedSearch,
  findSavedSearch,
  insertSavedSearch,
  listPinnedSavedSearches,
  listVisibleSavedSearches,
  listsFollowingSavedSearch,
  setSavedSearchPin,
  updateSavedSearch,
} from '../../store/repositories/saved-search.repository.js'
import { compileTql } from '../../tql/index.js'
import { membershipNamed, readableOwnerIds } from '../access/owner-scope.js'
import type { RequestContext } from '../context.js'
import { isPlatformAdministrator } from '../permissions.js'

export const SAVED_SEARCH_KINDS = ['indicators', 'groups'] as const
export type SavedSearchKind = (typeof SAVED_SEARCH_KINDS)[number]

/** A saved search as its viewer sees it (the shape of GET /v3/savedSearches). */
export interface SavedSearch {
  id: number
  name: string
  tql: string
  kind: SavedSearchKind
  /** Shared with the members of `owner`; false: private to its creator. */
  shared: boolean
  owner?: string
  /** The creator's user name. */
  createdBy: string
  /** Saved by the viewer. */
  mine: boolean
  /** On the viewer's dashboard. */
  pinned: boolean
  /** The viewer may change and delete it. */
  editable: boolean
  dateAdded: string
  lastModified: string
}

/** What a body may give; absent fields keep their value on a change. `owner` null or '' makes it private. */
export interface SavedSearchInput {
  name?: unknown
  tql?: unknown
  kind?: unknown
  owner?: unknown
  pinned?: unknown
}

const NAME_LIMIT = 100
const CONTROL = /[\u0000-\u001f\u007f]/

function requireName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : ''
  if (name === '' || name.length > NAME_LIMIT || CONTROL.test(name))
    throw invalid(`name must be 1 to ${NAME_LIMIT} characters of text, without line breaks`)
  return name
}

function requireKind(value: unknown): SavedSearchKind {
  if (value === undefined || value === null || value === '') return 'indicators'
  if (typeof value === 'string' && (SAVED_SEARCH_KINDS as readonly string[]).includes(value))
    return value as SavedSearchKind
  throw invalid(`kind must be one of ${SAVED_SEARCH_KINDS.join(', ')}`)
}

/** The TQL checked by compiling it for its kind; the refusal says where it failed. */
function requireTql(ctx: RequestContext, value: unknown, kind: SavedSearchKind): string {
  if (typeof value !== 'string') throw invalid(`tql must be a TQL query over ${kind} (an empty one matches them all)`)
  try {
    compileTql(kind, value, { dialect: ctx.store.dialect, now: new Date(ctx.now) })
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid')
      throw invalid(`The saved search's TQL: ${error.message}`)
    throw error
  }
  return value.trim()
}

/** The owner a search is shared with: one the caller reads as a member, else 403 (as for any owner it may not use). */
function requireSharedOwner(ctx: RequestContext, value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null
  if (typeof value !== 'string') throw invalid('owner must be the name of an owner you are a member of, or null')
  const membership = membershipNamed(ctx, value)
  if (!membership)
    throw new DomainError(
      'owner_inaccessible',
      `A search can be shared only with an owner you are a member of; '${value}' is not one`,
    )
  return membership.ownerId
}

function requirePinned(value: unknown): boolean | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'boolean') throw invalid('pinned must be true or false')
  return value
}

function mayManage(ctx: RequestContext, row: SavedSearchRow): boolean {
  const account = ctx.caller.account
  if (row.created_by === account.id || isPlatformAdministrator(account)) return true
  return (
    row.creator_organization_id === account.organizationId &&
    ctx.caller.memberships.some((m) => m.ownerId === account.organizationId && m.role === 'Organization Administrator')
  )
}

function isVisible(ctx: RequestContext, row: SavedSearchRow): boolean {
  return (
    row.created_by === ctx.caller.account.id || (row.owner_id !== null && readableOwnerIds(ctx).includes(row.owner_id))
  )
}

function present(ctx: RequestContext, row: SavedSearchRow): SavedSearch {
  return {
    id: Number(row.id),
    name: row.name,
    tql: row.tql,
    kind: row.kind,
    shared: row.owner_id !== null,
    ...(row.owner_name !== null ? { owner: row.owner_name } : {}),
    createdBy: row.creator_name,
    mine: row.created_by === ctx.caller.account.id,
    pinned: Number(row.pinned) === 1,
    editable: mayManage(ctx, row),
    dateAdded: row.date_added,
    lastModified: row.last_modified,
  }
}

/** A search the caller may see, or 404 (another's private search is as unknown as a missing one). */
async function requireVisible(ctx: RequestContext, id: number): Promise<SavedSearchRow> {
  const row = await findSavedSearch(ctx.store.db, ctx.caller.account.id, id)
  if (!row || !isVisible(ctx, row)) throw notFound(`Saved search ${id} not found`)
  return row
}

function requireManage(ctx: RequestContext, row: SavedSearchRow, what: string): void {
  if (!mayManage(ctx, row))
    throw new DomainError(
      'owner_inaccessible',
      `Only the creator of saved search ${row.id} (${row.creator_name}), an Organization Administrator of their Organization or a system administrator may ${what} it`,
    )
}

/**
 * Every saved search the caller may see: their own and those shared with an owner they read.
 *
 * @example const searches = await listSavedSearches(ctx) // [{ id: 3, name: 'Hot hosts', tql: 'rating >= 4', … }]
 */
export async function listSavedSearches(ctx: RequestContext): Promise<SavedSearch[]> {
  const rows = await listVisibleSavedSearches(ctx.store.db, ctx.caller.account.id, readableOwnerIds(ctx))
  return rows.map((row) => present(ctx, row))
}

export async function getSavedSearch(ctx: RequestContext, id: number): Promise<SavedSearch> {
  return present(ctx, await requireVisible(ctx, id))
}

/** The caller's pinned searches that they may still see (a membership may have ended since the pin). */
export async function listPinnedSearches(ctx: RequestContext): Promise<SavedSearch[]> {
  const rows = await listPinnedSavedSearches(ctx.store.db, ctx.caller.account.id)
  return rows.filter((row) => isVisible(ctx, row)).map((row) => present(ctx, row))
}

/** Saves a new search for the caller: `{name, tql, kind?, owner?, pinned?}`. */
export async function createSavedSearch(ctx: RequestContext, input: SavedSearchInput): Promise<SavedSearch> {
  const kind = requireKind(input.kind)
  const write: SavedSearchWrite = {
    name: requireName(input.name),
    tql: requireTql(ctx, input.tql, kind),
    kind,
    owner_id: requireSharedOwner(ctx, input.owner),
  }
  const pinned = requirePinned(input.pinned)
  const id = await insertSavedSearch(ctx.store.db, { ...write, created_by: ctx.caller.account.id }, ctx.now)
  if (pinned) await setSavedSearchPin(ctx.store.db, id, ctx.caller.account.id, true)
  return getSavedSearch(ctx, id)
}

/**
 * Changes what the body gives. `pinned` alone is the viewer's own pin, which any viewer may set; anything else
 * needs the right to manage the search.
 */
export async function changeSavedSearch(
  ctx: RequestContext,
  id: number,
  input: SavedSearchInput,
): Promise<SavedSearch> {
  const row = await requireVisible(ctx, id)
  const pinned = requirePinned(input.pinned)
  const changes = ['name', 'tql', 'kind', 'owner'].filter((key) => input[key as keyof SavedSearchInput] !== undefined)
  if (changes.length) {
    requireManage(ctx, row, 'change')
    const kind = input.kind === undefined ? row.kind : requireKind(input.kind)
    if (kind !== 'indicators' && (await listsFollowingSavedSearch(ctx.store.db, id)).length)
      throw invalid(
        `Saved search ${id} is followed by outbound lists of Indicators; it cannot become a search of ${kind}`,
      )
    const ownerChanged = input.owner !== undefined
    await updateSavedSearch(
      ctx.store.db,
      id,
      {
        name: input.name === undefined ? row.name : requireName(input.name),
        tql: input.tql === undefined && kind === row.kind ? row.tql : requireTql(ctx, input.tql ?? row.tql, kind),
        kind,
        // The creator shares with owners they are a member of; an administrator changing another's search keeps its owner unless it names one they belong to.
        owner_id: ownerChanged ? requireSharedOwner(ctx, input.owner) : row.owner_id,
      },
      ctx.now,
    )
  }
  if (pinned !== undefined) await setSavedSearchPin(ctx.store.db, id, ctx.caller.account.id, pinned)
  return getSavedSearch(ctx, id)
}

/** Deletes a search the caller may manage; refused (a conflict: 400 on v3) while an outbound list follows it. */
export async function removeSavedSearch(ctx: RequestContext, id: number): Promise<void> {
  const row = await requireVisible(ctx, id)
  requireManage(ctx, row, 'delete')
  const lists = await listsFollowingSavedSearch(ctx.store.db, id)
  if (lists.length)
    throw conflict(
      `Saved search ${id} is followed by the outbound list${lists.length > 1 ? 's' : ''} ${lists.map((n) => `'${n}'`).join(', ')}; change or delete ${lists.length > 1 ? 'them' : 'it'} first`,
    )
  await deleteSavedSearch(ctx.store.db, id)
}
