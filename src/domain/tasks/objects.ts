/**
 * Tasks as v3 objects. v3 gives the assignee as `{type: "User", data: {userName}}` and may
 * put a Task in a Case (caseId); both are mapped onto domain/tasks/tasks.ts. Nested tags only:
 * the platform's other Task members (artifacts, notes) belong to case management.
 */
import type { RequestContext } from '../context.js'
import { invalid } from '../../core/errors.js'
import { findReadableItem, requireWritableItem } from '../items/items.js'
import { type Body, type MemberName, applyMembers, isBody, takeMembers } from '../items/nested-writes.js'
import {
  type ListSource,
  type ObjectListQuery,
  findMatchingIds,
  inIdOrder,
  listObjectIds,
} from '../listing/object-lists.js'
import {
  type TaskRecord,
  createTask,
  deleteTask,
  findReadableTasks,
  getTask,
  setTaskCase,
  updateTask,
} from './tasks.js'
import { withTransaction } from '../transaction.js'

export const TASK_SOURCE: ListSource = { objectType: 'tasks', table: 'task', owner: 'owned' }
export const TASK_MEMBERS: readonly MemberName[] = ['tags']

export async function loadTaskRecords(ctx: RequestContext, ids: readonly number[]): Promise<TaskRecord[]> {
  if (ids.length === 0) return []
  return inIdOrder(ids, await findReadableTasks(ctx, ids))
}

export async function listTaskObjects(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, TASK_SOURCE, query)
  return { ...page, items: await loadTaskRecords(ctx, page.ids) }
}

/** `{type: "User", data: {userName}}` (or a list of them) → the v2 form `[{userName}]`; `{type: "None"}` clears. */
function v2Users(value: unknown, field: string): unknown {
  if (value === undefined || value === null) return value
  const list = Array.isArray(value) ? value : isBody(value) && Array.isArray(value.data) ? value.data : [value]
  return list.flatMap((entry) => {
    if (!isBody(entry)) return [entry]
    if (typeof entry.type === 'string' && entry.type.toLowerCase() === 'none') return []
    if (entry.type !== undefined && entry.type !== 'User') throw invalid(`${field} type must be 'User' or 'None'`)
    return [isBody(entry.data) ? entry.data : entry]
  })
}

function v2TaskBody(fields: Body): Body {
  const body: Body = { ...fields }
  for (const field of ['assignee', 'escalatee']) if (field in body) body[field] = v2Users(body[field], field)
  return body
}

export async function createTaskObject(ctx: RequestContext, body: unknown): Promise<TaskRecord> {
  const id = await withTransaction(ctx, async (tctx) => {
    const { fields, members } = takeMembers(body, TASK_MEMBERS)
    const task = await createTask(tctx, v2TaskBody(fields))
    await setTaskCase(tctx, task.id, fields.caseId)
    await applyMembers(tctx, await findReadableItem(tctx, 'task', task.id), members, { action: 'create' })
    return task.id
  })
  return getTask(ctx, id)
}

export async function updateTaskObject(ctx: RequestContext, id: number, body: unknown): Promise<TaskRecord> {
  await withTransaction(ctx, async (tctx) => {
    const item = await requireWritableItem(tctx, 'task', id, 'update')
    const { fields, members } = takeMembers(body, TASK_MEMBERS)
    await updateTask(tctx, id, v2TaskBody(fields))
    await setTaskCase(tctx, id, fields.caseId)
    await applyMembers(tctx, item, members, { action: 'update' })
  })
  return getTask(ctx, id)
}

export async function deleteTaskObject(ctx: RequestContext, id: number): Promise<void> {
  await withTransaction(ctx, (tctx) => deleteTask(tctx, id))
}

export async function deleteTasksMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, TASK_SOURCE, tql, scope)
    for (const id of ids) await deleteTask(tctx, id)
    return ids.length
  })
}
