/**
 * The dashboard (GET /v3/dashboard, docs/console.md): what the Indicators of every owner the caller reads add up
 * to, the newest and highest-rated items, and a bounded count for each saved search the caller pinned. Every
 * figure comes with the TQL of the search it summarises, so a card leads to exactly those Indicators.
 *
 * Speed: counts come from the tallies the database keeps (by owner, type, active and rating; per day), the item
 * lists are reads that stop after ten rows, and a pinned search is counted up to COUNT_BOUND under a time limit:
 * the page's cost does not grow with the store.
 */
import { DomainError } from '../../core/errors.js'
import {
  type DashboardIndicatorRow,
  countUpTo,
  selectDayCounts,
  selectIndicatorsRated,
  selectNewestGroups,
  selectNewestIndicators,
  selectTallyBuckets,
} from '../../store/repositories/dashboard.repository.js'
import { compileTql, withTqlTimeout } from '../../tql/index.js'
import { readableOwners } from '../access/owner-scope.js'
import type { RequestContext } from '../context.js'
import type { Bucket, Dashboard, DashboardGroup, DashboardIndicator, PinnedCard } from './dashboard-view.js'
import { listPinnedSearches } from '../saved-searches/saved-searches.js'

/** A saved search is counted up to this many matches; above it the card says "10,000+". */
export const COUNT_BOUND = 10_000
/** How long one pinned search may be counted (less when the caller's TQL limit is lower). */
export const PINNED_COUNT_MS = 500
/**
 * How long the highest-rated read may take per rating. Its worst case is a top rating held by a few old Indicators
 * (the read walks the primary key down to them): past this it gives up that rating, and the dashboard says so.
 */
export const HIGHEST_RATED_MS = 250
/** Days of "added per day", today included. */
export const DAYS = 30
const TOP = 10
const DAY_MS = 86_400_000

/** A TQL string literal (the lexer's escapes). */
export function tqlString(text: string): string {
  return `"${text.replace(/[\\"'`]/g, (c) => `\\${c}`)}"`
}

function add(map: Map<string, number>, key: string, n: number) {
  map.set(key, (map.get(key) ?? 0) + n)
}

const byCount = (a: Bucket, b: Bucket) => b.count - a.count || a.label.localeCompare(b.label)

function ratingTql(rating: number): string {
  if (rating < 0) return 'rating is null'
  return rating >= 5 ? 'rating >= 5' : `rating >= ${rating} and rating < ${rating + 1}`
}

/**
 * The whole dashboard for the caller.
 *
 * @example const { byType } = await loadDashboard(ctx) // [{ label: 'Host', count: 412000, tql: 'typeName = "Host"' }, …]
 */
export async function loadDashboard(ctx: RequestContext): Promise<Dashboard> {
  const owners = readableOwners(ctx.caller)
  const ownerIds = owners.map((m) => m.ownerId)
  const ownerName = new Map(owners.map((m) => [m.ownerId, m.ownerName]))
  const db = ctx.store.db
  const buckets = await selectTallyBuckets(db, ownerIds)

  const byOwner = new Map<number, number>()
  const byType = new Map<string, number>()
  const byRating = new Map<string, number>()
  const byActive = new Map<string, number>()
  const ratingCounts = new Map<number, number>()
  for (const b of buckets) {
    byOwner.set(b.ownerId, (byOwner.get(b.ownerId) ?? 0) + b.n)
    add(byType, b.type, b.n)
    add(byRating, String(b.rating < 0 ? -1 : Math.floor(b.rating)), b.n)
    add(byActive, b.active ? 'active' : 'inactive', b.n)
    if (b.rating >= 0) ratingCounts.set(b.rating, (ratingCounts.get(b.rating) ?? 0) + b.n)
  }

  const today = Date.parse(`${ctx.now.slice(0, 10)}T00:00:00Z`)
  const days = Array.from({ length: DAYS }, (_, i) =>
    new Date(today - DAY_MS * (DAYS - 1 - i)).toISOString().slice(0, 10),
  )
  const perDay = await selectDayCounts(db, ownerIds, days[0]!)

  const ownersWithIndicators = ownerIds.filter((id) => (byOwner.get(id) ?? 0) > 0)
  const newest = (await Promise.all(ownersWithIndicators.map((id) => selectNewestIndicators(db, id, TOP))))
    .flat()
    .sort((a, b) => b.date_added.localeCompare(a.date_added) || b.id - a.id)
    .slice(0, TOP)

  const highest: DashboardIndicatorRow[] = []
  const skipped: Dashboard['highestRatedSkipped'] = []
  for (const rating of [...ratingCounts.keys()].sort((a, b) => b - a)) {
    if (highest.length >= TOP) break
    const need = Math.min(TOP - highest.length, ratingCounts.get(rating)!)
    try {
      highest.push(
        ...(await withTqlTimeout(ctx.store, HIGHEST_RATED_MS, (scope) =>
          selectIndicatorsRated(scope.db, ownersWithIndicators, rating, need, (where) =>
            scope.guard(where, 'indicator'),
          ),
        )),
      )
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'timeout')) throw error
      skipped.push({ rating, count: ratingCounts.get(rating)!, tql: ratingTql(Math.floor(rating)) })
    }
  }

  const groups = await selectNewestGroups(db, ownerIds, TOP)
  const indicator = (r: DashboardIndicatorRow): DashboardIndicator => ({
    id: Number(r.id),
    type: r.type,
    summary: r.summary,
    ownerName: ownerName.get(Number(r.owner_id)) ?? '',
    ...(r.rating === null ? {} : { rating: Number(r.rating) }),
    active: Number(r.active) === 1,
    dateAdded: r.date_added,
  })

  return {
    total: buckets.reduce((sum, b) => sum + b.n, 0),
    byOwner: owners
      .filter((m) => byOwner.has(m.ownerId))
      .map((m) => ({
        label: m.ownerName,
        count: byOwner.get(m.ownerId)!,
        tql: `ownerName = ${tqlString(m.ownerName)}`,
      }))
      .sort(byCount),
    byType: [...byType]
      .map(([type, count]) => ({ label: type, count, tql: `typeName = ${tqlString(type)}` }))
      .sort(byCount),
    byRating: [...byRating]
      .sort((a, b) => Number(b[0]) - Number(a[0]))
      .map(([rating, count]) => ({
        label: rating === '-1' ? 'unrated' : rating,
        count,
        tql: ratingTql(Number(rating)),
      })),
    byActive: ['active', 'inactive']
      .filter((state) => byActive.has(state))
      .map((state) => ({ label: state, count: byActive.get(state)!, tql: `indicatorActive = ${state === 'active'}` })),
    addedPerDay: days.map((day) => ({ label: day, count: perDay.get(day) ?? 0, tql: `dateAdded = ${tqlString(day)}` })),
    newestIndicators: newest.map(indicator),
    highestRatedIndicators: highest.map(indicator),
    highestRatedSkipped: skipped,
    newestGroups: groups.map((g) => ({
      id: Number(g.id),
      type: g.type,
      name: g.name,
      ownerName: ownerName.get(Number(g.owner_id)) ?? '',
      dateAdded: g.date_added,
    })),
    pinned: await countPinned(ctx, ownerIds),
    countBound: COUNT_BOUND,
  }
}

async function countPinned(ctx: RequestContext, ownerIds: number[]): Promise<PinnedCard[]> {
  const searches = await listPinnedSearches(ctx)
  const callerLimit = ctx.caller.account.tqlTimeoutMs ?? (await ctx.services.settings.get('tqlTimeoutMs'))
  const limitMs = callerLimit ? Math.min(callerLimit, PINNED_COUNT_MS) : PINNED_COUNT_MS
  const cards: PinnedCard[] = []
  for (const search of searches) {
    const card: PinnedCard = { id: search.id, name: search.name, tql: search.tql, kind: search.kind, more: false }
    try {
      const compiled = compileTql(search.kind, search.tql, {
        dialect: ctx.store.dialect,
        now: new Date(ctx.now),
        visibleOwnerIds: ownerIds,
      })
      const table = compiled.table as 'indicator' | 'intel_group'
      const n = await withTqlTimeout(ctx.store, limitMs, (scope) =>
        countUpTo(scope.db, { table, ownerIds, where: scope.guard(compiled.where, table) }, COUNT_BOUND),
      )
      card.count = Math.min(n, COUNT_BOUND)
      card.more = n > COUNT_BOUND
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      card.error =
        error.code === 'timeout' ? `Not counted: counting took more than ${limitMs} ms; open the search` : error.message
    }
    cards.push(card)
  }
  return cards
}
