/**
 * Cases (case management). Readable by any member of their owner; written only with the
 * `caseWrite` permission (Organization Administrator, per the platform's API docs). A Case
 * lives in an Organization. Creating one may nest tags, attributes, associations and new
 * artifacts and notes, all in one transaction.
 */
import {
  CASE_RESOLUTIONS,
  CASE_SEVERITIES,
  CASE_STATUSES,
  DEFAULT_CASE_RESOLUTION,
} from '../../model/case-management.js'
import * as repo from '../../store/repositories/case.repository.js'
import { createArtifactIn } from './artifacts.js'
import { type RequestContext, requirePermission } from '../context.js'
import { membershipFor } from '../access/owner-scope.js'
import { invalid, notFound } from '../../core/errors.js'
import { optionalText, oneOf, optionalTime, requiredText } from '../../core/input.js'
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
import { type UserRef, loadUsers, parseAssignee } from '../access/user-refs.js'

export const CASE_SOURCE: ListSource = { objectType: 'cases', table: 'intel_case', owner: 'owned' }

export const CASE_MEMBERS: readonly MemberName[] = [
  'tags',
  'securityLabels',
  'attributes',
  'associatedArtifacts',
  'associatedCases',
  'associatedGroups',
  'associatedIndicators',
  'artifacts',
  'notes',
]

export interface CaseRecord {
  id: number
  xid: string | null
  name: string
  description: string | null
  severity: string
  status: string
  resolution: string | null
  caseOpenTime: string | null
  caseCloseTime: string | null
  caseOccurrenceTime: string | null
  caseDetectionTime: string | null
  createdBy: UserRef | null
  assignee: UserRef | null
  ownerId: number
  ownerName: string
  dateAdded: string
  lastUpdated: string
}

/** Cases by id, in that order, leaving out any the caller cannot read. */
export async function loadCases(ctx: RequestContext, ids: readonly number[]): Promise<CaseRecord[]> {
  const rows = (await repo.findCasesByIds(ctx.store, ids)).filter((r) => membershipFor(ctx, r.owner_id))
  const users = await loadUsers(
    ctx.store,
    rows.flatMap((r) => [r.created_by, r.assignee_user_id]),
  )
  return inIdOrder(
    ids,
    rows.map((r) => ({
      id: r.id,
      xid: r.xid,
      name: r.name,
      description: r.description,
      severity: r.severity,
      status: r.status,
      resolution: r.resolution,
      caseOpenTime: r.case_open_time,
      caseCloseTime: r.case_close_time,
      caseOccurrenceTime: r.case_occurrence_time,
      caseDetectionTime: r.case_detection_time,
      createdBy: (r.created_by && users.get(r.created_by)) || null,
      assignee: (r.assignee_user_id && users.get(r.assignee_user_id)) || null,
      ownerId: r.owner_id,
      ownerName: r.owner_name,
      dateAdded: r.date_added,
      lastUpdated: r.last_updated,
    })),
  )
}

export async function listCases(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, CASE_SOURCE, query)
  return { ...page, items: await loadCases(ctx, page.ids) }
}

export async function getCase(ctx: RequestContext, id: number): Promise<CaseRecord> {
  const [record] = await loadCases(ctx, [id])
  if (!record) throw notFound(`Case ${id} not found`)
  return record
}

interface CaseChanges {
  name?: string
  description?: string | null
  severity?: string
  status?: string
  resolution?: string
  xid?: string | null
  case_open_time?: string | null
  case_close_time?: string | null
  case_occurrence_time?: string | null
  case_detection_time?: string | null
  assignee_user_id?: number | null
}

async function readCaseFields(
  ctx: RequestContext,
  body: Record<string, unknown>,
  creating: boolean,
): Promise<CaseChanges> {
  const changes: CaseChanges = {
    name: requiredText(body, 'name', creating, { max: 255 }),
    description: optionalText(body, 'description', { max: 65_500 }),
    severity: oneOf(body, 'severity', CASE_SEVERITIES, creating),
    status: oneOf(body, 'status', CASE_STATUSES, creating),
    resolution: oneOf(body, 'resolution', CASE_RESOLUTIONS, false),
    case_open_time: optionalTime(body, 'caseOpenTime'),
    case_close_time: optionalTime(body, 'caseCloseTime'),
    case_occurrence_time: optionalTime(body, 'caseOccurrenceTime'),
    case_detection_time: optionalTime(body, 'caseDetectionTime'),
    assignee_user_id: await parseAssignee(ctx, body.assignee),
  }
  if (creating) changes.xid = optionalText(body, 'xid', { max: 100 })
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as CaseChanges
}

async function applyCaseMembers(ctx: RequestContext, item: ItemInfo, members: NestedMember[]) {
  await applyMembers(ctx, item, members, {
    action: 'caseWrite',
    // Case-management objects take their tag list whole (the platform's behaviour, which tcex relies on).
    defaultModes: { tags: 'replace' },
    children: {
      artifacts: (c, parent, body) => createArtifactIn(c, { ...body, caseId: parent.id }),
      notes: (c, parent, body) => createNoteIn(c, { ...body, caseId: parent.id }),
    },
  })
}

/** Creates a Case inside an open transaction (also the nested-write creator for `associatedCases`). */
export async function createCaseIn(ctx: RequestContext, body: Record<string, unknown>): Promise<ItemInfo> {
  await requirePermission(ctx, 'caseWrite')
  if (ctx.owner.type !== 'Organization')
    throw invalid(`Cases belong to Organizations; ${ctx.owner.name} is a ${ctx.owner.type}`)
  const { fields, members } = takeMembers(body, CASE_MEMBERS)
  const values = await readCaseFields(ctx, fields, true)
  if (values.xid && (await repo.findCaseByXid(ctx.store.db, values.xid)))
    throw invalid(`A case with xid '${values.xid}' already exists`)
  const id = await repo.insertCase(ctx.store.db, {
    owner_id: ctx.owner.id,
    xid: values.xid ?? null,
    name: values.name!,
    description: values.description ?? null,
    severity: values.severity!,
    status: values.status!,
    resolution: values.resolution ?? DEFAULT_CASE_RESOLUTION,
    case_open_time: values.case_open_time ?? ctx.now,
    case_close_time: values.case_close_time ?? (values.status === 'Closed' ? ctx.now : null),
    case_occurrence_time: values.case_occurrence_time ?? null,
    case_detection_time: values.case_detection_time ?? null,
    created_by: ctx.caller.account.id,
    assignee_user_id: values.assignee_user_id ?? null,
    date_added: ctx.now,
    last_updated: ctx.now,
  })
  const item: ItemInfo = {
    kind: 'case',
    id,
    ownerId: ctx.owner.id,
    ownerName: ctx.owner.name,
    membership: ctx.membership,
  }
  await applyCaseMembers(ctx, item, members)
  return item
}

/** @example const created = await createCase(ctx, { name: 'Phishing', severity: 'Low', status: 'Open', tags: { data: [{ name: 'x' }] } }) */
export async function createCase(ctx: RequestContext, body: unknown): Promise<CaseRecord> {
  const item = await withTransaction(ctx, (tctx) => createCaseIn(tctx, body as Record<string, unknown>))
  return getCase(ctx, item.id)
}

export async function updateCase(ctx: RequestContext, id: number, body: unknown): Promise<CaseRecord> {
  await withTransaction(ctx, async (tctx) => {
    const item = await requireWritableItem(tctx, 'case', id, 'caseWrite')
    const { fields, members } = takeMembers(body, CASE_MEMBERS)
    const changes = await readCaseFields(tctx, fields, false)
    if (changes.status === 'Closed' && changes.case_close_time === undefined) changes.case_close_time = tctx.now
    await repo.updateCase(tctx.store.db, id, { ...changes, last_updated: tctx.now })
    await applyCaseMembers(tctx, item, members)
  })
  return getCase(ctx, id)
}

/** Deletes cases with their artifacts, tasks and notes and everything attached to them. Call inside a transaction. */
async function removeCases(ctx: RequestContext, ids: readonly number[]) {
  const db = ctx.store.db
  const children = await repo.listCaseChildren(db, ids)
  await deleteItemMetadata(db, 'artifact', children.artifactIds)
  await deleteItemMetadata(db, 'task', children.taskIds)
  await deleteItemMetadata(db, 'case', ids)
  await repo.deleteCases(db, ids)
}

export async function deleteCase(ctx: RequestContext, id: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    await requireWritableItem(tctx, 'case', id, 'caseWrite')
    await removeCases(tctx, [id])
  })
}

/** Bulk delete: every case matching the TQL that the caller may delete, in one transaction. */
export async function deleteCasesMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, CASE_SOURCE, tql, scope)
    for (const id of ids) await requireWritableItem(tctx, 'case', id, 'caseWrite')
    await removeCases(tctx, ids)
    return ids.length
  })
}
