/** A Task in v3: assignee in the platform's `{type: "User", data: {…}}` form, dates as API times. */
import type { RequestContext } from '../../domain/context.js'
import type { TaskRecord, TaskUser } from '../../domain/tasks/tasks.js'
import { toApiTime } from '../../core/time.js'
import { detailsLink } from '../http/links.js'
import { compact } from './present-metadata.js'

function user(u: TaskUser) {
  return {
    type: 'User',
    data: compact({
      id: u.id,
      userName: u.userName,
      firstName: u.firstName,
      lastName: u.lastName,
      pseudonym: u.pseudonym,
    }),
  }
}

export function presentTaskV3(t: TaskRecord, { ctx }: { ctx: RequestContext }): Record<string, unknown> {
  return compact({
    id: t.id,
    xid: t.xid,
    name: t.name,
    description: t.description,
    status: t.status,
    caseId: t.caseId,
    ownerId: t.ownerId,
    ownerName: t.ownerName,
    webLink: detailsLink(ctx.services.publicUrl, 'tasks', t.id),
    dueDate: toApiTime(t.dueDate),
    reminderDate: toApiTime(t.reminderDate),
    escalationDate: toApiTime(t.escalationDate),
    completedDate: toApiTime(t.completedDate),
    escalated: t.escalated,
    reminded: t.reminded,
    overdue: t.overdue,
    assignee: t.assignees[0] ? user(t.assignees[0]) : undefined,
    escalatee: t.escalatees.length ? { data: t.escalatees.map((e) => user(e).data) } : undefined,
    dateAdded: toApiTime(t.dateAdded),
    lastModified: toApiTime(t.lastModified),
  })
}
