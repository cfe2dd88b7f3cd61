/**
 * A feed read split into numbered parts that any node can serve (TAXII 1.1 poll results with
 * Poll_Fulfillment). A result fixes its owner, its window and its Indicator count when it is
 * made; where each part starts is written to the database as the part before it is served,
 * so nothing lives in one process's memory. Only the account that made a result can read it,
 * and results are forgotten after RESULT_TTL_MS.
 *
 * @example
 *   const result = await createFeedResult(store, caller, { ownerId, since, until, recordCount }, now)
 *   const part = await findFeedResultPart(store, caller, result.resultId, 2)   // undefined until part 1 was served
 */
import { randomUUID } from 'node:crypto'
import type { Store } from '../../store/connect.js'
import {
  deleteFeedResultPartsBefore,
  insertFeedResultPart,
  selectFeedResultPart,
  type FeedResultPartRow,
} from '../../store/repositories/feed-result.repository.js'
import type { Caller } from '../context.js'
import { DAY_MS } from '../../core/time.js'
import type { FeedPosition } from './feed.js'

export const RESULT_TTL_MS = DAY_MS

export interface FeedResult {
  resultId: string
  ownerId: number
  since?: string
  until: string
  recordCount: number
}

export interface FeedResultPart extends FeedResult {
  partNumber: number
  /** Where the part starts: after this position, or at the window's start for the first part. */
  after?: FeedPosition
}

export async function createFeedResult(
  store: Store,
  caller: Caller,
  r: Omit<FeedResult, 'resultId'>,
  now: string,
): Promise<FeedResultPart> {
  await deleteFeedResultPartsBefore(store.db, new Date(Date.parse(now) - RESULT_TTL_MS).toISOString())
  const part: FeedResultPart = { ...r, resultId: randomUUID(), partNumber: 1 }
  await insertFeedResultPart(store.db, toRow(caller, part, now))
  return part
}

/** A part of a result of this caller, once its start is known; undefined otherwise (unknown, expired, another account's). */
export async function findFeedResultPart(
  store: Store,
  caller: Caller,
  resultId: string,
  partNumber: number,
  now: string,
): Promise<FeedResultPart | undefined> {
  const row = await selectFeedResultPart(store.db, resultId, partNumber)
  if (!row || row.account_id !== caller.account.id) return undefined
  if (Date.parse(row.created_at) < Date.parse(now) - RESULT_TTL_MS) return undefined
  return {
    resultId: row.result_id,
    partNumber: row.part_number,
    ownerId: row.owner_id,
    since: row.since ?? undefined,
    until: row.until,
    recordCount: row.record_count,
    after:
      row.after_last_modified !== null && row.after_id !== null
        ? { lastModified: row.after_last_modified, id: Number(row.after_id) }
        : undefined,
  }
}

/** Records where the part after `part` starts: after the last Indicator `part` served. */
export async function recordNextPart(
  store: Store,
  caller: Caller,
  part: FeedResultPart,
  last: FeedPosition | undefined,
  now: string,
): Promise<void> {
  await insertFeedResultPart(
    store.db,
    toRow(caller, { ...part, partNumber: part.partNumber + 1, after: last ?? part.after }, now),
  )
}

function toRow(caller: Caller, p: FeedResultPart, now: string): FeedResultPartRow {
  return {
    result_id: p.resultId,
    part_number: p.partNumber,
    account_id: caller.account.id,
    owner_id: p.ownerId,
    since: p.since ?? null,
    until: p.until,
    record_count: p.recordCount,
    after_last_modified: p.after?.lastModified ?? null,
    after_id: p.after?.id ?? null,
    created_at: now,
  }
}
