/** Tasks and their assignees and escalatees. Rules live in domain/tasks/tasks.ts. */
import type { Expression, ExpressionBuilder, Insertable, Kysely, SqlBool, Updateable } from 'kysely'
import type { Database, Row, TaskTable } from '../database.js'
import {
  type AssociationScope,
  type ColumnCondition,
  associatedIds,
  columnCondition,
  combine,
  ownerFilter,
} from '../engine/list-conditions.js'
import type { Store } from '../connect.js'
import { preparedByIds } from '../engine/prepared-read.js'
import { findRowsByIds } from '../engine/rows-by-id.js'

export type TaskFilterColumn = 'name' | 'date_added' | 'due_date' | 'status' | 'escalated' | 'reminded'
export type TaskUserRole = 'assignee' | 'escalatee'

/** A column comparison, "overdue at this time", or "has this user in this role". */
export type TaskCondition =
  ColumnCondition<TaskFilterColumn> | { overdue: boolean; now: string } | { role: TaskUserRole; userName: string }

export interface TaskListQuery {
  ownerIds: readonly number[]
  conditions: TaskCondition[]
  combine: 'and' | 'or'
  associatedWith?: AssociationScope
  ids?: readonly number[]
  offset: number
  limit: number
}

function taskColumns(db: Kysely<Database>) {
  return db
    .selectFrom('task')
    .innerJoin('owner', 'owner.id', 'task.owner_id')
    .selectAll('task')
    .select(['owner.name as owner_name', 'owner.type as owner_type'])
}

export type TaskRow = Awaited<ReturnType<ReturnType<typeof taskColumns>['execute']>>[number]

/** Tasks by id in any owner, without their owners' names (see keepReadableRows). */
export function findTaskRowsByIds(store: Store, ids: readonly number[]): Promise<Row<'task'>[]> {
  return findRowsByIds(store, 'task', ids)
}

export function findTaskRow(db: Kysely<Database>, id: number): Promise<TaskRow | undefined> {
  return taskColumns(db).where('task.id', '=', id).executeTakeFirst()
}

export async function insertTask(db: Kysely<Database>, values: Insertable<TaskTable>): Promise<number> {
  return (await db.insertInto('task').values(values).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateTaskRow(db: Kysely<Database>, id: number, values: Updateable<TaskTable>): Promise<void> {
  if (Object.keys(values).length === 0) return
  await db.updateTable('task').set(values).where('id', '=', id).execute()
}

export async function deleteTaskRow(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('task_assignee').where('task_id', '=', id).execute()
  await db.deleteFrom('task').where('id', '=', id).execute()
}

function taskCondition(db: Kysely<Database>, eb: ExpressionBuilder<any, any>, c: TaskCondition): Expression<SqlBool> {
  if ('overdue' in c) {
    if (c.overdue) return eb.and([eb('task.due_date', '<', c.now), eb('task.status', '<>', 'Completed')])
    // Spelled out rather than NOT(…): a Task without a due date makes the comparison NULL, and NOT NULL selects nothing.
    return eb.or([
      eb('task.due_date', 'is', null),
      eb('task.due_date', '>=', c.now),
      eb('task.status', '=', 'Completed'),
    ])
  }
  if ('role' in c) {
    return eb(
      'task.id',
      'in',
      db
        .selectFrom('task_assignee')
        .innerJoin('user_account', 'user_account.id', 'task_assignee.user_id')
        .select('task_assignee.task_id')
        .where('task_assignee.role', '=', c.role)
        .where('user_account.user_name', '=', c.userName),
    )
  }
  return columnCondition(eb, `task.${c.column}`, c)
}

export async function listTaskRows(
  db: Kysely<Database>,
  q: TaskListQuery,
): Promise<{ rows: TaskRow[]; total: number }> {
  if (q.ownerIds.length === 0) return { rows: [], total: 0 }
  let base = taskColumns(db).where((eb) => ownerFilter(db, eb, 'task.owner_id', q.ownerIds, q.ids !== undefined))
  if (q.ids) base = base.where('task.id', 'in', q.ids.length ? q.ids : [-1])
  if (q.associatedWith) base = base.where('task.id', 'in', associatedIds(db, q.associatedWith, 'task'))
  if (q.conditions.length)
    base = base.where((eb) =>
      combine(
        eb,
        q.conditions.map((c) => taskCondition(db, eb, c)),
        q.combine,
      ),
    )
  const [rows, count] = await Promise.all([
    base.orderBy('task.id').limit(q.limit).offset(q.offset).execute(),
    base
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}

export interface TaskUserRow {
  task_id: number
  role: string
  user_id: number
  user_name: string
  first_name: string | null
  last_name: string | null
  pseudonym: string | null
}

const findTaskUserRows = preparedByIds('task_users_by_task', (db, idIn) =>
  db
    .selectFrom('task_assignee')
    .innerJoin('user_account', 'user_account.id', 'task_assignee.user_id')
    .select([
      'task_assignee.task_id',
      'task_assignee.role',
      'user_account.id as user_id',
      'user_account.user_name',
      'user_account.first_name',
      'user_account.last_name',
      'user_account.pseudonym',
    ])
    .where(idIn('task_assignee.task_id'))
    .orderBy('user_account.user_name'),
)

/** The assignees and escalatees of the Tasks (of one role when given), by user name. */
export async function listTaskUserRows(
  store: Store,
  taskIds: readonly number[],
  role?: TaskUserRole,
): Promise<TaskUserRow[]> {
  const rows = await findTaskUserRows(store, taskIds)
  return role ? rows.filter((r) => r.role === role) : rows
}

export async function addTaskUser(
  db: Kysely<Database>,
  taskId: number,
  role: TaskUserRole,
  userId: number,
): Promise<void> {
  await db
    .insertInto('task_assignee')
    .values({ task_id: taskId, role, user_id: userId })
    .onConflict((oc) => oc.columns(['task_id', 'role', 'user_id']).doNothing())
    .execute()
}

export async function removeTaskUser(
  db: Kysely<Database>,
  taskId: number,
  role: TaskUserRole,
  userId: number,
): Promise<boolean> {
  const r = await db
    .deleteFrom('task_assignee')
    .where('task_id', '=', taskId)
    .where('role', '=', role)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

export async function clearTaskUsers(db: Kysely<Database>, taskId: number, role: TaskUserRole): Promise<void> {
  await db.deleteFrom('task_assignee').where('task_id', '=', taskId).where('role', '=', role).execute()
}

/** An account with a (non-Banned) membership in the owner, by id or by user name. */
export function findOwnerMember(db: Kysely<Database>, ownerId: number, ref: { id: number } | { userName: string }) {
  let q = db
    .selectFrom('user_account')
    .innerJoin('membership', 'membership.user_id', 'user_account.id')
    .select([
      'user_account.id',
      'user_account.user_name',
      'user_account.first_name',
      'user_account.last_name',
      'user_account.pseudonym',
    ])
    .where('membership.owner_id', '=', ownerId)
    .where('membership.role', '<>', 'Banned')
  q = 'id' in ref ? q.where('user_account.id', '=', ref.id) : q.where('user_account.user_name', '=', ref.userName)
  return q.executeTakeFirst()
}
