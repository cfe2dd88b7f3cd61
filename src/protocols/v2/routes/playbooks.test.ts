import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestAccount, type TestApp, createTestApp } from '../../../test/harness.js'

let t: TestApp
let reader: TestAccount
let standard: TestAccount

/** The shape of an exported .pbx file, reduced to what matters here. */
function pbx(name: string, trigger: string, labels: string[] = [], extra: Record<string, unknown> = {}) {
  return {
    definitionVersion: '1.0.0',
    name,
    description: `${name} playbook`,
    type: 'Playbook',
    logLevel: 'WARN',
    panX: 0,
    panY: 0,
    jobList: [
      { id: 1, name: 'HTTP Client 1', appCatalogItem: { programName: 'Http Client', programVersion: '1.0.0' } },
    ],
    playbookConnectionList: [],
    playbookTriggerList: [{ id: 53, name: 'Trigger', type: trigger, eventType: 'Create' }],
    labels,
    ...extra,
  }
}
async function install(file: object, as?: TestAccount) {
  return t.request({ method: 'POST', url: '/api/v2/playbooks', payload: file, as })
}

beforeAll(async () => {
  t = await createTestApp()
  reader = await t.createAccount({ role: 'Read Only User' })
  standard = await t.createAccount({ role: 'Standard User' })
  await t.createOwner('Other Org', 'Organization')
})
afterAll(async () => {
  await t.close()
})

describe('POST /v2/playbooks', () => {
  it('installs a playbook file as version 1.0, Inactive, summarised from the file', async () => {
    const res = await install(pbx('Enrich Hosts', 'HttpLink', ['enrichment', 'dns']), standard)
    expect(res.statusCode).toBe(201)
    expect(res.json().data.playbook).toEqual({
      id: expect.any(Number),
      xid: expect.any(String),
      name: 'Enrich Hosts',
      description: 'Enrich Hosts playbook',
      triggerType: 'HttpLink',
      status: 'Inactive',
      labels: ['enrichment', 'dns'],
      version: '1.0',
      ownerName: ORG,
      dateAdded: expect.stringMatching(/Z$/),
      lastModified: expect.stringMatching(/Z$/),
    })
  })

  it('rejects a file without a name or with a bad status with 400, and a Read Only User with 401', async () => {
    expect((await install({ jobList: [] })).statusCode).toBe(400)
    expect((await install(pbx('X', 'HttpLink', [], { status: 'Running' }))).statusCode).toBe(400)
    expect((await install(pbx('X', 'HttpLink'), reader)).statusCode).toBe(401)
  })
})

describe('GET /v2/playbooks and /v2/playbooks/search', () => {
  beforeAll(async () => {
    await install(pbx('Phish Triage', 'Mailbox', ['phishing', 'triage']))
    const active = await install(pbx('Block IPs', 'UserAction', ['Triage']))
    await t.request({ method: 'POST', url: `/api/v2/playbooks/${active.json().data.playbook.id}/activate` })
  })

  it('lists every Playbook of the owner to any role', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/playbooks', as: reader })
    expect(res.json().data.resultCount).toBe(3)
    expect(res.json().data.playbook.map((p: { name: string }) => p.name)).toEqual([
      'Enrich Hosts',
      'Phish Triage',
      'Block IPs',
    ])
  })

  it('searches by name substring, trigger type and status', async () => {
    const byName = await t.request({ method: 'GET', url: '/api/v2/playbooks/search?name=TRIAGE' })
    expect(byName.json().data.playbook.map((p: { name: string }) => p.name)).toEqual(['Phish Triage'])
    const byTrigger = await t.request({ method: 'GET', url: '/api/v2/playbooks/search?triggerType=mailbox' })
    expect(byTrigger.json().data).toMatchObject({ resultCount: 1, playbook: [{ name: 'Phish Triage' }] })
    const active = await t.request({ method: 'GET', url: '/api/v2/playbooks/search?status=Active' })
    expect(active.json().data).toMatchObject({ resultCount: 1, playbook: [{ name: 'Block IPs', status: 'Active' }] })
  })

  it('needs every listed label (case-insensitive), then sorts and pages', async () => {
    const one = await t.request({ method: 'GET', url: '/api/v2/playbooks/search?labels=triage' })
    expect(one.json().data.playbook.map((p: { name: string }) => p.name)).toEqual(['Phish Triage', 'Block IPs'])
    const both = await t.request({ method: 'GET', url: '/api/v2/playbooks/search?labels=triage,phishing' })
    expect(both.json().data.playbook.map((p: { name: string }) => p.name)).toEqual(['Phish Triage'])
    const sorted = await t.request({
      method: 'GET',
      url: '/api/v2/playbooks/search?sortOn=name&sortAscending=false&resultStart=1&resultLimit=1',
    })
    expect(sorted.json().data).toEqual({ playbook: [expect.objectContaining({ name: 'Enrich Hosts' })] })
  })

  it('rejects a bad status or sortOn with 400', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v2/playbooks/search?status=Running' })).statusCode).toBe(400)
    expect((await t.request({ method: 'GET', url: '/api/v2/playbooks/search?sortOn=status' })).statusCode).toBe(400)
  })

  it('answers in XML when asked', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/v2/playbooks/search?status=Active',
      headers: { accept: 'application/xml' },
    })
    expect(res.body).toContain('<Playbook><Id>')
    expect(res.body).toContain('<Status>Active</Status>')
  })
})

describe('one Playbook', () => {
  let id: number
  let xid: string
  beforeAll(async () => {
    const res = await install(pbx('Versioned', 'Timer'))
    ;({ id, xid } = res.json().data.playbook)
  })

  it('is found by id or xid, and 404 when missing', async () => {
    expect(
      (await t.request({ method: 'GET', url: `/api/v2/playbooks/${id}`, as: reader })).json().data.playbook.name,
    ).toBe('Versioned')
    expect((await t.request({ method: 'GET', url: `/api/v2/playbooks/${xid}` })).json().data.playbook.id).toBe(id)
    const missing = await t.request({ method: 'GET', url: '/api/v2/playbooks/999999' })
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toEqual({ status: 'Error', message: 'Playbook 999999 not found' })
  })

  it('is invisible (404) to an account outside its owner', async () => {
    const otherOrg = (
      await t.store.db.selectFrom('owner').select('id').where('name', '=', 'Other Org').executeTakeFirstOrThrow()
    ).id
    const theirs = (
      await t.store.db
        .insertInto('playbook')
        .values({
          owner_id: otherOrg,
          xid: 'theirs',
          name: 'Theirs',
          description: null,
          trigger_type: 'Timer',
          status: 'Active',
          labels: '[]',
          version_major: 1,
          version_minor: 0,
          definition: '{}',
          date_added: '2024-01-01T00:00:00.000Z',
          last_modified: '2024-01-01T00:00:00.000Z',
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
    expect((await t.request({ method: 'GET', url: `/api/v2/playbooks/${theirs}`, as: reader })).statusCode).toBe(404)
    expect((await t.request({ method: 'DELETE', url: `/api/v2/playbooks/${theirs}`, as: standard })).statusCode).toBe(
      404,
    )
  })

  it('takes an upload as the next major version, keeping id, xid and status', async () => {
    await t.request({ method: 'POST', url: `/api/v2/playbooks/${id}/activate` })
    const res = await t.request({
      method: 'POST',
      url: `/api/v2/playbooks/${id}`,
      payload: pbx('Versioned v2', 'HttpLink', ['new']),
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.playbook).toMatchObject({
      id,
      xid,
      name: 'Versioned v2',
      triggerType: 'HttpLink',
      version: '2.0',
      status: 'Active',
      labels: ['new'],
    })
    const exported = await t.request({ method: 'GET', url: `/api/v2/playbooks/${id}/export` })
    expect(exported.json()).toMatchObject({ name: 'Versioned v2', jobList: [{ name: 'HTTP Client 1' }] })
  })

  it('activates and deactivates; a Read Only User gets 401', async () => {
    expect(
      (await t.request({ method: 'POST', url: `/api/v2/playbooks/${id}/deactivate`, as: reader })).statusCode,
    ).toBe(401)
    const res = await t.request({ method: 'POST', url: `/api/v2/playbooks/${id}/deactivate`, as: standard })
    expect(res.json().data.playbook.status).toBe('Inactive')
    expect((await t.request({ method: 'POST', url: '/api/v2/playbooks/999999/activate' })).statusCode).toBe(404)
  })

  it('is deleted, then 404', async () => {
    expect((await t.request({ method: 'DELETE', url: `/api/v2/playbooks/${id}`, as: reader })).statusCode).toBe(401)
    expect((await t.request({ method: 'DELETE', url: `/api/v2/playbooks/${id}` })).json()).toEqual({
      apiCalls: 1,
      resultCount: 0,
      status: 'Success',
    })
    expect((await t.request({ method: 'GET', url: `/api/v2/playbooks/${id}` })).statusCode).toBe(404)
  })

  it('refuses another owner the caller cannot access with 403', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v2/playbooks?owner=Other%20Org' })).statusCode).toBe(403)
  })
})
