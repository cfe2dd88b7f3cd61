/**
 * /v2/tasks: list, create, read, update, delete; assignees and escalatees (by account id or
 * user name); associations with Groups, Indicators, Victims and Victim Assets; metadata.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { findReadableItem, parseItemId } from '../../../domain/items/items.js'
import {
  addTaskUserRef,
  createTask,
  deleteTask,
  getTask,
  getTaskUser,
  listTaskUsers,
  listTasks,
  removeTaskUserRef,
  updateTask,
} from '../../../domain/tasks/tasks.js'
import { pageOf, parseIncludes, parsePaging, query } from '../params.js'
import { presentTaskUserV2, presentTasksV2 } from '../present-task.js'
import { sendItem, sendList, sendNoBody } from '../present.js'
import { registerAssociationRoutes } from './groups-associations.js'
import { listQuery, parseListParams } from './groups-params.js'
import { registerMetadataRoutes } from './metadata.js'
import * as S from '../schemas.js'

const TASK = '/tasks/:taskId'
const ROLES = { assignees: 'assignee', escalatees: 'escalatee' } as const

function taskId(req: FastifyRequest): number {
  return parseItemId('task', (req.params as { taskId: string }).taskId)
}

async function presentOne(req: FastifyRequest, task: Awaited<ReturnType<typeof getTask>>) {
  const [body] = await presentTasksV2(req.ctx, [task], parseIncludes(query(req)), true)
  return body
}

export async function taskRoutes(app: FastifyInstance) {
  app.get('/tasks', { schema: S.v2List(S.TASK, { summary: 'Tasks' }) }, async (req, reply) => {
    const params = parseListParams(query(req))
    const { items, total } = await listTasks(req.ctx, listQuery(params))
    return sendList(req, reply, 'task', await presentTasksV2(req.ctx, items, params.includes), params.paging, total)
  })

  app.post(
    '/tasks',
    { schema: S.v2Item(S.TASK, { summary: 'Create a Task', body: S.TASK_BODY, status: 201 }) },
    async (req, reply) => sendItem(req, reply, 'task', await presentOne(req, await createTask(req.ctx, req.body)), 201),
  )

  app.get(TASK, { schema: S.v2Item(S.TASK, { summary: 'One Task', query: S.ONE_QUERY }) }, async (req, reply) =>
    sendItem(req, reply, 'task', await presentOne(req, await getTask(req.ctx, taskId(req)))),
  )

  app.put(TASK, { schema: S.v2Item(S.TASK, { summary: 'Update a Task', body: S.TASK_BODY }) }, async (req, reply) =>
    sendItem(req, reply, 'task', await presentOne(req, await updateTask(req.ctx, taskId(req), req.body))),
  )

  app.delete(TASK, { schema: S.v2NoBody({ summary: 'Delete a Task' }) }, async (req, reply) => {
    await deleteTask(req.ctx, taskId(req))
    return sendNoBody(req, reply)
  })

  for (const [branch, role] of Object.entries(ROLES)) {
    app.get(
      `${TASK}/${branch}`,
      { schema: S.v2List(S.TASK_USER, { summary: "The Task's assignees or escalatees" }) },
      async (req, reply) => {
        const paging = parsePaging(query(req))
        const users = await listTaskUsers(req.ctx, taskId(req), role)
        const page = pageOf(users, paging)
        return sendList(req, reply, 'user', page.map(presentTaskUserV2), paging, users.length)
      },
    )
    app.get<{ Params: { user: string } }>(
      `${TASK}/${branch}/:user`,
      { schema: S.v2Item(S.TASK_USER, { summary: 'One assignee or escalatee' }) },
      async (req, reply) =>
        sendItem(req, reply, 'user', presentTaskUserV2(await getTaskUser(req.ctx, taskId(req), role, req.params.user))),
    )
    app.post<{ Params: { user: string } }>(
      `${TASK}/${branch}/:user`,
      { schema: S.v2Item(S.TASK_USER, { summary: 'Add an assignee or escalatee' }) },
      async (req, reply) =>
        sendItem(
          req,
          reply,
          'user',
          presentTaskUserV2(await addTaskUserRef(req.ctx, taskId(req), role, req.params.user)),
        ),
    )
    app.delete<{ Params: { user: string } }>(
      `${TASK}/${branch}/:user`,
      { schema: S.v2NoBody({ summary: 'Remove an assignee or escalatee' }) },
      async (req, reply) => {
        await removeTaskUserRef(req.ctx, taskId(req), role, req.params.user)
        return sendNoBody(req, reply)
      },
    )
  }

  const resolveTask = (req: FastifyRequest) => findReadableItem(req.ctx, 'task', taskId(req))
  registerMetadataRoutes(app, TASK, resolveTask)
  registerAssociationRoutes(app, TASK, resolveTask, { targets: ['groups', 'indicators', 'victims', 'victimAssets'] })
}
