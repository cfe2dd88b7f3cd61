/**
 * The Poll service: a Poll_Request opens a result over one collection and a window of at
 * most 24 hours; Poll_Fulfillment serves its later parts. Each part is at most `partSize`
 * Indicators, read from the domain feed page by page and written out as it is read, so
 * memory holds one page however large the result. Where each part starts is kept in the
 * database (domain/listing/feed-results.ts), so any node can serve any part.
 */
import { feedOwners } from '../../domain/access/owner-scope.js'
import type { Store } from '../../store/connect.js'
import type { Caller } from '../../domain/context.js'
import { countFeed, type FeedPage, type FeedPosition, readFeed } from '../../domain/listing/feed.js'
import {
  createFeedResult,
  type FeedResultPart,
  findFeedResultPart,
  recordNextPart,
} from '../../domain/listing/feed-results.js'
import type { Membership } from '../../domain/permissions.js'
import { CONTENT_BINDING_STIX_111, MAX_WINDOW_MS } from './constants.js'
import { Taxii11Error, badMessage } from './errors.js'
import {
  POLL_RESPONSE_TAIL,
  type PollFulfillment,
  type PollRequest,
  renderContentBlock,
  renderPollResponseHead,
} from './messages.js'
import { renderPackage } from '../../formats/stix1/stix.js'

export interface PollOptions {
  /** Indicators per result part (one Poll_Response or Poll_Fulfillment answer); a multiple of blockSize. */
  partSize: number
  /** Indicators per Content_Block (one STIX_Package each). */
  blockSize: number
}

export const DEFAULT_POLL_OPTIONS: PollOptions = { partSize: 10_000, blockSize: 100 }

/** Rounds the part size to whole blocks, so every part but the last is full blocks and Record_Count is exact. */
export function pollOptions(given: Partial<PollOptions> = {}): PollOptions {
  const blockSize = Math.max(1, Math.floor(given.blockSize ?? DEFAULT_POLL_OPTIONS.blockSize))
  const partSize = Math.max(1, Math.round((given.partSize ?? DEFAULT_POLL_OPTIONS.partSize) / blockSize)) * blockSize
  return { blockSize, partSize }
}

export interface PollCall {
  store: Store
  caller: Caller
  publicUrl: string
  now: string
  options: PollOptions
}

function collectionOf(caller: Caller, name: string): Membership {
  const owner = feedOwners(caller).find((m) => m.ownerName === name)
  if (!owner)
    throw new Taxii11Error('NOT_FOUND', `No collection named '${name}' is available to this account`, { ITEM: [name] })
  return owner
}

/** The window the request asks for, checked against the 24-hour limit; the end defaults to now and is never later than now. */
export function pollWindow(req: Pick<PollRequest, 'begin' | 'end'>, now: string): { since: string; until: string } {
  if (!req.begin) throw badMessage('Exclusive_Begin_Timestamp is required: a poll covers at most 24 hours')
  const end = req.end ?? now
  const width = Date.parse(end) - Date.parse(req.begin)
  if (width < 0) throw badMessage(`Inclusive_End_Timestamp (${end}) is before Exclusive_Begin_Timestamp (${req.begin})`)
  if (width > MAX_WINDOW_MS) {
    throw badMessage(
      `The poll window is ${(width / 3_600_000).toFixed(2)} hours wide; at most 24 hours may lie between Exclusive_Begin_Timestamp and Inclusive_End_Timestamp`,
    )
  }
  const until = end > now ? now : end
  return { since: req.begin, until: until < req.begin ? req.begin : until }
}

export interface PollAnswer {
  /** The response, in pieces written as they are produced. */
  body: AsyncIterable<string>
}

export async function answerPollRequest(call: PollCall, req: PollRequest): Promise<PollAnswer> {
  if (req.subscriptionId !== undefined) {
    throw new Taxii11Error('NOT_FOUND', 'This server offers no subscriptions: poll with Poll_Parameters', {
      ITEM: [req.subscriptionId],
    })
  }
  if (req.hasQuery)
    throw new Taxii11Error('UNSUPPORTED_QUERY', 'Queries are not supported: poll the whole collection for a window')
  if (req.hasDeliveryParameters)
    throw new Taxii11Error('DENIED', 'Results are not pushed: poll without Delivery_Parameters')
  if (req.contentBindings.length && !req.contentBindings.includes(CONTENT_BINDING_STIX_111)) {
    throw new Taxii11Error('UNSUPPORTED_CONTENT', `This collection holds ${CONTENT_BINDING_STIX_111} only`, {
      SUPPORTED_CONTENT: [CONTENT_BINDING_STIX_111],
    })
  }
  const owner = collectionOf(call.caller, req.collectionName)
  const { since, until } = pollWindow(req, call.now)
  const indicators = await countFeed(call.store, call.caller, { ownerId: owner.ownerId, since, until })
  // A record is a Content_Block (TAXII 1.1 counts what it delivers, not what a block holds).
  const recordCount = Math.ceil(indicators / call.options.blockSize)
  const head = {
    inResponseTo: req.messageId,
    collectionName: owner.ownerName,
    begin: since,
    end: until,
    recordCount,
    partNumber: 1,
  }
  if (req.responseType === 'COUNT_ONLY')
    return { body: once(renderPollResponseHead({ ...head, more: false }) + POLL_RESPONSE_TAIL) }
  const more = indicators > call.options.partSize
  const part: FeedResultPart = more
    ? await createFeedResult(call.store, call.caller, { ownerId: owner.ownerId, since, until, recordCount }, call.now)
    : { resultId: '', partNumber: 1, ownerId: owner.ownerId, since, until, recordCount }
  return {
    body: streamPart(
      call,
      part,
      owner,
      renderPollResponseHead({ ...head, more, resultId: more ? part.resultId : undefined }),
    ),
  }
}

export async function answerPollFulfillment(call: PollCall, req: PollFulfillment): Promise<PollAnswer> {
  const owner = collectionOf(call.caller, req.collectionName)
  const part = await findFeedResultPart(call.store, call.caller, req.resultId, req.partNumber, call.now)
  if (!part || part.ownerId !== owner.ownerId) {
    const first = await findFeedResultPart(call.store, call.caller, req.resultId, 1, call.now)
    if (first && first.ownerId === owner.ownerId) {
      throw new Taxii11Error(
        'INVALID_RESPONSE_PART',
        `Part ${req.partNumber} of result ${req.resultId} is not available: request the parts in order`,
      )
    }
    throw new Taxii11Error(
      'NOT_FOUND',
      `No result '${req.resultId}' of collection '${req.collectionName}' (results are kept for 24 hours)`,
      { ITEM: [req.resultId] },
    )
  }
  const left = await countFeed(call.store, call.caller, {
    ownerId: owner.ownerId,
    after: part.after,
    since: part.since,
    until: part.until,
    cap: call.options.partSize + 1,
  })
  const head = renderPollResponseHead({
    inResponseTo: req.messageId,
    collectionName: owner.ownerName,
    more: left > call.options.partSize,
    resultId: part.resultId,
    partNumber: part.partNumber,
    begin: part.since,
    end: part.until,
    recordCount: part.recordCount,
  })
  return { body: streamPart(call, part, owner, head) }
}

async function* once(text: string): AsyncIterable<string> {
  yield text
}

/** Reads are this many blocks at a time: large enough to amortise a query, small enough to keep memory flat. */
const BLOCKS_PER_READ = 10

async function* streamPart(
  call: PollCall,
  part: FeedResultPart,
  owner: Membership,
  head: string,
): AsyncIterable<string> {
  yield head
  const { partSize, blockSize } = call.options
  const read = (after: FeedPosition | undefined, served: number) => {
    const page = readFeed(call.store, call.caller, {
      ownerId: owner.ownerId,
      after,
      since: part.since,
      until: part.until,
      limit: Math.min(blockSize * BLOCKS_PER_READ, partSize - served),
    })
    // A read started ahead may be abandoned (the client went away); its failure must not go unhandled.
    page.catch(() => {})
    return page
  }
  let after: FeedPosition | undefined = part.after
  let served = 0
  let next: Promise<FeedPage> | undefined = read(after, served)
  while (next) {
    const page: FeedPage = await next
    if (!page.indicators.length) break
    served += page.indicators.length
    after = page.last
    // The next page is read while this one is written: the database and the socket work at once.
    next = page.more && served < partSize ? read(after, served) : undefined
    // One block per write: a block (~100 KB) stays in V8's young generation, where a page-sized
    // string would be allocated among long-lived objects and linger until a full collection.
    for (let i = 0; i < page.indicators.length; i += blockSize) {
      const block = page.indicators.slice(i, i + blockSize)
      yield renderContentBlock(
        renderPackage(call.publicUrl, owner.ownerName, block),
        block[block.length - 1].lastModified,
      )
    }
  }
  // Written before the response ends, so the next part is known by the time a client can ask for it.
  if (part.resultId) await recordNextPart(call.store, call.caller, part, after, call.now)
  yield POLL_RESPONSE_TAIL
}
