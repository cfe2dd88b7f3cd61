/**
 * Artifacts: pieces of evidence inside a Case (an email address, a host, a file). An
 * artifact lives in its case's owner; writing it needs `caseWrite` there. Its type is one of
 * the artifact types and cannot change after creation.
 */
import type { Kysely } from 'kysely'
import * as repo from '../../store/repositories/artifact.repository.js'
import { findCaseByXid } from '../../store/repositories/case.repository.js'
import type { Database } from '../../store/database.js'
import type { RequestContext } from '../context.js'
import { membershipFor } from '../access/owner-scope.js'
import { invalid, notFound } from '../../core/errors.js'
import { optionalText, requiredText, bodyId } from '../../core/input.js'
import { type ItemInfo, requireWritableItem } from '../items/items.js'
import { deleteItemMetadata } from '../metadata/item-metadata.js'
import { type MemberName, type NestedMember, applyMembers, takeMembers } from '../items/nested-writes.js'
import { createNoteIn } from './notes.js'
import {
  type ListSource,
  type ObjectListQuery,
  findMatchingIds,
  inIdOrder,
  listObjectIds,
} from '../listing/object-lists.js'
import { withTransaction } from '../transaction.js'

export const ARTIFACT_SOURCE: ListSource = { objectType: 'artifacts', table: 'artifact', owner: 'owned' }
export const ARTIFACT_TYPE_SOURCE: ListSource = { table: 'artifact_type', owner: 'none' }

export const ARTIFACT_MEMBERS: readonly MemberName[] = ['associatedGroups', 'associatedIndicators', 'notes']

export interface ArtifactRecord {
  id: number
  caseId: number
  caseXid: string | null
  taskId: number | null
  summary: string
  type: string
  intelType: string | null
  source: string | null
  fieldName: string | null
  analyticsScore: number | null
  ownerId: number
  ownerName: string
  dateAdded: string
  lastModified: string
}

export interface ArtifactTypeRecord {
  id: number
  name: string
  dataType: string
  intelType: string | null
  description: string | null
  active: boolean
}

export async function loadArtifacts(ctx: RequestContext, ids: readonly number[]): Promise<ArtifactRecord[]> {
  const rows = (await repo.findArtifactsByIds(ctx.store, ids)).filter((r) => membershipFor(ctx, r.owner_id))
  return inIdOrder(
    ids,
    rows.map((r) => ({
      id: r.id,
      caseId: r.case_id,
      caseXid: r.case_xid,
      taskId: r.task_id,
      summary: r.summary,
      type: r.type_name,
      intelType: r.intel_type,
      source: r.source,
      fieldName: r.field_name,
      analyticsScore: r.analytics_score,
      ownerId: r.owner_id,
      ownerName: r.owner_name,
      dateAdded: r.date_added,
      lastModified: r.last_modified,
    })),
  )
}

export async function listArtifacts(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, ARTIFACT_SOURCE, query)
  return { ...page, items: await loadArtifacts(ctx, page.ids) }
}

export async function getArtifact(ctx: RequestContext, id: number): Promise<ArtifactRecord> {
  const [record] = await loadArtifacts(ctx, [id])
  if (!record) throw notFound(`Artifact ${id} not found`)
  return record
}

async function requireArtifactType(db: Kysely<Database>, value: unknown) {
  if (typeof value !== 'string' || !value.trim())
    throw invalid('type is required (the name of an active artifact type)')
  const type = await repo.findArtifactTypeByName(db, value.trim())
  if (!type || !type.active) throw invalid(`Unknown artifact type '${value}' (not an active artifact type)`)
  return type
}

async function caseOf(ctx: RequestContext, body: Record<string, unknown>): Promise<ItemInfo> {
  let caseId = bodyId(body.caseId)
  if (caseId === undefined && typeof body.caseXid === 'string' && body.caseXid) {
    caseId = (await findCaseByXid(ctx.store.db, body.caseXid))?.id
    if (caseId === undefined) throw notFound(`Case with xid '${body.caseXid}' not found`)
  }
  if (caseId === undefined) throw invalid('caseId (or caseXid) is required')
  return requireWritableItem(ctx, 'case', caseId, 'caseWrite')
}

async function taskOf(
  ctx: RequestContext,
  body: Record<string, unknown>,
  caseId: number,
): Promise<number | null | undefined> {
  const taskId = bodyId(body.taskId)
  if (taskId === undefined) return undefined
  const task = await repo.findTaskCase(ctx.store.db, taskId)
  if (!task || task.case_id !== caseId) throw invalid(`Task ${taskId} is not a task of case ${caseId}`)
  return taskId
}

function artifactMembers(ctx: RequestContext, item: ItemInfo, members: NestedMember[]) {
  return applyMembers(ctx, item, members, {
    action: 'caseWrite',
    children: { notes: (c, parent, body) => createNoteIn(c, { ...body, artifactId: parent.id }) },
  })
}

/** Creates an artifact inside an open transaction (also the nested creator for `associatedArtifacts` and case `artifacts`). */
export async function createArtifactIn(ctx: RequestContext, body: Record<string, unknown>): Promise<ItemInfo> {
  const { fields, members } = takeMembers(body, ARTIFACT_MEMBERS)
  const parent = await caseOf(ctx, fields)
  const type = await requireArtifactType(ctx.store.db, fields.type)
  const summary = requiredText(fields, 'summary', true, { max: 65_500 })!
  const id = await repo.insertArtifact(ctx.store.db, {
    owner_id: parent.ownerId,
    case_id: parent.id,
    task_id: (await taskOf(ctx, fields, parent.id)) ?? null,
    type_id: type.id,
    summary,
    source: optionalText(fields, 'source', { max: 255 }) ?? null,
    field_name: optionalText(fields, 'fieldName', { max: 255 }) ?? null,
    analytics_score: null,
    date_added: ctx.now,
    last_modified: ctx.now,
  })
  const item: ItemInfo = {
    kind: 'artifact',
    id,
    ownerId: parent.ownerId,
    ownerName: parent.ownerName,
    membership: parent.membership,
    type: type.name,
  }
  await artifactMembers(ctx, item, members)
  return item
}

export async function createArtifact(ctx: RequestContext, body: unknown): Promise<ArtifactRecord> {
  const item = await withTransaction(ctx, (tctx) => createArtifactIn(tctx, body as Record<string, unknown>))
  return getArtifact(ctx, item.id)
}

/** Summary, source and field name may change; case and type may not. */
export async function updateArtifact(ctx: RequestContext, id: number, body: unknown): Promise<ArtifactRecord> {
  await withTransaction(ctx, async (tctx) => {
    const item = await requireWritableItem(tctx, 'artifact', id, 'caseWrite')
    const { fields, members } = takeMembers(body, ARTIFACT_MEMBERS)
    const current = (await repo.findArtifactsByIds(tctx.store, [id]))[0]!
    if (fields.type !== undefined && fields.type !== current.type_name)
      throw invalid("An artifact's type cannot change")
    const caseId = bodyId(fields.caseId)
    if (caseId !== undefined && caseId !== current.case_id) throw invalid('An artifact cannot move to another case')
    const summary = requiredText(fields, 'summary', false, { max: 65_500 })
    const source = optionalText(fields, 'source', { max: 255 })
    const fieldName = optionalText(fields, 'fieldName', { max: 255 })
    const taskId = await taskOf(tctx, fields, current.case_id)
    await repo.updateArtifact(tctx.store.db, id, {
      ...(summary !== undefined ? { summary } : {}),
      ...(source !== undefined ? { source } : {}),
      ...(fieldName !== undefined ? { field_name: fieldName } : {}),
      ...(taskId !== undefined ? { task_id: taskId } : {}),
      last_modified: tctx.now,
    })
    await artifactMembers(tctx, item, members)
  })
  return getArtifact(ctx, id)
}

async function removeArtifacts(ctx: RequestContext, ids: readonly number[]) {
  await deleteItemMetadata(ctx.store.db, 'artifact', ids)
  await repo.deleteArtifacts(ctx.store.db, ids)
}

export async function deleteArtifact(ctx: RequestContext, id: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    await requireWritableItem(tctx, 'artifact', id, 'caseWrite')
    await removeArtifacts(tctx, [id])
  })
}

export async function deleteArtifactsMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, ARTIFACT_SOURCE, tql, scope)
    for (const id of ids) await requireWritableItem(tctx, 'artifact', id, 'caseWrite')
    await removeArtifacts(tctx, ids)
    return ids.length
  })
}

export async function listArtifactTypes(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, ARTIFACT_TYPE_SOURCE, query)
  return { ...page, items: await loadArtifactTypes(ctx, page.ids) }
}

export async function loadArtifactTypes(ctx: RequestContext, ids: readonly number[]): Promise<ArtifactTypeRecord[]> {
  const rows = await repo.findArtifactTypesByIds(ctx.store, ids)
  return inIdOrder(
    ids,
    rows.map((r) => ({
      id: r.id,
      name: r.name,
      dataType: r.data_type,
      intelType: r.intel_type,
      description: r.description,
      active: !!r.active,
    })),
  )
}

export async function getArtifactType(ctx: RequestContext, id: number): Promise<ArtifactTypeRecord> {
  const [record] = await loadArtifactTypes(ctx, [id])
  if (!record) throw notFound(`Artifact type ${id} not found`)
  return record
}
