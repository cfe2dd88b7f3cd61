/**
 * Playbooks: installed from the platform's exported playbook file (.pbx, a JSON document
 * with name, description, type, jobList, playbookTriggerList…), kept whole, and summarised
 * in the columns the API searches on. New uploads to an existing Playbook are new major
 * versions. Bulwark stores and serves Playbooks; it does not run them.
 */
import { randomUUID } from 'node:crypto'
import { PLAYBOOK_STATUSES } from '../../model/group-types.js'
import * as repo from '../../store/repositories/playbook.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { membershipFor } from '../access/owner-scope.js'
import { invalid, notFound } from '../../core/errors.js'
import type { Membership } from '../permissions.js'

export type PlaybookStatus = (typeof PLAYBOOK_STATUSES)[number]
export const PLAYBOOK_NAME_MAX_LENGTH = 255

export interface PlaybookRecord {
  id: number
  xid: string | null
  name: string
  description: string | null
  triggerType: string | null
  status: PlaybookStatus
  labels: string[]
  /** `major.minor` */
  version: string
  ownerName: string
  dateAdded: string
  lastModified: string
}

function toRecord(row: repo.PlaybookRow): PlaybookRecord {
  return {
    id: row.id,
    xid: row.xid,
    name: row.name,
    description: row.description,
    triggerType: row.trigger_type,
    status: row.status as PlaybookStatus,
    labels: row.labels ? (JSON.parse(row.labels) as string[]) : [],
    version: `${row.version_major}.${row.version_minor}`,
    ownerName: row.owner_name,
    dateAdded: row.date_added,
    lastModified: row.last_modified,
  }
}

function status(value: unknown, field = 'status'): PlaybookStatus {
  const found =
    typeof value === 'string'
      ? PLAYBOOK_STATUSES.find((s) => s.toLowerCase() === value.trim().toLowerCase())
      : undefined
  if (!found) throw invalid(`${field} must be one of ${PLAYBOOK_STATUSES.join(', ')}, not '${String(value)}'`)
  return found
}

/** Labels as an array of names or of {name}, or one comma-separated string. */
function labels(value: unknown): string[] {
  if (value === undefined || value === null) return []
  const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined
  if (!list) throw invalid('labels must be an array of names')
  const names = list.map((l) => (typeof l === 'string' ? l : (l as { name?: unknown })?.name))
  if (names.some((n) => typeof n !== 'string')) throw invalid('labels must be an array of names')
  return [...new Set((names as string[]).map((n) => n.trim()).filter(Boolean))]
}

interface PlaybookFile {
  name: string
  description: string | null
  triggerType: string | null
  status?: PlaybookStatus
  labels: string[]
  xid?: string
  definition: string
}

/** Reads the summary out of a playbook file; the trigger type is the first trigger's `type`. */
export function readPlaybookFile(body: unknown): PlaybookFile {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalid('The body must be a playbook file (a JSON object)')
  const file = body as Record<string, unknown>
  if (typeof file.name !== 'string' || !file.name.trim()) throw invalid('The playbook file has no name')
  const name = file.name.trim()
  if (name.length > PLAYBOOK_NAME_MAX_LENGTH)
    throw invalid(`Playbook names are at most ${PLAYBOOK_NAME_MAX_LENGTH} characters`)
  if (file.description !== undefined && file.description !== null && typeof file.description !== 'string')
    throw invalid('description must be a string')
  const triggers = Array.isArray(file.playbookTriggerList)
    ? (file.playbookTriggerList as Record<string, unknown>[])
    : []
  const trigger =
    typeof file.triggerType === 'string' ? file.triggerType : triggers.find((t) => typeof t?.type === 'string')?.type
  const xid = typeof file.xid === 'string' && file.xid.trim() ? file.xid.trim().slice(0, 100) : undefined
  return {
    name,
    description: (file.description as string | undefined) || null,
    triggerType: (trigger as string | undefined) ?? null,
    status: file.status === undefined || file.status === null ? undefined : status(file.status),
    labels: labels(file.labels ?? file.playbookLabels),
    xid,
    definition: JSON.stringify(body),
  }
}

/**
 * POST /v2/playbooks: installs the file as version 1.0, Inactive unless the file says otherwise.
 * A file whose xid is already used in the owner is installed as a copy with a new xid.
 */
export async function installPlaybook(ctx: RequestContext, body: unknown): Promise<PlaybookRecord> {
  await requirePermission(ctx, 'managePlaybooks')
  const file = readPlaybookFile(body)
  const taken = file.xid ? await repo.findPlaybookByXid(ctx.store.db, ctx.owner.id, file.xid) : undefined
  const id = await repo.insertPlaybook(ctx.store.db, {
    owner_id: ctx.owner.id,
    xid: file.xid && !taken ? file.xid : randomUUID(),
    name: file.name,
    description: file.description,
    trigger_type: file.triggerType,
    status: file.status ?? 'Inactive',
    labels: JSON.stringify(file.labels),
    version_major: 1,
    version_minor: 0,
    definition: file.definition,
    date_added: ctx.now,
    last_modified: ctx.now,
  })
  return getPlaybook(ctx, String(id))
}

async function findPlaybook(
  ctx: RequestContext,
  idOrXid: string,
): Promise<{ row: repo.PlaybookRow; membership: Membership }> {
  const row = /^\d{1,15}$/.test(idOrXid)
    ? await repo.findPlaybookById(ctx.store.db, Number(idOrXid))
    : await repo.findPlaybookByXid(ctx.store.db, ctx.owner.id, idOrXid)
  const membership = row && membershipFor(ctx, row.owner_id)
  if (!row || !membership) throw notFound(`Playbook ${idOrXid} not found`)
  return { row, membership }
}

async function findWritablePlaybook(ctx: RequestContext, idOrXid: string) {
  const found = await findPlaybook(ctx, idOrXid)
  await requirePermission(ctx, 'managePlaybooks', found.membership)
  return found.row
}

/** One Playbook by id (in any owner the caller reads) or by xid (in the call's owner). */
export async function getPlaybook(ctx: RequestContext, idOrXid: string): Promise<PlaybookRecord> {
  return toRecord((await findPlaybook(ctx, idOrXid)).row)
}

/** The playbook file as uploaded (latest version). */
export async function exportPlaybook(ctx: RequestContext, idOrXid: string): Promise<unknown> {
  const { row } = await findPlaybook(ctx, idOrXid)
  return JSON.parse((await repo.findDefinition(ctx.store.db, row.id)) ?? '{}')
}

/** POST /v2/playbooks/{id}: the file becomes the next major version; the status stays unless the file sets one. */
export async function uploadPlaybookVersion(
  ctx: RequestContext,
  idOrXid: string,
  body: unknown,
): Promise<PlaybookRecord> {
  const row = await findWritablePlaybook(ctx, idOrXid)
  const file = readPlaybookFile(body)
  await repo.updatePlaybook(ctx.store.db, row.id, {
    name: file.name,
    description: file.description,
    trigger_type: file.triggerType,
    labels: JSON.stringify(file.labels),
    ...(file.status ? { status: file.status } : {}),
    version_major: row.version_major + 1,
    version_minor: 0,
    definition: file.definition,
    last_modified: ctx.now,
  })
  return getPlaybook(ctx, String(row.id))
}

export async function setPlaybookStatus(
  ctx: RequestContext,
  idOrXid: string,
  next: 'Active' | 'Inactive',
): Promise<PlaybookRecord> {
  const row = await findWritablePlaybook(ctx, idOrXid)
  if (row.status !== next) await repo.updatePlaybook(ctx.store.db, row.id, { status: next, last_modified: ctx.now })
  return getPlaybook(ctx, String(row.id))
}

export async function deletePlaybook(ctx: RequestContext, idOrXid: string): Promise<void> {
  const row = await findWritablePlaybook(ctx, idOrXid)
  await repo.deletePlaybook(ctx.store.db, row.id)
}

export interface PlaybookQuery {
  name?: string
  triggerType?: string
  status?: string
  sortOn?: string
  sortAscending?: boolean
  /** Comma-separated; a Playbook must carry every one (case-insensitive). */
  labels?: string
}

/**
 * The call owner's Playbooks matching every given criterion, sorted, then paged.
 * @example await searchPlaybooks(ctx, { status: 'Active', labels: 'phishing,triage', sortOn: 'name' }, { offset: 0, limit: 100 })
 */
export async function searchPlaybooks(
  ctx: RequestContext,
  query: PlaybookQuery,
  page: { offset: number; limit: number },
) {
  const sortOn = query.sortOn === undefined || query.sortOn === '' ? 'id' : query.sortOn
  if (sortOn !== 'id' && sortOn !== 'name' && sortOn !== 'triggerType')
    throw invalid(`sortOn must be name or triggerType, not '${sortOn}'`)
  const rows = await repo.searchPlaybooks(ctx.store.db, ctx.owner.id, {
    name: query.name || undefined,
    triggerType: query.triggerType || undefined,
    status: query.status ? status(query.status) : undefined,
    sortOn,
    ascending: query.sortAscending ?? true,
  })
  const wanted = labels(query.labels).map((l) => l.toLowerCase())
  const matching = rows.map(toRecord).filter((p) => wanted.every((w) => p.labels.some((l) => l.toLowerCase() === w)))
  return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length }
}
