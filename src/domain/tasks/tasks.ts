/**
 * Tasks: assignments with a status, dates and the users they are assigned or escalated to.
 * Assignees and escalatees must be accounts with a membership in the Task's owner. A Task is
 * overdue when its due date has passed and it is not Completed.
 */
import type { Kysely, Updateable } from 'kysely'
import { TASK, TASK_STATUSES } from '../../model/task.js'
import type { FieldDeclaration } from '../../model/field.js'
import type { ItemKind } from '../../model/kinds.js'
import type { Database, TaskTable } from '../../store/database.js'
import {
  type TaskCondition,
  type TaskRow,
  type TaskUserRole,
  type TaskUserRow,
  addTaskUser,
  clearTaskUsers,
  deleteTaskRow,
  findOwnerMember,
  findTaskRow,
  findTaskRowsByIds,
  insertTask,
  listTaskRows,
  listTaskUserRows,
  removeTaskUser,
  updateTaskRow,
} from '../../store/repositories/task.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { type OwnerScope, keepReadableRows, ownerIdsToRead } from '../access/owner-scope.js'
import { invalid, notFound } from '../../core/errors.js'
import { requireBodyObject } from '../groups/input.js'
import { type ItemInfo, findReadableItem, requireWritableItem } from '../items/items.js'
import { type FieldFilter, parseFilterValue, toConditions } from '../listing/list-filters.js'
import { deleteItemMetadata } from '../metadata/item-metadata.js'
import { parseApiTime } from '../../core/time.js'
import { withTransactionDb } from '../transaction.js'
import { bodyId, readBoolean } from '../../core/input.js'

export interface TaskUser {
  id: number
  userName: string
  firstName: string | null
  lastName: string | null
  pseudonym: string | null
}

export interface TaskRecord {
  id: number
  name: string
  description: string | null
  status: string
  xid: string | null
  caseId: number | null
  dueDate: string | null
  reminderDate: string | null
  escalationDate: string | null
  completedDate: string | null
  escalated: boolean
  reminded: boolean
  overdue: boolean
  ownerId: number
  ownerName: string
  ownerType: string
  dateAdded: string
  lastModified: string
  assignees: TaskUser[]
  escalatees: TaskUser[]
}

export interface TaskQuery {
  filters?: readonly FieldFilter[]
  orParams?: boolean
  associatedWith?: { kind: ItemKind; id: number; via?: 'group' }
  ids?: readonly number[]
  /** Whose rows: the call's owner, or every readable owner (the default depends on the list; see ownerIdsToRead). */
  ownerScope?: OwnerScope
  resultStart?: number
  resultLimit?: number
}

/** The dates a body sets, by body name and column (model/task.ts). */
const DATE_FIELDS = Object.fromEntries(
  TASK.fields
    .filter((f: FieldDeclaration) => f.type === 'date' && f.column && (f.write ?? 'always') === 'always')
    .map((f: FieldDeclaration) => [f.name, f.column as 'due_date' | 'reminder_date' | 'escalation_date']),
)
const USER_FIELDS = { assignee: 'assignee', escalatee: 'escalatee' } as const

function toUser(row: TaskUserRow): TaskUser {
  return {
    id: row.user_id,
    userName: row.user_name,
    firstName: row.first_name,
    lastName: row.last_name,
    pseudonym: row.pseudonym,
  }
}

function toRecord(row: TaskRow, users: TaskUserRow[], now: string): TaskRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    xid: row.xid,
    caseId: row.case_id,
    dueDate: row.due_date,
    reminderDate: row.reminder_date,
    escalationDate: row.escalation_date,
    completedDate: row.completed_date,
    escalated: !!row.escalated,
    reminded: !!row.reminded,
    overdue: !!row.due_date && row.due_date < now && row.status !== 'Completed',
    ownerId: row.owner_id,
    ownerName: row.owner_name,
    ownerType: row.owner_type,
    dateAdded: row.date_added,
    lastModified: row.last_modified,
    assignees: users.filter((u) => u.task_id === row.id && u.role === 'assignee').map(toUser),
    escalatees: users.filter((u) => u.task_id === row.id && u.role === 'escalatee').map(toUser),
  }
}

function readStatus(value: unknown): string {
  const match =
    typeof value === 'string' ? TASK_STATUSES.find((s) => s.toLowerCase() === value.trim().toLowerCase()) : undefined
  if (!match) throw invalid(`status '${String(value)}' is not a Task status; use one of: ${TASK_STATUSES.join(', ')}`)
  return match
}

function readFlag(name: string, value: unknown): number {
  const read = readBoolean(value)
  if (read === undefined) throw invalid(`${name} must be true or false, not '${String(value)}'`)
  return read ? 1 : 0
}

function taskColumns(body: Record<string, unknown>, mode: 'create' | 'update', now: string): Updateable<TaskTable> {
  const columns: Updateable<TaskTable> = {}
  if (mode === 'create' || body.name !== undefined) {
    if (typeof body.name !== 'string' || !body.name.trim()) throw invalid('name is required for a Task')
    if (body.name.length > 500) throw invalid('name is longer than 500 characters')
    columns.name = body.name.trim()
  }
  if (body.description !== undefined) {
    if (body.description !== null && typeof body.description !== 'string') throw invalid('description must be a string')
    columns.description = body.description || null
  }
  if (body.status !== undefined) {
    columns.status = readStatus(body.status)
    columns.completed_date = columns.status === 'Completed' ? now : null
  }
  for (const [field, column] of Object.entries(DATE_FIELDS)) {
    const value = body[field]
    if (value === undefined) continue
    if (value === null || value === '') {
      columns[column] = null
      continue
    }
    const time = parseApiTime(value)
    if (!time)
      throw invalid(`${field} must be an ISO 8601 timestamp such as 2024-03-20T13:36:53-04:00, not '${String(value)}'`)
    columns[column] = time
  }
  if (body.escalated !== undefined) columns.escalated = readFlag('escalated', body.escalated)
  if (body.reminded !== undefined) columns.reminded = readFlag('reminded', body.reminded)
  return columns
}

type UserRef = { id: number } | { userName: string }

/** Accepts `[{userName}]`, `{userName: [..]}`, `["name"]`, `"name"`, `[{id}]`; null clears. */
function readUserRefs(field: string, value: unknown): UserRef[] {
  if (value === null) return []
  const items = Array.isArray(value) ? value : [value]
  return items.flatMap((item): UserRef[] => {
    if (typeof item === 'string' && item.trim()) return [{ userName: item.trim() }]
    if (typeof item === 'number' && Number.isSafeInteger(item)) return [{ id: item }]
    if (item && typeof item === 'object') {
      const { userName, id } = item as { userName?: unknown; id?: unknown }
      if (userName !== undefined) return readUserRefs(field, userName)
      if (id !== undefined) return readUserRefs(field, typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : id)
    }
    throw invalid(`${field} must list users as [{"userName": "…"}]`)
  })
}

async function resolveMember(
  db: Kysely<Database>,
  owner: { id: number; name: string },
  ref: UserRef | string,
): Promise<TaskUser> {
  const refs: UserRef[] =
    typeof ref !== 'string'
      ? [ref]
      : /^\d{1,15}$/.test(ref)
        ? [{ userName: ref }, { id: Number(ref) }]
        : [{ userName: ref }]
  for (const r of refs) {
    const row = await findOwnerMember(db, owner.id, r)
    if (row)
      return {
        id: row.id,
        userName: row.user_name,
        firstName: row.first_name,
        lastName: row.last_name,
        pseudonym: row.pseudonym,
      }
  }
  const shown = typeof ref === 'string' ? ref : 'id' in ref ? String(ref.id) : ref.userName
  throw invalid(`User '${shown}' is not a member of ${owner.name}`)
}

async function replaceUsers(
  db: Kysely<Database>,
  owner: { id: number; name: string },
  taskId: number,
  body: Record<string, unknown>,
) {
  for (const [field, role] of Object.entries(USER_FIELDS) as [string, TaskUserRole][]) {
    if (body[field] === undefined) continue
    const users = await Promise.all(readUserRefs(field, body[field]).map((r) => resolveMember(db, owner, r)))
    await clearTaskUsers(db, taskId, role)
    for (const user of users) await addTaskUser(db, taskId, role, user.id)
  }
}

async function loadRecord(ctx: RequestContext, id: number): Promise<TaskRecord> {
  const row = await findTaskRow(ctx.store.db, id)
  if (!row) throw notFound(`Task ${id} not found`)
  return toRecord(row, await listTaskUserRows(ctx.store, [id]), ctx.now)
}

export async function getTask(ctx: RequestContext, id: number): Promise<TaskRecord> {
  await findReadableItem(ctx, 'task', id)
  return loadRecord(ctx, id)
}

/**
 * Creates a Task in ctx.owner; status defaults to Not Started.
 * @example await createTask(ctx, { name: 'Triage', dueDate: '2024-07-13T13:36:53-04:00', assignee: [{ userName: 'analyst' }] })
 */
export async function createTask(ctx: RequestContext, input: unknown): Promise<TaskRecord> {
  await requirePermission(ctx, 'create')
  const body = requireBodyObject(input)
  const columns = taskColumns(body, 'create', ctx.now)
  const id = await withTransactionDb(ctx, async (trx) => {
    const taskId = await insertTask(trx, {
      ...columns,
      name: String(columns.name),
      status: columns.status ?? 'Not Started',
      owner_id: ctx.owner.id,
      created_by: ctx.caller.account.id,
      date_added: ctx.now,
      last_modified: ctx.now,
    })
    await replaceUsers(trx, ctx.owner, taskId, body)
    return taskId
  })
  return loadRecord(ctx, id)
}

/** Updates the fields given; a given assignee or escalatee list replaces the current one. */
export async function updateTask(ctx: RequestContext, id: number, input: unknown): Promise<TaskRecord> {
  const item = await requireWritableItem(ctx, 'task', id, 'update')
  const body = requireBodyObject(input)
  const columns = taskColumns(body, 'update', ctx.now)
  await withTransactionDb(ctx, async (trx) => {
    await updateTaskRow(trx, id, { ...columns, last_modified: ctx.now })
    await replaceUsers(trx, { id: item.ownerId, name: item.ownerName }, id, body)
  })
  return loadRecord(ctx, id)
}

export async function deleteTask(ctx: RequestContext, id: number): Promise<void> {
  await requireWritableItem(ctx, 'task', id, 'delete')
  await withTransactionDb(ctx, async (trx) => {
    await deleteItemMetadata(trx, 'task', [id])
    await deleteTaskRow(trx, id)
  })
}

function taskConditions(filters: readonly FieldFilter[], now: string): TaskCondition[] {
  const special: TaskCondition[] = []
  const plain: FieldFilter[] = []
  for (const f of filters) {
    if (f.field === 'assignee' || f.field === 'escalatee' || f.field === 'overdue') {
      if (f.op !== '=') throw invalid(`Filter ${f.field} takes the operator =, not ${f.op}`)
      special.push(
        f.field === 'overdue'
          ? { overdue: parseFilterValue('overdue', 'boolean', f.value) === 1, now }
          : { role: f.field, userName: f.value },
      )
    } else {
      plain.push(f)
    }
  }
  return [
    ...special,
    ...toConditions(
      {
        resource: 'Tasks',
        specs: {
          name: { column: 'name', kind: 'string', ops: ['=', '^'] },
          dateAdded: { column: 'date_added', kind: 'date', ops: ['<', '>'] },
          dueDate: { column: 'due_date', kind: 'date', ops: ['<', '>'] },
          status: { column: 'status', kind: 'string', ops: ['=', '!'] },
          escalated: { column: 'escalated', kind: 'boolean', ops: ['='] },
          reminded: { column: 'reminded', kind: 'boolean', ops: ['='] },
        },
      },
      plain,
    ),
  ]
}

/**
 * Lists Tasks in ctx.owner (every readable owner for an association scope).
 * @example await listTasks(ctx, { filters: [{ field: 'status', op: '!', value: 'Completed' }, { field: 'overdue', op: '=', value: 'true' }] })
 */
export async function listTasks(
  ctx: RequestContext,
  query: TaskQuery = {},
): Promise<{ items: TaskRecord[]; total: number }> {
  const conditions = taskConditions(query.filters ?? [], ctx.now)
  if (query.associatedWith) await findReadableItem(ctx, query.associatedWith.kind, query.associatedWith.id)
  const ownerIds = ownerIdsToRead(ctx, query.ownerScope, { associations: !!query.associatedWith })
  const { rows, total } = await listTaskRows(ctx.store.db, {
    ownerIds,
    conditions,
    combine: query.orParams ? 'or' : 'and',
    associatedWith: query.associatedWith,
    ids: query.ids,
    offset: query.resultStart ?? 0,
    limit: query.resultLimit ?? 100,
  })
  const users = await listTaskUserRows(
    ctx.store,
    rows.map((r) => r.id),
  )
  return { items: rows.map((r) => toRecord(r, users, ctx.now)), total }
}

/** Tasks by id, in no particular order, leaving out any the caller cannot read. */
export async function findReadableTasks(ctx: RequestContext, ids: readonly number[]): Promise<TaskRecord[]> {
  const rows = keepReadableRows(ctx.caller, await findTaskRowsByIds(ctx.store, ids))
  if (rows.length === 0) return []
  const users = await listTaskUserRows(
    ctx.store,
    rows.map((r) => r.id),
  )
  return rows.map((r) => toRecord(r, users, ctx.now))
}

/** The assignees (or escalatees) of a Task. */
export async function listTaskUsers(ctx: RequestContext, taskId: number, role: TaskUserRole): Promise<TaskUser[]> {
  await findReadableItem(ctx, 'task', taskId)
  return (await listTaskUserRows(ctx.store, [taskId], role)).map(toUser)
}

/** One assignee or escalatee, by account id or user name; 404 when not in that role. */
export async function getTaskUser(
  ctx: RequestContext,
  taskId: number,
  role: TaskUserRole,
  ref: string,
): Promise<TaskUser> {
  const users = await listTaskUsers(ctx, taskId, role)
  const found = users.find((u) => u.userName === ref) ?? users.find((u) => /^\d+$/.test(ref) && u.id === Number(ref))
  if (!found)
    throw notFound(`User '${ref}' is not ${role === 'assignee' ? 'assigned to' : 'an escalatee of'} Task ${taskId}`)
  return found
}

/** Adds a member of the Task's owner as assignee or escalatee. */
export async function addTaskUserRef(
  ctx: RequestContext,
  taskId: number,
  role: TaskUserRole,
  ref: string,
): Promise<TaskUser> {
  const item: ItemInfo = await requireWritableItem(ctx, 'task', taskId, 'update')
  const user = await resolveMember(ctx.store.db, { id: item.ownerId, name: item.ownerName }, ref)
  await addTaskUser(ctx.store.db, taskId, role, user.id)
  await updateTaskRow(ctx.store.db, taskId, { last_modified: ctx.now })
  return user
}

export async function removeTaskUserRef(
  ctx: RequestContext,
  taskId: number,
  role: TaskUserRole,
  ref: string,
): Promise<void> {
  await requireWritableItem(ctx, 'task', taskId, 'update')
  const user = await getTaskUser(ctx, taskId, role, ref)
  await removeTaskUser(ctx.store.db, taskId, role, user.id)
  await updateTaskRow(ctx.store.db, taskId, { last_modified: ctx.now })
}

/** Puts a Task in a Case (v3 `caseId`): `caseWrite` on the Case, which must be in the Task's owner. Absent: no change. */
export async function setTaskCase(ctx: RequestContext, taskId: number, caseValue: unknown): Promise<void> {
  const caseId = bodyId(caseValue)
  if (caseId === undefined) return
  const parent = await requireWritableItem(ctx, 'case', caseId, 'caseWrite')
  const task = await findReadableItem(ctx, 'task', taskId)
  if (parent.ownerId !== task.ownerId) throw invalid(`Case ${caseId} belongs to another owner than the Task`)
  await updateTaskRow(ctx.store.db, taskId, { case_id: caseId })
}
