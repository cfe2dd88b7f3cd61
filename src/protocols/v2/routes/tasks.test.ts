import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../../test/harness.js'

let t: TestApp
let analyst: TestAccount
let manager: TestAccount
let readOnly: TestAccount
let outsider: string
beforeAll(async () => {
  t = await createTestApp()
  analyst = await t.createAccount({ role: 'Standard User' })
  manager = await t.createAccount({ role: 'Standard User' })
  readOnly = await t.createAccount({ role: 'Read Only User' })
  await t.createOwner('Outside Org', 'Organization')
  outsider = `outsider-${Date.now()}`
  const { createAccount } = await import('../../../domain/access/accounts.js')
  await createAccount(
    t.store.db,
    { userName: outsider, kind: 'api', organization: 'Outside Org', role: 'Standard User' },
    new Date().toISOString(),
  )
})
afterAll(async () => {
  await t.close()
})

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, as?: TestAccount) =>
  t.request({ method, url: `/api/v2${url}`, payload: payload as object | undefined, as })

async function createTask(body: Record<string, unknown>) {
  const res = await call('POST', '/tasks', body)
  expect(res.statusCode).toBe(201)
  return res.json().data.task
}

describe('POST /v2/tasks', () => {
  it('reads escalated and reminded as every other true/false field is read (1, "0", "TRUE")', async () => {
    const task = await createTask({ name: 'Flags as numbers', escalated: 1, reminded: '0' })
    expect(task).toMatchObject({ escalated: true, reminded: false })
    const changed = await call('PUT', `/tasks/${task.id}`, { escalated: 'FALSE', reminded: 1 })
    expect(changed.statusCode).toBe(200)
    expect(changed.json().data.task).toMatchObject({ escalated: false, reminded: true })
    const bad = await call('POST', '/tasks', { name: 'Bad flag', escalated: 'maybe' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().message).toBe("escalated must be true or false, not 'maybe'")
  })

  it('creates a Task with dates, assignee and escalatee', async () => {
    const task = await createTask({
      name: 'Send Domains to IR Team',
      dueDate: '2099-07-13T13:36:53-04:00',
      escalationDate: '2099-07-14T00:00:00Z',
      description: 'Triage',
      assignee: [{ userName: analyst.userName }],
      escalatee: [{ userName: manager.userName }],
    })
    expect(task).toMatchObject({
      name: 'Send Domains to IR Team',
      ownerName: 'Test Organization',
      owner: { name: 'Test Organization' },
      status: 'Not Started',
      escalated: false,
      reminded: false,
      overdue: false,
      dueDate: '2099-07-13T17:36:53Z',
      escalationDate: '2099-07-14T00:00:00Z',
      description: 'Triage',
      webLink: `https://bulwark.test/auth/task/task.xhtml?task=${task.id}`,
      assignee: [{ userName: analyst.userName, firstName: 'Test', lastName: expect.stringMatching(/^User/) }],
      escalatee: [expect.objectContaining({ userName: manager.userName })],
    })
  })

  it('refuses a missing name, a bad status, a bad date and users outside the owner', async () => {
    expect((await call('POST', '/tasks', { dueDate: '2099-01-01' })).json().message).toBe('name is required for a Task')
    const status = await call('POST', '/tasks', { name: 'x', status: 'Done' })
    expect(status.statusCode).toBe(400)
    expect(status.json().message).toMatch(
      /status 'Done' is not a Task status; use one of: Not Started, In Progress, Completed/,
    )
    expect((await call('POST', '/tasks', { name: 'x', dueDate: 'next week' })).statusCode).toBe(400)
    const stranger = await call('POST', '/tasks', { name: 'x', assignee: [{ userName: outsider }] })
    expect(stranger.statusCode).toBe(400)
    expect(stranger.json().message).toBe(`User '${outsider}' is not a member of Test Organization`)
    const nobody = await call('POST', '/tasks', { name: 'x', escalatee: [{ userName: 'no-such-user' }] })
    expect(nobody.json().message).toBe("User 'no-such-user' is not a member of Test Organization")
    const tasks = await t.store.db.selectFrom('task').select('name').where('name', '=', 'x').execute()
    expect(tasks).toEqual([])
  })

  it('refuses read-only callers with 401 and unknown owners with 403', async () => {
    expect((await call('POST', '/tasks', { name: 'x' }, readOnly)).statusCode).toBe(401)
    expect(
      (await t.request({ method: 'POST', url: '/api/v2/tasks?owner=Outside%20Org', payload: { name: 'x' } }))
        .statusCode,
    ).toBe(403)
  })
})

describe('PUT, GET and DELETE /v2/tasks/{id}', () => {
  it('updates status, derives overdue and replaces assignees in the documented shape', async () => {
    const task = await createTask({ name: 'Late', dueDate: '2000-01-01T00:00:00Z' })
    expect(task.overdue).toBe(true)
    const res = await call('PUT', `/tasks/${task.id}`, {
      status: 'completed',
      assignee: { userName: [analyst.userName, manager.userName] },
    })
    expect(res.statusCode).toBe(200)
    const updated = res.json().data.task
    expect(updated).toMatchObject({ status: 'Completed', overdue: false })
    expect(updated.assignee.map((u: { userName: string }) => u.userName).sort()).toEqual(
      [analyst.userName, manager.userName].sort(),
    )
    const cleared = (await call('PUT', `/tasks/${task.id}`, { assignee: [] })).json().data.task
    expect(cleared.assignee).toBeUndefined()
  })

  it('deletes a Task', async () => {
    const task = await createTask({ name: 'Temp', assignee: [analyst.userName] })
    expect((await call('DELETE', `/tasks/${task.id}`)).json()).toEqual({
      apiCalls: 1,
      resultCount: 0,
      status: 'Success',
    })
    expect((await call('GET', `/tasks/${task.id}`)).statusCode).toBe(404)
    expect((await call('GET', '/tasks/not-a-number')).statusCode).toBe(404)
  })
})

describe('/v2/tasks/{id}/assignees and /escalatees', () => {
  it('adds, lists, reads and removes users by user name or id', async () => {
    const task = await createTask({ name: 'People' })
    const added = await call('POST', `/tasks/${task.id}/assignees/${analyst.userName}`)
    expect(added.statusCode).toBe(200)
    const user = added.json().data.user
    expect(user.userName).toBe(analyst.userName)
    const list = (await call('GET', `/tasks/${task.id}/assignees`)).json().data
    expect(list).toEqual({ resultCount: 1, user: [user] })
    expect((await call('GET', `/tasks/${task.id}/assignees/${user.id}`)).json().data.user).toEqual(user)
    expect((await call('POST', `/tasks/${task.id}/escalatees/${user.id}`)).statusCode).toBe(200)
    expect((await call('GET', `/tasks/${task.id}/escalatees`)).json().data.user).toEqual([user])
    expect((await call('DELETE', `/tasks/${task.id}/assignees/${analyst.userName}`)).statusCode).toBe(200)
    expect((await call('GET', `/tasks/${task.id}/assignees/${analyst.userName}`)).statusCode).toBe(404)
    expect((await call('POST', `/tasks/${task.id}/assignees/${outsider}`)).statusCode).toBe(400)
    expect(
      (await call('POST', `/tasks/${task.id}/assignees/${manager.userName}`, undefined, readOnly)).statusCode,
    ).toBe(401)
  })
})

describe('GET /v2/tasks filters', () => {
  let ids: Record<string, number>
  beforeAll(async () => {
    ids = {
      open: (await createTask({ name: 'Filter open', dueDate: '2001-01-01T00:00:00Z', assignee: [analyst.userName] }))
        .id,
      done: (
        await createTask({ name: 'Filter done', status: 'Completed', dueDate: '2001-01-01T00:00:00Z', escalated: true })
      ).id,
      future: (
        await createTask({
          name: 'Filter future',
          dueDate: '2099-01-01T00:00:00Z',
          escalatee: [manager.userName],
          reminded: true,
        })
      ).id,
    }
  })
  const names = async (filters: string) => {
    const res = await call('GET', `/tasks?filters=${encodeURIComponent(filters)}`)
    expect(res.statusCode).toBe(200)
    return res
      .json()
      .data.task.map((x: { name: string }) => x.name)
      .filter((n: string) => n.startsWith('Filter'))
  }

  it('filters by name, status (= and !), dueDate, flags, overdue and people', async () => {
    expect(await names('name^Filter')).toEqual(['Filter open', 'Filter done', 'Filter future'])
    expect(await names('name=Filter done')).toEqual(['Filter done'])
    expect(await names('status=Completed')).toEqual(['Filter done'])
    expect(await names('name^Filter,status!Completed')).toEqual(['Filter open', 'Filter future'])
    expect(await names('dueDate>2050-01-01')).toEqual(['Filter future'])
    expect(await names('overdue=true')).toEqual(['Filter open'])
    expect(await names('name^Filter,overdue=false')).toEqual(['Filter done', 'Filter future'])
    expect(await names('escalated=true')).toEqual(['Filter done'])
    expect(await names('reminded=true')).toEqual(['Filter future'])
    expect(await names(`assignee=${analyst.userName}`)).toEqual(['Filter open'])
    expect(await names(`escalatee=${manager.userName}`)).toEqual(['Filter future'])
  })

  it('adds tags when asked and answers in XML', async () => {
    await call('POST', `/tasks/${ids.open}/tags/Urgent`)
    const tagged = (await call('GET', '/tasks?includeTags=true&filters=name%3DFilter%20open')).json().data.task[0]
    expect(tagged.tag).toEqual([{ name: 'Urgent', webLink: expect.stringContaining('tag=Urgent') }])
    const xml = await t.request({
      method: 'GET',
      url: `/api/v2/tasks/${ids.open}`,
      headers: { accept: 'application/xml' },
    })
    expect(xml.body).toContain('<taskResponse><Status>Success</Status>')
    expect(xml.body).toContain(`<Assignee><Id>`)
    expect(xml.body).toContain('<Overdue>true</Overdue>')
  })

  it('refuses bad filters', async () => {
    expect((await call('GET', `/tasks?filters=${encodeURIComponent('overdue=maybe')}`)).json().message).toBe(
      "Filter overdue takes true or false, not 'maybe'",
    )
    expect(await names('escalated=1')).toEqual(await names('escalated=true'))
    expect((await call('GET', `/tasks?filters=${encodeURIComponent('assignee^a')}`)).statusCode).toBe(400)
    expect((await call('GET', `/tasks?filters=${encodeURIComponent('name!x')}`)).json().message).toBe(
      'Filter name takes the operators = ^, not !',
    )
  })
})
