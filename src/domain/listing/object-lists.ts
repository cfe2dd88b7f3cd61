/**
 * Lists and bulk deletes of v3 objects: a TQL filter, the owner scope, sorting by TQL
 * keywords and paging, all compiled to one id query (store/repositories/object-list.repository.ts).
 * Each object module then loads its records by those ids. Time-boxed by the caller's TQL
 * timeout, else the system's.
 *
 * @example
 *   const page = await listObjectIds(ctx, { objectType: 'cases', table: 'intel_case', owner: 'owned' },
 *     { tql: 'severity = "High"', sorting: 'dateAdded desc', resultStart: 0, resultLimit: 50, ownerScope: 'readable' })
 */
import type { Expression, Kysely, SqlBool } from 'kysely'
import {
  type LeadingTag,
  type TqlScope,
  compileTql,
  compileTqlSorting,
  namedTags,
  withTqlTimeout,
} from '../../tql/index.js'
import { findTagIdsByLowerName } from '../../store/repositories/tag.repository.js'
import {
  type IdQuery,
  countMatches,
  countOwners,
  idPageSettings,
  selectIds,
} from '../../store/repositories/object-list.repository.js'
import type { Database } from '../../store/database.js'
import type { RequestContext } from '../context.js'
import { type OwnerScope, ownerIdsToRead, readableOwnerIds } from '../access/owner-scope.js'
import { invalid } from '../../core/errors.js'

export interface ObjectListQuery {
  tql?: string
  /** `<keyword> [asc|desc] [nullsfirst|nullslast] …` over the endpoint's TQL keywords. */
  sorting?: string
  resultStart: number
  resultLimit: number
  /** Also count every match (the platform: only with count=true and resultStart=0). */
  count?: boolean
  /** 'context' when owner= was given, else 'readable'. */
  ownerScope: OwnerScope
  /**
   * Keyset paging: the last id of the previous page, from the cursor in a `next` link. Used
   * instead of skipping resultStart rows when no sorting is given (the order is then by id).
   */
  afterId?: number
}

/** Where a v3 object type's rows live. */
export interface ListSource {
  /** The TQL object type (v3 endpoint name); omit for endpoints without TQL. */
  objectType?: string
  table: string
  /** 'owned': rows carry owner_id; 'ownedOrSystem': owner_id null is a system row everyone sees; 'none': no owner. */
  owner: 'owned' | 'ownedOrSystem' | 'none'
}

export interface IdPage {
  ids: number[]
  /** More matches follow this page. */
  hasMore: boolean
  total?: number
}

async function idQuery(
  ctx: RequestContext,
  source: ListSource,
  query: Pick<ObjectListQuery, 'tql' | 'sorting' | 'ownerScope'>,
): Promise<IdQuery> {
  const hasTql = query.tql !== undefined && query.tql.trim() !== ''
  const where: Expression<SqlBool>[] = []
  let seekable = false
  let leadingTag: LeadingTag | undefined
  if (source.objectType) {
    const settings = { dialect: ctx.store.dialect, now: new Date(ctx.now), visibleOwnerIds: readableOwnerIds(ctx) }
    const tags = namedTags(source.objectType, query.tql ?? '', settings)
    // Compiled even without a filter: the object type's own restriction (e.g. item_kind) comes with it.
    const compiled = compileTql(source.objectType, query.tql ?? '', {
      ...settings,
      tagIds: tags.length ? await findTagIdsByLowerName(ctx.store.db, tags, settings.visibleOwnerIds) : undefined,
    })
    if (compiled.filters) where.push(compiled.where)
    seekable = compiled.seekable
    leadingTag = compiled.leadingTag
  } else if (hasTql) {
    throw invalid(`TQL is not available on this endpoint`)
  }
  const sorting = query.sorting?.trim()
  if (sorting && !source.objectType) throw invalid('Sorting is not available on this endpoint')
  return {
    table: source.table,
    ownerIds: source.owner === 'none' ? null : ownerIdsToRead(ctx, query.ownerScope),
    includeUnowned: source.owner === 'ownedOrSystem',
    where,
    seekable,
    leadingTag,
    orderBy: sorting ? compileTqlSorting(source.objectType!, sorting) : [],
  }
}

async function timeoutMs(ctx: RequestContext): Promise<number> {
  return ctx.caller.account.tqlTimeoutMs ?? (await ctx.services.settings.get('tqlTimeoutMs'))
}

/**
 * Runs TQL queries under the caller's time limit; inside a write transaction they join it instead, without a limit.
 * `settings`: what the store wants in force for the queries (idPageSettings), set with the limit. A query with no
 * filter and no sort has nothing to limit (its page is read in index order and stops), and on PostgreSQL the limit
 * would take a transaction: two round trips more than the page itself.
 */
async function withLimit<T>(
  ctx: RequestContext,
  q: IdQuery,
  run: (scope: TqlScope) => Promise<T>,
  settings?: Record<string, string>,
): Promise<T> {
  const unfiltered = q.where.length === 0 && q.orderBy.length === 0
  if (ctx.store.db.isTransaction || unfiltered) return run({ db: ctx.store.db, guard: (where) => where })
  return withTqlTimeout(ctx.store, await timeoutMs(ctx), run, { settings })
}

/**
 * Drops an owner filter that names every owner: it filters nothing, yet planners (SQLite's
 * above all) take it as a reason to read through an owner index and sort the whole match
 * instead of reading in id order and stopping after one page.
 */
async function withoutIdleOwnerFilter(db: Kysely<Database>, q: IdQuery): Promise<IdQuery> {
  if (q.ownerIds === null || new Set(q.ownerIds).size < (await countOwners(db))) return q
  return { ...q, ownerIds: null }
}

function guarded(q: IdQuery, scope: TqlScope): IdQuery {
  const guard = (where: Expression<SqlBool>) => scope.guard(where, q.table)
  return {
    ...q,
    where: q.where.map(guard),
    leadingTag: q.leadingTag && { ...q.leadingTag, where: guard(q.leadingTag.where) },
  }
}

/** One page of matching ids, in order, and whether more follow. */
export async function listObjectIds(ctx: RequestContext, source: ListSource, query: ObjectListQuery): Promise<IdPage> {
  const page = { offset: query.resultStart, limit: query.resultLimit + 1, afterId: query.afterId }
  const asked = await idQuery(ctx, source, query)
  return withLimit(
    ctx,
    asked,
    async (scope) => {
      const q = guarded(await withoutIdleOwnerFilter(scope.db, asked), scope)
      const ids = await selectIds(scope.db, q, page, scope.settings)
      const total = query.count && query.resultStart === 0 ? await countMatches(scope.db, q) : undefined
      return { ids: ids.slice(0, query.resultLimit), hasMore: ids.length > query.resultLimit, total }
    },
    idPageSettings(ctx.store.db, asked, page),
  )
}

/** Every id matching the TQL in the scope (bulk delete). */
export async function findMatchingIds(
  ctx: RequestContext,
  source: ListSource,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number[]> {
  const q = await idQuery(ctx, source, { tql, ownerScope: scope })
  return withLimit(ctx, q, (s) => selectIds(s.db, guarded(q, s), { offset: 0, limit: null }))
}

/** Keeps `ids`' order when records come back from an `in (...)` look-up. */
export function inIdOrder<T extends { id: number }>(ids: readonly number[], records: readonly T[]): T[] {
  // A GET of one object passes here on every request: one id needs no map.
  if (ids.length === 1) {
    // From the end: of duplicate rows the last one counts, as in the map below.
    for (let i = records.length - 1; i >= 0; i--) if (records[i]!.id === ids[0]) return [records[i]!]
    return []
  }
  const byId = new Map(records.map((r) => [r.id, r]))
  return ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined)
}

/** Bulk DELETE /v3/<type>?tql=… runs only when the system setting allows it. */
export async function requireBulkDelete(ctx: RequestContext): Promise<void> {
  if (!(await ctx.services.settings.getBoolean('bulkDeleteEnabled'))) {
    throw invalid(
      'Bulk delete is disabled in system settings (bulkDeleteEnabled); delete objects one by one or ask an administrator',
    )
  }
}
