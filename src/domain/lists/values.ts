/**
 * A list's values as its reader may see them: the active Indicators its TQL matches, in the
 * owners the reader may read (narrowed by the list's owners) and of the list's types (narrowed by
 * the request's), read in keyset pages by id and handed on page by page, so memory stays bounded
 * whatever the list's size.
 *
 * Text is one value per line, the format firewalls' external lists read: an Indicator's summary,
 * and for a File one line per hash it has (MD5, SHA-1, SHA-256; FortiGate's malware hash feed and
 * similar lists take any of them). CSV has a header and one row per value likewise (type, value,
 * rating, confidence, lastModified, owner), fields quoted as RFC 4180 says where they need it.
 * A value holding a line break is left out of both: a line-based reader would take its halves for
 * two values, and no Indicator type's value has one legitimately.
 *
 * The ETag is computed before any Indicator is read: from the list's definition, the format and
 * types asked for, the reader's owners (ids and names), each owner's latest Indicator change
 * (`lastModified` moves on every change of an Indicator, its tags and labels, and on activation)
 * and its active Indicators by type from the tally (which moves on deletions and activation), and
 * the UTC date (the hour when the TQL counts from TODAY()). A change only to something the TQL
 * reads outside the Indicator (an attribute, an association) shows once one of these moves, or
 * the next day at the latest.
 */
import { createHash } from 'node:crypto'
import { invalid } from '../../core/errors.js'
import {
  LIST_ROW,
  type ListValueRow,
  selectListStamp,
  selectListValuePage,
} from '../../store/repositories/outbound-list.repository.js'
import { type CompiledTql, compileTql, withTqlTimeout } from '../../tql/index.js'
import { readableOwners } from '../access/owner-scope.js'
import type { RequestContext } from '../context.js'
import { requireList } from './lists.js'
import { type ListFormat, readIndicatorTypes } from './outbound-list.js'

/** Indicators per page: large enough that a page's round trip is small beside its rows. */
export const LIST_PAGE_ROWS = 10_000

export const LIST_CSV_HEADER = 'type,value,rating,confidence,lastModified,owner\n'

export interface ListValuesRequest {
  format: ListFormat
  /** Indicator types, comma-separated (`Address`, `addresses,host`), as `?type=` gives them. */
  type?: string
}

/** A list ready to be served: its ETag, known before any value is read. */
export interface ListValuesPlan {
  etag: string
  format: ListFormat
  ownerIds: number[]
  ownerNames: Map<number, string>
  types: string[] | null
  compiled: CompiledTql
}

/** Resolves a list for its reader and computes its ETag; reads no Indicator. */
export async function planListValues(
  ctx: RequestContext,
  name: string,
  request: ListValuesRequest,
): Promise<ListValuesPlan> {
  const asked = request.type === undefined ? undefined : readIndicatorTypes(request.type.split(','), 'type')
  if (asked !== undefined && asked.length === 0) throw invalid('type must name at least one Indicator type')
  const list = await requireList(ctx.store, name)
  const listTypes = list.types === null ? null : (JSON.parse(list.types) as string[])
  const types =
    asked === undefined ? listTypes : listTypes === null ? asked : asked.filter((t) => listTypes.includes(t))
  const listOwners = list.owner_ids === null ? null : new Set(JSON.parse(list.owner_ids) as number[])
  const owners = readableOwners(ctx.caller)
    .filter((m) => listOwners === null || listOwners.has(m.ownerId))
    .sort((a, b) => a.ownerId - b.ownerId)
  const ownerIds = owners.map((m) => m.ownerId)
  const compiled = compileTql('indicators', list.tql, {
    dialect: ctx.store.dialect,
    now: new Date(ctx.now),
    visibleOwnerIds: readableOwners(ctx.caller).map((m) => m.ownerId),
  })
  const stamp = types?.length === 0 ? [] : await selectListStamp(ctx.store.db, ownerIds)
  const clock = /TODAY\s*\(/i.test(list.tql) ? ctx.now.slice(0, 13) : ctx.now.slice(0, 10)
  const etag = createHash('sha256')
    .update(JSON.stringify([request.format, list.id, list.last_modified, list.tql, types, clock, ownerIds, stamp]))
    .digest('base64url')
    .slice(0, 32)
  return {
    etag: `"${etag}"`,
    format: request.format,
    ownerIds,
    // An owner's name is the CSV's last field: a line break in it would end the row early.
    ownerNames: new Map(owners.map((m) => [m.ownerId, m.ownerName.replace(/[\r\n]+/g, ' ')])),
    types,
    compiled,
  }
}

/** Whether an If-None-Match header names this ETag (weak comparison, as for GET). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  const bare = (tag: string) => tag.trim().replace(/^W\//, '')
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag))
}

async function timeLimit(ctx: RequestContext): Promise<number | null> {
  return ctx.caller.account.tqlTimeoutMs ?? (await ctx.services.settings.get('tqlTimeoutMs'))
}

/**
 * One page of rows after `afterId`. With a TQL filter each page runs under the reader's TQL time
 * limit; on PostgreSQL a filter that names no few rows also has sorting priced out for the page, so
 * the planner reads in id order and stops rather than sorting every match for each page.
 */
async function readPage(
  ctx: RequestContext,
  plan: ListValuesPlan,
  afterId: number,
  limitMs: number | null,
): Promise<ListValueRow[]> {
  const page = {
    ownerIds: plan.ownerIds,
    types: plan.types,
    afterId,
    limit: LIST_PAGE_ROWS,
    seekable: plan.compiled.seekable,
  }
  if (!plan.compiled.filters) return selectListValuePage(ctx.store, ctx.store.db, { ...page, where: [] })
  const settings: Record<string, string> = plan.compiled.seekable ? {} : { enable_sort: 'off' }
  return withTqlTimeout(
    ctx.store,
    limitMs,
    (scope) =>
      selectListValuePage(ctx.store, scope.db, {
        ...page,
        where: [scope.guard(plan.compiled.where, plan.compiled.table)],
      }),
    { settings },
  )
}

/**
 * The list's text, a page at a time. The first page is read before this returns, so a refusal
 * (a time limit passed) still becomes an error answer; a later one ends the stream with an error,
 * which aborts the response: a reader keeps its previous list rather than taking half of one.
 */
export async function openListValues(ctx: RequestContext, plan: ListValuesPlan): Promise<AsyncIterable<string>> {
  if (plan.ownerIds.length === 0 || plan.types?.length === 0) return once(plan.format === 'csv' ? LIST_CSV_HEADER : '')
  const limitMs = await timeLimit(ctx)
  const first = await readPage(ctx, plan, 0, limitMs)
  const write = plan.format === 'csv' ? csvLines : textLines
  return (async function* () {
    let rows = first
    let head = plan.format === 'csv' ? LIST_CSV_HEADER : ''
    for (;;) {
      const text = head + write(rows, plan.ownerNames)
      head = ''
      // The next page is asked for before this one is handed on, so on PostgreSQL the database reads it
      // while the response writes this one: two pages at most are held at a time.
      const next =
        rows.length < LIST_PAGE_ROWS
          ? undefined
          : readPage(ctx, plan, Number(rows[rows.length - 1]![LIST_ROW.id]), limitMs)
      // A reader that hangs up leaves the read unawaited; its failure is then nobody's to hear.
      next?.catch(() => {})
      if (text !== '') yield text
      if (!next) return
      rows = await next
    }
  })()
}

async function* once(text: string): AsyncGenerator<string> {
  if (text !== '') yield text
}

const LINE_BREAK = /[\r\n]/

/** The values a row stands for: a File's hashes, else its summary; none that would break a line. */
function valuesOf(row: ListValueRow): string[] {
  const values =
    row[LIST_ROW.type] === 'File'
      ? [row[LIST_ROW.value1], row[LIST_ROW.value2], row[LIST_ROW.value3]].filter(
          (v): v is string => v !== null && v !== '',
        )
      : [row[LIST_ROW.summary]]
  return values.some((v) => LINE_BREAK.test(v)) ? values.filter((v) => !LINE_BREAK.test(v)) : values
}

function textLines(rows: readonly ListValueRow[]): string {
  let text = ''
  for (const row of rows) {
    if (row[LIST_ROW.type] !== 'File' && !LINE_BREAK.test(row[LIST_ROW.summary])) {
      text += `${row[LIST_ROW.summary]}\n`
      continue
    }
    for (const value of valuesOf(row)) text += `${value}\n`
  }
  return text
}

const NEEDS_QUOTES = /[",]/

/** An RFC 4180 field: quoted, its quotes doubled, when it holds a comma or a quote (line breaks never reach here). */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

function csvLines(rows: readonly ListValueRow[], ownerNames: ReadonlyMap<number, string>): string {
  let text = ''
  for (const row of rows) {
    const rating = row[LIST_ROW.rating]
    const confidence = row[LIST_ROW.confidence]
    const tail = `,${rating === null ? '' : Number(rating)},${confidence === null ? '' : Number(confidence)},${row[LIST_ROW.lastModified]},${csvField(ownerNames.get(Number(row[LIST_ROW.ownerId])) ?? '')}\n`
    const type = csvField(row[LIST_ROW.type])
    for (const value of valuesOf(row)) text += `${type},${csvField(value)}${tail}`
  }
  return text
}
