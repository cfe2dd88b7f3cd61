/** Tasks in v2's shape, with their assignees and escalatees as user objects. */
import type { RequestContext } from '../../domain/context.js'
import type { TaskRecord, TaskUser } from '../../domain/tasks/tasks.js'
import { toApiTime } from '../../core/time.js'
import { legacyLink } from '../http/links.js'
import type { Include } from './params.js'
import { type V2Extras, loadV2Extras, ownerObject } from './present-group.js'

/** The v2 user object of assignee, escalatee and the assignees/escalatees lists. */
export function presentTaskUserV2(u: TaskUser) {
  return { id: u.id, userName: u.userName, firstName: u.firstName ?? undefined, lastName: u.lastName ?? undefined }
}

export function presentTaskV2(t: TaskRecord, options: { publicUrl: string; single: boolean; extras?: V2Extras }) {
  return {
    id: t.id,
    name: t.name,
    ownerName: t.ownerName,
    ...(options.single ? { owner: ownerObject(t) } : {}),
    dateAdded: toApiTime(t.dateAdded),
    lastModified: toApiTime(t.lastModified),
    webLink: legacyLink(options.publicUrl, 'task', t.id),
    description: t.description ?? undefined,
    status: t.status,
    escalated: t.escalated,
    reminded: t.reminded,
    overdue: t.overdue,
    dueDate: toApiTime(t.dueDate),
    reminderDate: toApiTime(t.reminderDate),
    escalationDate: toApiTime(t.escalationDate),
    ...(t.assignees.length ? { assignee: t.assignees.map(presentTaskUserV2) } : {}),
    ...(t.escalatees.length ? { escalatee: t.escalatees.map(presentTaskUserV2) } : {}),
    ...options.extras,
  }
}

export async function presentTasksV2(
  ctx: RequestContext,
  tasks: TaskRecord[],
  includes: ReadonlySet<Include>,
  single = false,
) {
  const extras = await loadV2Extras(
    ctx,
    'task',
    tasks.map((t) => t.id),
    includes,
  )
  return tasks.map((t) => presentTaskV2(t, { publicUrl: ctx.services.publicUrl, single, extras: extras.get(t.id) }))
}
