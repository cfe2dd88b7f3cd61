/**
 * Mirror mode of CSV and text feeds: a value that left the list is no longer vouched for, so its
 * Indicator in the feed's owner becomes inactive. Each run notes the values its list brought
 * (feed_value, migration 0143) under its run id; once the run has stored the whole list (the page
 * marked `complete`), the values no later run brought are retired. Values are keyed as the batch
 * writer stores them (type and normalised summary; a File by each of its hashes, since Files are
 * matched by any hash), so what is noted is what was written.
 *
 * Retiring is automation turning Indicators inactive, as the lifecycle does (domain/lifecycle):
 * a locked Indicator is left alone, the change stamps lastModified (TAXII and exports then serve
 * it as ended), the owner's tallies follow by their triggers, and the Indicator is marked stale,
 * so when the list brings the value back the batch writer makes it active again.
 * docs/feeds.md, "MISP feeds, CSV and text lists".
 */
import { deactivateIndicators } from '../../store/repositories/lifecycle.repository.js'
import {
  type FeedValueKey,
  deleteFeedValues,
  findActiveFilesByHashes,
  findActiveIndicatorIds,
  findCurrentFileHashes,
  findFeedOwnerId,
  findValuesOfOtherFeeds,
  listFeedValuesBefore,
  upsertFeedValues,
} from '../../store/repositories/feed-value.repository.js'
import { readIndicatorKey } from '../batch/input.js'
import type { RequestContext } from '../context.js'
import { withTransaction } from '../transaction.js'

/** Values per statement: four parameters each, well inside both databases' limits. */
const CHUNK = 1_000

/**
 * The keys under which a read Indicator (a reader's batch item, or just its type and summary) is
 * stored: its type and summary as the batch writer normalises them, or a File's hashes, each its
 * own key. None for an item the batch would refuse.
 * @example storedValueKeys({ type: 'Host', summary: 'Evil.Example' }) // [{ type: 'Host', summary: 'evil.example' }]
 */
export function storedValueKeys(indicator: unknown): FeedValueKey[] {
  if (!indicator || typeof indicator !== 'object' || Array.isArray(indicator)) return []
  let key: ReturnType<typeof readIndicatorKey>
  try {
    key = readIndicatorKey(indicator as Record<string, unknown>)
  } catch {
    return []
  }
  if (key.def.name !== 'File') return [{ type: key.def.name, summary: key.summary }]
  return key.values.flatMap((hash) => (hash ? [{ type: 'File', summary: hash }] : []))
}

/**
 * Notes that run `runId` of the feed brought these values (each read Indicator's type and
 * summary; normalised here as the batch writer does, so the reader's own spelling is fine). Call
 * it for the Indicators of each stored page of a mirrored list, in the page's transaction.
 * @example await noteListValues(ctx, feed.id, run.id, [{ type: 'Address', summary: '192.0.2.1' }])
 */
export async function noteListValues(
  ctx: RequestContext,
  feedId: number,
  runId: number,
  values: { type: string; summary: string }[],
): Promise<void> {
  for (let at = 0; at < values.length; at += CHUNK) {
    const keys = new Map<string, FeedValueKey>()
    for (const value of values.slice(at, at + CHUNK))
      for (const key of storedValueKeys(value)) keys.set(`${key.type}\u0000${key.summary}`, key)
    await withTransaction(ctx, (tctx) => upsertFeedValues(tctx.store.db, feedId, runId, [...keys.values()]))
  }
}

/**
 * Turns inactive the Indicators of the feed's owner whose values no run since `runId` brought
 * (the list no longer holds them), forgets those values, and returns how many Indicators it turned
 * inactive. A value another mirrored feed of the same owner still holds stays active, and so does
 * a File that holds a hash the list still brings. Call it once the run's `complete` page is stored.
 * @example const retired = await retireMissingValues(ctx, feed.id, run.id)
 */
export async function retireMissingValues(ctx: RequestContext, feedId: number, runId: number): Promise<number> {
  const ownerId = await findFeedOwnerId(ctx.store.db, feedId)
  if (ownerId === undefined) return 0
  let retired = 0
  let after: FeedValueKey | undefined
  for (;;) {
    const page = await listFeedValuesBefore(ctx.store.db, feedId, runId, after, CHUNK)
    if (!page.length) break
    // One transaction a chunk: short write locks however long the list.
    retired += await withTransaction(ctx, (tctx) => retireChunk(tctx, feedId, ownerId, runId, page))
    after = page[page.length - 1]
    if (page.length < CHUNK) break
  }
  return retired
}

async function retireChunk(
  ctx: RequestContext,
  feedId: number,
  ownerId: number,
  runId: number,
  values: FeedValueKey[],
): Promise<number> {
  const db = ctx.store.db
  const byType = new Map<string, string[]>()
  for (const v of values) byType.set(v.type, [...(byType.get(v.type) ?? []), v.summary])
  const ids = new Set<number>()
  for (const [type, summaries] of byType) {
    const elsewhere = new Set(await findValuesOfOtherFeeds(db, feedId, ownerId, type, summaries))
    const gone = summaries.filter((s) => !elsewhere.has(s))
    if (type !== 'File') {
      for (const id of await findActiveIndicatorIds(db, ownerId, type, gone)) ids.add(id)
      continue
    }
    const files = await findActiveFilesByHashes(db, ownerId, gone)
    const held = files.flatMap((f) => [f.value1, f.value2, f.value3]).filter((h): h is string => !!h)
    const kept = new Set([
      ...(await findCurrentFileHashes(db, feedId, runId, held)),
      ...(await findValuesOfOtherFeeds(db, feedId, ownerId, 'File', held)),
    ])
    for (const f of files) if (![f.value1, f.value2, f.value3].some((h) => h && kept.has(h))) ids.add(f.id)
  }
  const retired = await deactivateIndicators(db, [...ids], ctx.now)
  for (const [type, summaries] of byType) await deleteFeedValues(db, feedId, type, summaries)
  return retired
}
