/**
 * What only File Indicators have: occurrences (where the file was seen) and File actions
 * (the behaviour graph: a File drops, archives, contacts … other Indicators).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../store/database.js'
import * as repo from '../../store/repositories/indicator-activity.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { invalid, notFound } from '../../core/errors.js'
import { type IndicatorQuery, indicatorItem, listIndicators } from './indicators.js'
import { parseApiTime } from '../../core/time.js'
import { MAX_TEXT_LENGTH } from './input.js'
import type { IndicatorRecord } from './record.js'

export interface FileOccurrenceView {
  id: number
  fileName: string | null
  path: string | null
  date: string | null
}

function requireFile(record: IndicatorRecord, what: string): void {
  if (record.type !== 'File') throw notFound(`${what} exist only on File Indicators`)
}

function toView(row: repo.FileOccurrenceRow): FileOccurrenceView {
  return { id: row.id, fileName: row.file_name, path: row.path, date: row.date }
}

function readOccurrence(input: { fileName?: unknown; path?: unknown; date?: unknown }) {
  const text = (value: unknown, field: string): string | null | undefined => {
    if (value === undefined) return undefined
    if (value === null) return null
    if (typeof value !== 'string') throw invalid(`${field} must be text`)
    if (value.length > MAX_TEXT_LENGTH) throw invalid(`${field} is longer than ${MAX_TEXT_LENGTH} characters`)
    return value
  }
  let date: string | null | undefined
  if (input.date === null || input.date === '') date = null
  else if (input.date !== undefined) {
    date = parseApiTime(input.date)
    if (!date) throw invalid(`date must be an ISO 8601 date or time, not '${String(input.date)}'`)
  }
  const changes = { file_name: text(input.fileName, 'fileName'), path: text(input.path, 'path'), date }
  if (changes.file_name === undefined && changes.path === undefined && changes.date === undefined) {
    throw invalid('A File occurrence needs at least one of fileName, path or date')
  }
  return changes
}

export async function listFileOccurrences(ctx: RequestContext, record: IndicatorRecord): Promise<FileOccurrenceView[]> {
  indicatorItem(ctx, record)
  requireFile(record, 'File occurrences')
  return (await repo.listFileOccurrenceRows(ctx.store.db, record.id)).map(toView)
}

export async function getFileOccurrence(
  ctx: RequestContext,
  record: IndicatorRecord,
  id: number,
): Promise<FileOccurrenceView> {
  indicatorItem(ctx, record)
  requireFile(record, 'File occurrences')
  const row = await repo.findFileOccurrenceRow(ctx.store.db, record.id, id)
  if (!row) throw notFound(`File occurrence ${id} not found on this File`)
  return toView(row)
}

/** Records where the File was seen (permission: update in the File's owner). */
export async function addFileOccurrence(
  ctx: RequestContext,
  record: IndicatorRecord,
  input: { fileName?: unknown; path?: unknown; date?: unknown },
) {
  await requirePermission(ctx, 'update', indicatorItem(ctx, record).membership)
  requireFile(record, 'File occurrences')
  const changes = readOccurrence(input)
  const id = await repo.insertFileOccurrence(ctx.store.db, {
    indicator_id: record.id,
    file_name: changes.file_name ?? null,
    path: changes.path ?? null,
    date: changes.date ?? null,
  })
  return getFileOccurrence(ctx, record, id)
}

export async function updateFileOccurrence(
  ctx: RequestContext,
  record: IndicatorRecord,
  id: number,
  input: { fileName?: unknown; path?: unknown; date?: unknown },
) {
  await requirePermission(ctx, 'update', indicatorItem(ctx, record).membership)
  await getFileOccurrence(ctx, record, id)
  const changes = readOccurrence(input)
  await repo.updateFileOccurrence(
    ctx.store.db,
    id,
    Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)),
  )
  return getFileOccurrence(ctx, record, id)
}

export async function deleteFileOccurrence(ctx: RequestContext, record: IndicatorRecord, id: number): Promise<void> {
  await requirePermission(ctx, 'update', indicatorItem(ctx, record).membership)
  await getFileOccurrence(ctx, record, id)
  await repo.deleteFileOccurrence(ctx.store.db, id)
}

async function requireFileAction(db: Kysely<Database>, action: string) {
  const type = await repo.findFileActionType(db, action)
  if (!type) throw notFound(`Unknown File action '${action}'`)
  return type
}

function checkTarget(type: { api_branch: string; to_type: string }, target: IndicatorRecord) {
  const allowed = type.to_type.split(',').map((t) => t.trim())
  if (!allowed.includes(target.type)) {
    throw invalid(
      `The File action ${type.api_branch} relates a File to ${allowed.join(', ')} Indicators, not to ${target.type}`,
    )
  }
}

/** Indicators related to the File by an action (archive, drop, traffic, mutex, registryKey, userAgent, dnsQuery). */
export async function listFileActionTargets(
  ctx: RequestContext,
  file: IndicatorRecord,
  action: string,
  query: Omit<IndicatorQuery, 'fileAction'>,
) {
  indicatorItem(ctx, file)
  requireFile(file, 'File actions')
  const type = await requireFileAction(ctx.store.db, action)
  return listIndicators(ctx, { ...query, fileAction: { fileId: file.id, action: type.api_branch } })
}

/** Relates a target Indicator to the File by an action (permission: associate in the File's owner). */
export async function addFileAction(
  ctx: RequestContext,
  file: IndicatorRecord,
  action: string,
  target: IndicatorRecord,
): Promise<void> {
  await requirePermission(ctx, 'associate', indicatorItem(ctx, file).membership)
  indicatorItem(ctx, target)
  requireFile(file, 'File actions')
  const type = await requireFileAction(ctx.store.db, action)
  checkTarget(type, target)
  await repo.insertFileAction(ctx.store.db, file.id, type.api_branch, target.id, ctx.now)
}

export async function removeFileAction(
  ctx: RequestContext,
  file: IndicatorRecord,
  action: string,
  target: IndicatorRecord,
): Promise<void> {
  await requirePermission(ctx, 'associate', indicatorItem(ctx, file).membership)
  requireFile(file, 'File actions')
  const type = await requireFileAction(ctx.store.db, action)
  if (!(await repo.deleteFileAction(ctx.store.db, file.id, type.api_branch, target.id))) {
    throw notFound(`${target.type} '${target.summary}' is not related to this File by ${type.api_branch}`)
  }
}
