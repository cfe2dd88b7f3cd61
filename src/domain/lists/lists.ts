/**
 * Saving, changing and removing outbound lists. Only system administrators manage them (the
 * Administrator and Operations Administrator system roles, which the API cannot grant): a list is
 * served to every account that may read its Indicators, so it is a decision for the installation,
 * not for one owner. The admin CLI calls the store-level functions as the operator; the API calls
 * the request-level ones, which check the caller first. A list's TQL is compiled when it is saved,
 * so a list that is saved always runs.
 */
import { DomainError, invalid, notFound } from '../../core/errors.js'
import type { Store } from '../../store/connect.js'
import {
  type OutboundListRow,
  deleteOutboundList,
  findOutboundList,
  insertOutboundList,
  listOutboundLists,
  ownerIdsByName,
  ownerNamesById,
  updateOutboundList,
} from '../../store/repositories/outbound-list.repository.js'
import { findSavedSearchQuery } from '../../store/repositories/saved-search.repository.js'
import { compileTql } from '../../tql/index.js'
import type { RequestContext } from '../context.js'
import { getSavedSearch } from '../saved-searches/saved-searches.js'
import { requirePlatformAdministrator } from '../permissions.js'
import {
  type OutboundList,
  type OutboundListInput,
  listUrls,
  readIndicatorTypes,
  requireListName,
} from './outbound-list.js'

export const requireListAdministrator = (ctx: Pick<RequestContext, 'caller'>) =>
  requirePlatformAdministrator(ctx.caller.account, 'manage outbound lists')

async function viewOf(store: Store, publicUrl: string, row: OutboundListRow): Promise<OutboundList> {
  const view: OutboundList = {
    name: row.name,
    tql: row.tql,
    urls: listUrls(publicUrl, row.name),
    dateAdded: row.date_added,
    lastModified: row.last_modified,
  }
  if (row.types !== null) view.types = JSON.parse(row.types) as string[]
  if (row.owner_ids !== null) {
    const ids = JSON.parse(row.owner_ids) as number[]
    const names = await ownerNamesById(store.db, ids)
    // An owner deleted since the list was saved no longer narrows anything: it has no Indicators.
    view.owners = ids.flatMap((id) => (names.has(id) ? [names.get(id)!] : []))
  }
  if (row.created_by !== null) view.createdBy = row.created_by
  if (row.saved_search_id !== null) {
    const search = await findSavedSearchQuery(store.db, row.saved_search_id)
    if (search) view.savedSearch = { id: Number(search.id), name: search.name }
  }
  return view
}

/**
 * The saved search a list is to follow, with its TQL: one of Indicators. Through the API the administrator
 * must see it (theirs, or shared with an owner they read); the CLI's operator may name any.
 */
async function requireListSavedSearch(
  store: Store,
  id: unknown,
  viewer: RequestContext | undefined,
): Promise<{ id: number; tql: string }> {
  if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0)
    throw invalid('savedSearch must be the id of a saved search of Indicators')
  if (viewer)
    await getSavedSearch(viewer, id).catch(() => Promise.reject(invalid(`No saved search ${id} is visible to you`)))
  const search = await findSavedSearchQuery(store.db, id)
  if (!search) throw invalid(`No saved search ${id} is visible to you`)
  if (search.kind !== 'indicators')
    throw invalid(`Saved search ${id} is a search of ${search.kind}; a list serves Indicators`)
  return { id, tql: requireListTql(store, search.tql) }
}

/** The list's TQL and the saved search it follows, from an input that gives exactly one of them. */
async function listQuery(
  store: Store,
  input: { tql?: unknown; savedSearch?: unknown },
  viewer: RequestContext | undefined,
): Promise<{ tql: string; saved_search_id: number | null }> {
  if (input.savedSearch !== undefined && input.savedSearch !== null) {
    if (input.tql !== undefined && input.tql !== '') throw invalid('Give a list either tql or savedSearch, not both')
    const search = await requireListSavedSearch(store, input.savedSearch, viewer)
    return { tql: search.tql, saved_search_id: search.id }
  }
  return { tql: requireListTql(store, input.tql), saved_search_id: null }
}

/** The TQL checked by compiling it as a list would run it; the refusal names the list's TQL and the place. */
function requireListTql(store: Store, tql: unknown): string {
  if (typeof tql !== 'string') throw invalid('tql must be a TQL query over Indicators (an empty one keeps them all)')
  try {
    compileTql('indicators', tql, { dialect: store.dialect, now: new Date() })
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid') throw invalid(`The list's TQL: ${error.message}`)
    throw error
  }
  return tql.trim()
}

async function storedOwners(store: Store, owners: readonly string[] | undefined): Promise<string | null> {
  if (owners === undefined) return null
  const wanted = [...new Set(owners.map((o) => o.trim()).filter((o) => o !== ''))]
  if (wanted.length === 0) return null
  const ids = await ownerIdsByName(store.db, wanted)
  const unknown = wanted.filter((name) => !ids.has(name))
  if (unknown.length) throw invalid(`No owner is named ${unknown.map((n) => `'${n}'`).join(', ')}`)
  return JSON.stringify(wanted.map((name) => ids.get(name)!))
}

function storedTypes(types: readonly string[] | undefined): string | null {
  if (types === undefined) return null
  const names = readIndicatorTypes(types, 'types')
  return names.length ? JSON.stringify(names) : null
}

/**
 * Saves a new list. `createdBy`: the administrator's account id, null from the CLI. `viewer`: the API's caller,
 * who must see a saved search the list is to follow.
 */
export async function addOutboundList(
  store: Store,
  publicUrl: string,
  input: OutboundListInput,
  createdBy: number | null,
  now: string,
  viewer?: RequestContext,
): Promise<OutboundList> {
  const name = requireListName(input.name)
  const query = await listQuery(store, input, viewer)
  const types = storedTypes(input.types)
  const owners = await storedOwners(store, input.owners)
  if (await findOutboundList(store.db, name)) throw new DomainError('conflict', `A list named '${name}' already exists`)
  await insertOutboundList(store.db, { name, ...query, types, owner_ids: owners, created_by: createdBy }, now)
  return viewOf(store, publicUrl, (await findOutboundList(store.db, name))!)
}

/**
 * Changes what is given of a list; an empty `types` or `owners` list removes that narrowing. A `tql` ends
 * following a saved search; a `savedSearch` starts following one.
 */
export async function changeOutboundList(
  store: Store,
  publicUrl: string,
  name: string,
  changes: Partial<Omit<OutboundListInput, 'name'>>,
  now: string,
  viewer?: RequestContext,
): Promise<OutboundList> {
  const row = await requireList(store, name)
  const query =
    changes.tql === undefined && changes.savedSearch === undefined
      ? { tql: row.tql, saved_search_id: row.saved_search_id }
      : await listQuery(store, changes, viewer)
  await updateOutboundList(
    store.db,
    row.name,
    {
      ...query,
      types: changes.types === undefined ? row.types : storedTypes(changes.types),
      owner_ids: changes.owners === undefined ? row.owner_ids : await storedOwners(store, changes.owners),
    },
    now,
  )
  return viewOf(store, publicUrl, (await findOutboundList(store.db, row.name))!)
}

export async function requireList(store: Store, name: string): Promise<OutboundListRow> {
  const row = await findOutboundList(store.db, requireListName(name))
  if (!row) throw notFound(`No list is named '${name}'`)
  return row
}

export async function showOutboundList(store: Store, publicUrl: string, name: string): Promise<OutboundList> {
  return viewOf(store, publicUrl, await requireList(store, name))
}

export async function listOutboundListViews(store: Store, publicUrl: string): Promise<OutboundList[]> {
  const rows = await listOutboundLists(store.db)
  return Promise.all(rows.map((row) => viewOf(store, publicUrl, row)))
}

export async function removeOutboundList(store: Store, name: string): Promise<void> {
  if (!(await deleteOutboundList(store.db, requireListName(name)))) throw notFound(`No list is named '${name}'`)
}

function textList(body: Record<string, unknown>, key: string): string[] | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value.split(',')
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[]
  throw invalid(`${key} must be a list of names`)
}

function optionalTql(body: Record<string, unknown>): string | undefined {
  const value = body.tql
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw invalid('tql must be text')
  return value
}

function optionalSavedSearch(body: Record<string, unknown>): number | undefined {
  const value = body.savedSearch
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number') throw invalid('savedSearch must be the id of a saved search of Indicators')
  return value
}

/** POST /v3/lists. */
export async function createList(ctx: RequestContext, body: Record<string, unknown>): Promise<OutboundList> {
  requireListAdministrator(ctx)
  const tql = optionalTql(body)
  const savedSearch = optionalSavedSearch(body)
  if (tql === undefined && savedSearch === undefined)
    throw invalid('tql or savedSearch is required: the TQL query over Indicators the list serves, or a saved search')
  return addOutboundList(
    ctx.store,
    ctx.services.publicUrl,
    { name: body.name as string, tql, savedSearch, types: textList(body, 'types'), owners: textList(body, 'owners') },
    ctx.caller.account.id,
    ctx.now,
    ctx,
  )
}

/** PUT /v3/lists/{name}. */
export async function updateList(
  ctx: RequestContext,
  name: string,
  body: Record<string, unknown>,
): Promise<OutboundList> {
  requireListAdministrator(ctx)
  if (body.name !== undefined && body.name !== name) throw invalid("A list's name is its URL and cannot be changed")
  return changeOutboundList(
    ctx.store,
    ctx.services.publicUrl,
    name,
    {
      tql: optionalTql(body),
      savedSearch: optionalSavedSearch(body),
      types: textList(body, 'types'),
      owners: textList(body, 'owners'),
    },
    ctx.now,
    ctx,
  )
}

export async function getList(ctx: RequestContext, name: string): Promise<OutboundList> {
  requireListAdministrator(ctx)
  return showOutboundList(ctx.store, ctx.services.publicUrl, name)
}

export async function listLists(ctx: RequestContext): Promise<OutboundList[]> {
  requireListAdministrator(ctx)
  return listOutboundListViews(ctx.store, ctx.services.publicUrl)
}

export async function deleteList(ctx: RequestContext, name: string): Promise<void> {
  requireListAdministrator(ctx)
  await removeOutboundList(ctx.store, name)
}
