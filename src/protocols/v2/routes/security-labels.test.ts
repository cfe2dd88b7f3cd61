import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoNow } from '../../../core/time.js'
import { findLabelByName } from '../../../store/repositories/security-label.repository.js'
import { ORG, PUBLIC_URL, type TestAccount, type TestApp, createTestApp } from '../../../test/harness.js'
import { createTestGroup } from '../../../test/factories.js'

let t: TestApp
let reader: TestAccount
let standard: TestAccount
let outsider: TestAccount
let orgId: number
const now = isoNow()

async function labelId(ownerId: number, name: string) {
  return (
    await t.store.db
      .selectFrom('security_label')
      .select('id')
      .where('owner_id', '=', ownerId)
      .where('name', '=', name)
      .executeTakeFirstOrThrow()
  ).id
}
async function insertGroup(ownerId: number, type: string, name: string) {
  return createTestGroup(t, { ownerId, type, name })
}
async function label(kind: string, id: number, labelName: string, ownerId = orgId) {
  await t.store.db
    .insertInto('item_security_label')
    .values({ label_id: await labelId(ownerId, labelName), item_kind: kind, item_id: id, date_added: now })
    .execute()
}

beforeAll(async () => {
  t = await createTestApp()
  orgId = (await t.store.db.selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
  reader = await t.createAccount({ role: 'Read Only User' })
  standard = await t.createAccount({ role: 'Standard User' })
  await t.createOwner('Other Org', 'Organization')
  outsider = await t.createAccount({ role: 'Standard User' })
})
afterAll(async () => {
  await t.close()
})

describe('GET /v2/securityLabels', () => {
  it('lists the standard TLP labels an owner starts with, sorted by name', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/securityLabels', as: reader })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.data.resultCount).toBe(6)
    expect(body.data.securityLabel.map((l: { name: string }) => l.name)).toEqual([
      'TLP:AMBER',
      'TLP:AMBER+STRICT',
      'TLP:CLEAR',
      'TLP:GREEN',
      'TLP:RED',
      'TLP:WHITE',
    ])
    expect(body.data.securityLabel[4]).toMatchObject({
      name: 'TLP:RED',
      color: 'FF2B2B',
      dateAdded: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    })
  })

  it('filters by name = and ^ (URL-encoded operators)', async () => {
    const starts = await t.request({ method: 'GET', url: '/api/v2/securityLabels?filters=name%5ETLP:AMBER' })
    expect(starts.json().data.securityLabel.map((l: { name: string }) => l.name)).toEqual([
      'TLP:AMBER',
      'TLP:AMBER+STRICT',
    ])
    const exact = await t.request({ method: 'GET', url: '/api/v2/securityLabels?filters=name%3DTLP:GREEN' })
    expect(exact.json().data).toMatchObject({ resultCount: 1, securityLabel: [{ name: 'TLP:GREEN' }] })
  })

  it('rejects an unknown filter with 400', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/securityLabels?filters=color%3DFF0000' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ status: 'Error', message: "Unknown filter 'color': use name" })
  })

  it('answers in XML when asked', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/v2/securityLabels?resultLimit=1',
      headers: { accept: 'application/xml' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('application/xml')
    expect(res.body).toContain('<securityLabelsResponse><Status>Success</Status>')
    expect(res.body).toContain('<SecurityLabel><Name>TLP:AMBER</Name>')
  })

  it('returns 403 for an owner the caller cannot access', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/securityLabels?owner=Other%20Org', as: outsider })
    expect(res.statusCode).toBe(403)
  })
})

describe('standard labels', () => {
  it("are created by an owner's first lookup of a standard name; an unknown name creates nothing", async () => {
    const fresh = await t.createOwner('Fresh Community', 'Community')
    const count = async () =>
      (await t.store.db.selectFrom('security_label').select('id').where('owner_id', '=', fresh).execute()).length
    expect(await findLabelByName(t.store.db, fresh, 'TLP:PURPLE')).toBeUndefined()
    expect(await count()).toBe(0)
    expect(await findLabelByName(t.store.db, fresh, 'tlp:amber+strict')).toMatchObject({
      name: 'TLP:AMBER+STRICT',
      color: 'FFC000',
    })
    expect(await count()).toBe(6)
  })
})

describe('GET /v2/securityLabels/{name}', () => {
  it('returns one label, matching a differently cased name', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/securityLabels/TLP:Amber' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.securityLabel).toMatchObject({ name: 'TLP:AMBER', color: 'FFC000' })
  })

  it('decodes a URL-encoded name', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/securityLabels/TLP%3AAMBER%2BSTRICT' })
    expect(res.json().data.securityLabel.name).toBe('TLP:AMBER+STRICT')
  })

  it('returns 404 for an unknown label', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/securityLabels/NOPE' })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ status: 'Error', message: `Security Label 'NOPE' does not exist in ${ORG}` })
  })
})

describe('POST /v2/securityLabels (administrator convenience)', () => {
  it('defines a label with a normalized color', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/securityLabels',
      payload: { name: 'PII', description: 'Personal data', color: '#7f00ff' },
    })
    expect(res.statusCode).toBe(201)
    expect(res.json().data.securityLabel).toMatchObject({ name: 'PII', description: 'Personal data', color: '7F00FF' })
  })

  it('refuses a duplicate name (in any case) with 400', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v2/securityLabels', payload: { name: 'pii' } })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toBe(`Security Label 'pii' already exists in ${ORG}`)
  })

  it('refuses a bad color with 400', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v2/securityLabels', payload: { name: 'X', color: 'red' } })
    expect(res.statusCode).toBe(400)
  })

  it('refuses a Standard User (manageLabels is an administrator action) with 401', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v2/securityLabels',
      payload: { name: 'Mine' },
      as: standard,
    })
    expect(res.statusCode).toBe(401)
  })
})

describe('labeled items', () => {
  let incident: number
  let adversary: number
  beforeAll(async () => {
    incident = await insertGroup(orgId, 'Incident', 'Breach')
    adversary = await insertGroup(orgId, 'Adversary', 'Bad Guy')
    await label('group', incident, 'TLP:RED')
    await label('group', adversary, 'TLP:RED')
    const ind = await t.store.db
      .insertInto('indicator')
      .values({
        owner_id: orgId,
        type: 'Address',
        summary: '10.0.0.1',
        value1: '10.0.0.1',
        rating: 3,
        date_added: now,
        last_modified: now,
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
    await label('indicator', ind.id, 'TLP:RED')
    const task = await t.store.db
      .insertInto('task')
      .values({ owner_id: orgId, name: 'Triage', status: 'Not Started', date_added: now, last_modified: now } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
    await label('task', task.id, 'TLP:RED')
    const victim = await t.store.db
      .insertInto('victim')
      .values({ owner_id: orgId, name: 'Alice', org: 'Acme', date_added: now, last_modified: now } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
    await label('victim', victim.id, 'TLP:RED')
  })

  it('lists labeled Groups of every type', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/securityLabels/TLP:RED/groups' })
    expect(res.json().data).toEqual({
      resultCount: 2,
      group: [
        expect.objectContaining({
          id: incident,
          name: 'Breach',
          type: 'Incident',
          ownerName: ORG,
          webLink: `${PUBLIC_URL}/auth/incident/incident.xhtml?incident=${incident}`,
        }),
        expect.objectContaining({ id: adversary, name: 'Bad Guy', type: 'Adversary' }),
      ],
    })
  })

  it('lists one type under its own entity name, and one Group by id', async () => {
    const typed = await t.request({ method: 'GET', url: '/api/v2/securityLabels/TLP:RED/groups/incidents' })
    expect(typed.json().data).toMatchObject({ resultCount: 1, incident: [{ id: incident }] })
    const one = await t.request({
      method: 'GET',
      url: `/api/v2/securityLabels/TLP:RED/groups/adversaries/${adversary}`,
    })
    expect(one.json().data.adversary).toMatchObject({ id: adversary, name: 'Bad Guy' })
    const wrong = await t.request({
      method: 'GET',
      url: `/api/v2/securityLabels/TLP:RED/groups/incidents/${adversary}`,
    })
    expect(wrong.statusCode).toBe(404)
  })

  it('lists labeled Indicators, Tasks and Victims', async () => {
    const ind = await t.request({ method: 'GET', url: '/api/v2/securityLabels/TLP:RED/indicators/addresses/10.0.0.1' })
    expect(ind.json().data.address).toMatchObject({ summary: '10.0.0.1', type: 'Address', rating: 3 })
    const tasks = await t.request({ method: 'GET', url: '/api/v2/securityLabels/TLP:RED/tasks' })
    expect(tasks.json().data.task[0]).toMatchObject({
      name: 'Triage',
      status: 'Not Started',
      escalated: false,
      overdue: false,
    })
    const victims = await t.request({ method: 'GET', url: '/api/v2/securityLabels/TLP:RED/victims' })
    expect(victims.json().data.victim[0]).toMatchObject({ name: 'Alice', org: 'Acme' })
  })

  it('returns 404 for items under an unknown label or an unknown type', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v2/securityLabels/NOPE/groups' })).statusCode).toBe(404)
    expect((await t.request({ method: 'GET', url: '/api/v2/securityLabels/TLP:RED/groups/widgets' })).statusCode).toBe(
      404,
    )
  })
})

describe('DELETE /v2/securityLabels/{name}', () => {
  it('refuses a Read Only User with 401', async () => {
    const res = await t.request({ method: 'DELETE', url: '/api/v2/securityLabels/TLP:RED', as: reader })
    expect(res.statusCode).toBe(401)
  })

  it('removes the label from every item, and it stays deleted', async () => {
    const res = await t.request({ method: 'DELETE', url: '/api/v2/securityLabels/TLP:RED' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ apiCalls: 1, resultCount: 0, status: 'Success' })
    const left = await t.store.db.selectFrom('item_security_label').selectAll().execute()
    expect(left).toEqual([])
    expect((await t.request({ method: 'GET', url: '/api/v2/securityLabels/TLP:RED' })).statusCode).toBe(404)
    const list = await t.request({ method: 'GET', url: '/api/v2/securityLabels' })
    expect(list.json().data.securityLabel.map((l: { name: string }) => l.name)).not.toContain('TLP:RED')
  })

  it('returns 404 for an unknown label', async () => {
    expect((await t.request({ method: 'DELETE', url: '/api/v2/securityLabels/NOPE' })).statusCode).toBe(404)
  })
})
