/**
 * /v3/groups, /v3/victims, /v3/victimAssets and /v3/tasks through HTTP: default fields,
 * PUT of changed fields only, nested writes (all-or-nothing, cross-owner rules), TQL and
 * bulk delete, owners and permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, ORG, type TestAccount, type TestApp } from '../../test/harness.js'

let t: TestApp
let readOnly: TestAccount
/** Organization Administrator in ORG and Director in the Community. */
let member: TestAccount
const COMMUNITY = 'Shared Community'

async function call(method: string, url: string, payload?: unknown, as?: TestAccount) {
  const res = await t.request({ method: method as 'GET', url, payload: payload as Record<string, unknown>, as })
  return { status: res.statusCode, body: JSON.parse(res.body) }
}
const tql = (text: string) => encodeURIComponent(text)

beforeAll(async () => {
  t = await createTestApp()
  readOnly = await t.createAccount({ role: 'Read Only User' })
  await t.createOwner(COMMUNITY, 'Community')
  member = await t.createAccount({ role: 'Organization Administrator', memberships: { [COMMUNITY]: 'Director' } })
})
afterAll(async () => {
  await t.close()
})

describe('/v3/groups', () => {
  it('creates an Incident with the default fields, createdBy and string vote counts', async () => {
    const res = await call('POST', '/api/v3/groups', {
      type: 'Incident',
      name: 'Breach',
      eventDate: '2024-03-01T00:00:00Z',
      status: 'open',
    })
    expect(res.status).toBe(201)
    const g = res.body.data
    expect(g).toMatchObject({
      type: 'Incident',
      name: 'Breach',
      ownerName: ORG,
      status: 'Open',
      eventDate: '2024-03-01T00:00:00Z',
      upVoteCount: '0',
      downVoteCount: '0',
      createdBy: { userName: t.admin.userName },
    })
    expect(g.xid).toBeTruthy()
    expect(g.legacyLink).toContain(`/auth/incident/incident.xhtml?incident=${g.id}`)
    expect((await call('POST', '/api/v3/groups', { type: 'Incident', name: 'No date' })).body.message).toMatch(
      /eventDate is required/,
    )
    const untyped = await call('POST', '/api/v3/groups', { name: 'No type' })
    expect(untyped).toMatchObject({
      status: 400,
      body: { errCode: '0x1001', status: 'Error', message: expect.stringMatching(/A Group needs a 'type'/) },
    })
  })

  it('updates only what is sent (a Signature need not repeat its fields) and refuses a type change', async () => {
    const id = (
      await call('POST', '/api/v3/groups', {
        type: 'Signature',
        name: 'Sig',
        fileName: 's.yar',
        fileType: 'YARA',
        fileText: 'rule x {}',
      })
    ).body.data.id
    const res = await call('PUT', `/api/v3/groups/${id}`, { name: 'Sig 2' })
    expect(res.body).toMatchObject({ message: 'Updated', data: { name: 'Sig 2', fileName: 's.yar', fileType: 'YARA' } })
    const retyped = await call('PUT', `/api/v3/groups/${id}`, { type: 'Adversary' })
    expect(retyped).toMatchObject({
      status: 400,
      body: { status: 'Error', message: `The type of a Group cannot change (Group ${id} is a Signature)` },
    })
    expect((await call('GET', `/api/v3/groups/${id}`)).body.data).toMatchObject({ type: 'Signature', name: 'Sig 2' })
  })

  it('answers sightings, externalDates and insights when asked', async () => {
    const id = (await call('POST', '/api/v3/groups', { type: 'Report', name: 'R', fileName: 'r.pdf' })).body.data.id
    // The v3 body cannot set these: they come from the platform's own processing.
    await t.store.db
      .updateTable('intel_group')
      .set({
        first_seen: '2024-01-01T00:00:00.000Z',
        last_seen: '2024-02-01T00:00:00.000Z',
        external_date_added: '2023-01-01T00:00:00.000Z',
        insights: 'Short summary',
      })
      .where('id', '=', id)
      .execute()
    const plain = await call('GET', `/api/v3/groups/${id}`)
    expect(plain.body.data).not.toHaveProperty('firstSeen')
    expect(plain.body.data).not.toHaveProperty('insights')
    const res = await call(
      'GET',
      `/api/v3/groups/${id}?fields=sightings&fields=externalDates&fields=insights&fields=tags&fields=associatedVictimAssets`,
    )
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({
      status: 'Awaiting Upload',
      tags: { data: [] },
      associatedVictimAssets: { data: [] },
      firstSeen: '2024-01-01T00:00:00Z',
      lastSeen: '2024-02-01T00:00:00Z',
      externalDateAdded: '2023-01-01T00:00:00Z',
      insights: { summary: 'Short summary' },
    })
    const whoIs = await call('GET', `/api/v3/groups/${id}?fields=whoIs`)
    expect(whoIs).toMatchObject({
      status: 400,
      body: { message: "fields: 'whoIs' is not available on /v3/groups; see OPTIONS /v3/groups/fields" },
    })
  })

  it('nests groups into a new group and rolls everything back when one member is invalid', async () => {
    const ok = await call('POST', '/api/v3/groups?fields=associatedGroups&fields=tags', {
      type: 'Adversary',
      name: 'Parent',
      tags: { data: [{ name: 'x' }] },
      associatedGroups: { data: [{ type: 'Threat', name: 'Child' }] },
    })
    expect(ok.body.data.associatedGroups.data).toEqual([expect.objectContaining({ type: 'Threat', name: 'Child' })])
    const count = async () =>
      (await call('GET', `/api/v3/groups?count=true&tql=${tql('name startswith "Roll"')}`)).body.count
    const before = await count()
    const bad = await call('POST', '/api/v3/groups', {
      type: 'Adversary',
      name: 'Roll parent',
      associatedIndicators: {
        data: [
          { type: 'Host', hostName: 'roll-a.example' },
          { type: 'Host', hostName: 'roll-b.example' },
          { type: 'Host', hostName: 'not a host!' },
        ],
      },
    })
    expect(bad.status).toBe(400)
    expect(await count()).toBe(before)
    expect((await call('GET', '/api/v3/indicators/roll-a.example')).status).toBe(404)
  })

  it('creates a nested Group in another owner named by ownerName, and 403s an owner= the caller cannot use', async () => {
    const res = await call(
      'POST',
      '/api/v3/groups?fields=associatedGroups',
      {
        type: 'Adversary',
        name: 'Cross',
        associatedGroups: { data: [{ type: 'Threat', name: 'In community', ownerName: COMMUNITY }] },
      },
      member,
    )
    expect(res.status).toBe(201)
    expect(res.body.data.associatedGroups.data[0]).toMatchObject({ name: 'In community', ownerName: COMMUNITY })
    expect((await call('GET', '/api/v3/groups?owner=Nowhere')).status).toBe(403)
    expect((await call('POST', '/api/v3/groups', { type: 'Adversary', name: 'ro' }, readOnly)).status).toBe(401)
  })

  it('lists by hasIndicator and bulk deletes by TQL when enabled', async () => {
    await call('POST', '/api/v3/groups', {
      type: 'Adversary',
      name: 'Bulk G1',
      associatedIndicators: { data: [{ type: 'Host', hostName: 'bulkg.example' }] },
    })
    await call('POST', '/api/v3/groups', { type: 'Adversary', name: 'Bulk G2' })
    const linked = await call('GET', `/api/v3/groups?tql=${tql('hasIndicator(summary = "bulkg.example")')}`)
    expect(linked.body.data.map((g: { name: string }) => g.name)).toEqual(['Bulk G1'])
    const url = `/api/v3/groups?tql=${tql('name startswith "Bulk G"')}`
    expect((await call('DELETE', url)).status).toBe(400)
    await t.services.settings.set('bulkDeleteEnabled', 'true')
    try {
      expect((await call('DELETE', url)).body.count).toBe(2)
    } finally {
      await t.services.settings.set('bulkDeleteEnabled', 'false')
    }
  })
})

describe('/v3/victims and /v3/victimAssets', () => {
  it('creates a victim with nested assets and a same-owner group association', async () => {
    const groupId = (await call('POST', '/api/v3/groups', { type: 'Adversary', name: 'Targeter' })).body.data.id
    const res = await call('POST', '/api/v3/victims?fields=assets&fields=associatedGroups', {
      name: 'HR',
      org: 'Example',
      assets: { data: [{ type: 'EmailAddress', address: 'hr@example.com', addressType: 'work' }] },
      associatedGroups: { data: [{ id: groupId }] },
    })
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ name: 'HR', org: 'Example', ownerName: ORG })
    expect(res.body.data.assets.data).toEqual([
      expect.objectContaining({ type: 'EmailAddress', address: 'hr@example.com', addressType: 'work' }),
    ])
    expect(res.body.data.associatedGroups.data.map((g: { id: number }) => g.id)).toEqual([groupId])
    const renamed = await call('PUT', `/api/v3/victims/${res.body.data.id}`, { nationality: 'Dutch' })
    expect(renamed.body.data).toMatchObject({ name: 'HR', nationality: 'Dutch' })
  })

  it('refuses a cross-owner group association for a victim asset and writes nothing', async () => {
    const victimId = (
      await call(
        'POST',
        '/api/v3/victims',
        { name: 'Ops', assets: { data: [{ type: 'WebSite', website: 'ops.example' }] } },
        member,
      )
    ).body.data.id
    const foreign = (
      await call(
        'POST',
        `/api/v3/groups?owner=${encodeURIComponent(COMMUNITY)}`,
        { type: 'Adversary', name: 'Foreign' },
        member,
      )
    ).body.data.id
    const bad = await call(
      'POST',
      '/api/v3/victimAssets',
      {
        type: 'NetworkAccount',
        victimId,
        accountName: 'jdoe',
        networkType: 'AD',
        associatedGroups: {
          data: [{ type: 'Adversary', name: 'Local ok' }, { type: 'Adversary', name: 'Local ok 2' }, { id: foreign }],
        },
      },
      member,
    )
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/within their own owner/)
    expect((await call('GET', `/api/v3/victimAssets?count=true&tql=${tql(`victimId = ${victimId}`)}`)).body.count).toBe(
      1,
    )
    expect((await call('GET', `/api/v3/groups?count=true&tql=${tql('name = "Local ok"')}`)).body.count).toBe(0)
    const ok = await call('POST', '/api/v3/victimAssets?fields=associatedGroups', {
      type: 'NetworkAccount',
      victimId,
      accountName: 'jdoe',
      networkType: 'AD',
    })
    expect(ok.body.data).toMatchObject({
      type: 'NetworkAccount',
      victimId,
      accountName: 'jdoe',
      networkType: 'AD',
      associatedGroups: { data: [] },
    })
    const updated = await call('PUT', `/api/v3/victimAssets/${ok.body.data.id}`, { networkType: 'LDAP' })
    expect(updated.body.data).toMatchObject({ accountName: 'jdoe', networkType: 'LDAP' })
    expect((await call('DELETE', `/api/v3/victimAssets/${ok.body.data.id}`)).body.message).toBe('Deleted')
  })

  it('lists victims by TQL and deletes one', async () => {
    const id = (await call('POST', '/api/v3/victims', { name: 'Gone victim' })).body.data.id
    expect(
      (await call('GET', `/api/v3/victims?tql=${tql('name = "gone victim"')}`)).body.data.map(
        (v: { id: number }) => v.id,
      ),
    ).toEqual([id])
    expect((await call('DELETE', `/api/v3/victims/${id}`)).status).toBe(200)
    expect((await call('GET', `/api/v3/victims/${id}`)).status).toBe(404)
  })
})

describe('/v3/tasks', () => {
  it('creates, assigns, updates and deletes a task', async () => {
    const res = await call('POST', '/api/v3/tasks?fields=tags', {
      name: 'Triage',
      dueDate: '2020-01-01T00:00:00Z',
      assignee: { type: 'User', data: { userName: t.admin.userName } },
      tags: { data: [{ name: 'todo' }] },
    })
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({
      name: 'Triage',
      status: 'Not Started',
      overdue: true,
      assignee: { type: 'User', data: { userName: t.admin.userName } },
      tags: { data: [expect.objectContaining({ name: 'todo' })] },
    })
    const id = res.body.data.id
    expect((await call('PUT', `/api/v3/tasks/${id}`, { status: 'Completed' })).body.data).toMatchObject({
      status: 'Completed',
      overdue: false,
      name: 'Triage',
    })
    expect((await call('PUT', `/api/v3/tasks/${id}`, { status: 'Bogus' })).status).toBe(400)
    expect(
      (await call('GET', `/api/v3/tasks?tql=${tql('status = "Completed"')}`)).body.data.map(
        (x: { id: number }) => x.id,
      ),
    ).toContain(id)
    expect((await call('DELETE', `/api/v3/tasks/${id}`)).status).toBe(200)
    expect((await call('POST', '/api/v3/tasks', { name: 'ro' }, readOnly)).status).toBe(401)
  })
})
