/**
 * /v3/tags, /v3/securityLabels, /v3/attributeTypes, the four attribute endpoints and
 * /v3/security/owners and /v3/security/users, through HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, ORG, type TestApp, type TestAccount } from '../../test/harness.js'
import { createTestGroup } from '../../test/factories.js'

let t: TestApp
let standard: TestAccount
let groupId: number

async function call(method: string, url: string, payload?: unknown, as?: TestAccount) {
  const res = await t.request({ method: method as 'GET', url, payload: payload as Record<string, unknown>, as })
  return { status: res.statusCode, body: JSON.parse(res.body) }
}

beforeAll(async () => {
  t = await createTestApp()
  standard = await t.createAccount({ role: 'Standard User' })
  groupId = await createTestGroup(t, { type: 'Adversary', name: 'Bad Guy' })
})
afterAll(async () => {
  await t.close()
})

describe('/v3/tags', () => {
  it('creates, renames, describes and deletes a tag; duplicate names are 400', async () => {
    const created = await call('POST', '/api/v3/tags', { name: 'Ransomware', description: 'Encrypts files' })
    expect(created).toMatchObject({
      status: 201,
      body: { data: { name: 'Ransomware', owner: ORG, description: 'Encrypts files' }, message: 'Created' },
    })
    const id = created.body.data.id
    expect((await call('POST', '/api/v3/tags', { name: 'Ransomware' })).status).toBe(400)
    expect((await call('POST', '/api/v3/tags', { name: 'x'.repeat(129) })).body.message).toMatch(/128/)
    expect((await call('PUT', `/api/v3/tags/${id}`, { name: 'Crypto Ransomware' })).body.data.name).toBe(
      'Crypto Ransomware',
    )
    expect(
      (await call('GET', `/api/v3/tags?tql=${encodeURIComponent('name = "crypto ransomware"')}`)).body.data.map(
        (x: { id: number }) => x.id,
      ),
    ).toEqual([id])
    expect((await call('DELETE', `/api/v3/tags/${id}`)).status).toBe(200)
    expect((await call('GET', `/api/v3/tags/${id}`)).status).toBe(404)
  })

  it('lets a Standard User manage tags', async () => {
    expect((await call('POST', '/api/v3/tags', { name: 'by standard' }, standard)).status).toBe(201)
  })
})

describe('/v3/securityLabels', () => {
  it("lists the owner's labels, the standard TLP ones included, read-only", async () => {
    const res = await call('GET', '/api/v3/securityLabels?count=true')
    expect(res.body.count).toBe(6)
    expect(res.body.data.map((l: { name: string }) => l.name)).toContain('TLP:AMBER')
    expect(res.body.data[0]).toMatchObject({ name: 'TLP:RED', color: 'FF2B2B', owner: ORG })
    const amber = await call('GET', `/api/v3/securityLabels?tql=${encodeURIComponent('name = "tlp:amber"')}`)
    expect(amber.body.data.map((l: { name: string }) => l.name)).toEqual(['TLP:AMBER'])
    expect((await call('PUT', `/api/v3/securityLabels/${res.body.data[0].id}`, { name: 'x' })).status).toBe(400)
  })
})

describe('/v3/attributeTypes', () => {
  it('lists system attribute types with their rules and, on request, their mappings', async () => {
    const res = await call('GET', '/api/v3/attributeTypes?resultLimit=100&fields=mapping')
    const phase = res.body.data.find((x: { name: string }) => x.name === 'Attack Phase')
    expect(phase).toMatchObject({
      maxSize: 100,
      validationRule: { type: 'selectone' },
      attributeTypeMappings: { data: [{ itemType: 'Indicator' }, { itemType: 'Group' }] },
    })
    expect((await call('GET', `/api/v3/attributeTypes/${phase.id}`)).body.data.attributeTypeMappings).toBeUndefined()
  })
})

describe('attribute endpoints', () => {
  it('adds, lists, changes and deletes a group attribute, with labels', async () => {
    const created = await call('POST', '/api/v3/groupAttributes?fields=securityLabels', {
      groupId,
      type: 'Description',
      value: 'A very bad adversary',
      source: 'report',
      default: true,
      securityLabels: { data: [{ name: 'TLP:GREEN' }] },
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({
      groupId,
      type: 'Description',
      value: 'A very bad adversary',
      source: 'report',
      default: true,
      pinned: false,
      securityLabels: { data: [expect.objectContaining({ name: 'TLP:GREEN' })] },
    })
    expect(created.body.data.createdBy.userName).toBe(t.admin.userName)
    const id = created.body.data.id
    const listed = await call('GET', `/api/v3/groupAttributes?tql=${encodeURIComponent(`groupId = ${groupId}`)}`)
    expect(listed.body.data.map((a: { id: number }) => a.id)).toEqual([id])
    const updated = await call('PUT', `/api/v3/groupAttributes/${id}?fields=securityLabels`, {
      value: 'Changed',
      pinned: true,
      securityLabels: { data: [{ name: 'TLP:GREEN' }], mode: 'delete' },
    })
    expect(updated.body.data).toMatchObject({ value: 'Changed', pinned: true, securityLabels: { data: [] } })
    expect((await call('GET', `/api/v3/caseAttributes/${id}`)).status).toBe(404)
    expect((await call('DELETE', `/api/v3/groupAttributes/${id}`)).status).toBe(200)
    expect((await call('GET', `/api/v3/groupAttributes/${id}`)).status).toBe(404)
  })

  it('refuses bad attributes and writes nothing', async () => {
    expect((await call('POST', '/api/v3/groupAttributes', { type: 'Description', value: 'x' })).body.message).toMatch(
      /groupId is required/,
    )
    expect((await call('POST', '/api/v3/groupAttributes', { groupId, type: 'No Such Type', value: 'x' })).status).toBe(
      400,
    )
    expect(
      (await call('POST', '/api/v3/groupAttributes', { groupId, type: 'Attack Phase', value: 'Lunch' })).status,
    ).toBe(400)
    const labelled = await call('POST', '/api/v3/groupAttributes', {
      groupId,
      type: 'Title',
      value: 't',
      securityLabels: { data: [{ name: 'Missing' }] },
    })
    expect(labelled.status).toBe(404)
    expect((await call('GET', '/api/v3/groupAttributes?count=true')).body.count).toBe(0)
    expect(
      (
        await call(
          'POST',
          '/api/v3/groupAttributes',
          { groupId, type: 'Title', value: 't' },
          await t.createAccount({ role: 'Read Only User' }),
        )
      ).status,
    ).toBe(401)
  })

  it('adds case attributes with the case-management permission', async () => {
    const caseId = (await call('POST', '/api/v3/cases', { name: 'c', severity: 'Low', status: 'Open' })).body.data.id
    expect((await call('POST', '/api/v3/caseAttributes', { caseId, type: 'Title', value: 'T' }, standard)).status).toBe(
      401,
    )
    const res = await call('POST', '/api/v3/caseAttributes', { caseId, type: 'Title', value: 'T' })
    expect(res.body.data).toMatchObject({ caseId, type: 'Title', value: 'T' })
  })
})

describe('/v3/security/owners', () => {
  it("lists the caller's owners with role and permission vector", async () => {
    await t.createOwner('Intel Community', 'Community')
    const member = await t.createAccount({ role: 'Standard User', memberships: { 'Intel Community': 'Director' } })
    const res = await call('GET', '/api/v3/security/owners', undefined, member)
    expect(res.body.data).toHaveLength(2)
    expect(res.body.data[0]).toMatchObject({
      name: ORG,
      type: 'Organization',
      ownerRole: 'Standard User',
      permIndicator: 'FULL',
      permUsers: 'READ',
      permArtifact: 'READ',
      permApps: 'NONE',
      permPublish: 'NONE',
    })
    expect(res.body.data[1]).toMatchObject({
      name: 'Intel Community',
      type: 'Community',
      ownerRole: 'Director',
      permUsers: 'FULL',
      permMembers: 'FULL',
      permArtifact: 'NONE',
      permPlaybooks: 'NONE',
      permPublish: 'FULL',
    })
    const admin = (await call('GET', '/api/v3/security/owners/1')).body.data
    expect(admin).toMatchObject({
      ownerRole: 'Organization Administrator',
      permApps: 'BUILD',
      permMembers: 'READ',
      permArtifact: 'FULL',
    })
    expect((await call('GET', '/api/v3/security/owners/99')).status).toBe(404)
  })
})

describe('/v3/security/users', () => {
  it('shows basic fields to everyone and details to Organization Administrators', async () => {
    const basic = await call('GET', '/api/v3/security/users', undefined, standard)
    expect(basic.body.data[0]).toEqual({
      id: 1,
      userName: t.admin.userName,
      firstName: 'Test',
      lastName: 'User 1',
      owner: ORG,
    })
    const detailed = await call('GET', '/api/v3/security/users/1')
    expect(detailed.body.data).toMatchObject({
      systemRole: 'Api User',
      ownerRoles: { [ORG]: 'Organization Administrator' },
      disabled: false,
      locked: false,
    })
  })

  it('lets an Organization Administrator create, update and delete users', async () => {
    const created = await call('POST', '/api/v3/security/users', {
      userName: 'smithj@example.org',
      firstName: 'John',
      lastName: 'Smith',
      password: 'Password1!x',
      owner: ORG,
      ownerRoles: { [ORG]: 'Sharing User' },
      systemRole: 'User',
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({
      userName: 'smithj@example.org',
      systemRole: 'User',
      ownerRoles: { [ORG]: 'Sharing User' },
    })
    const id = created.body.data.id
    const updated = await call('PUT', `/api/v3/security/users/${id}`, {
      pseudonym: 'JS',
      disabled: true,
      ownerRoles: { [ORG]: 'Read Only User' },
    })
    expect(updated.body.data).toMatchObject({
      pseudonym: 'JS',
      disabled: true,
      ownerRoles: { [ORG]: 'Read Only User' },
    })
    expect((await call('DELETE', `/api/v3/security/users/${id}`)).status).toBe(200)
    expect((await call('GET', `/api/v3/security/users/${id}`)).status).toBe(404)
  })

  it('refuses user management to others and protected system roles to everyone', async () => {
    const body = {
      userName: 'x@y.z',
      firstName: 'X',
      lastName: 'Y',
      password: 'Password1!x',
      ownerRoles: { [ORG]: 'Standard User' },
      systemRole: 'User',
    }
    expect((await call('POST', '/api/v3/security/users', body, standard)).status).toBe(401)
    expect((await call('POST', '/api/v3/security/users', { ...body, systemRole: 'Administrator' })).status).toBe(401)
    expect(
      (await call('POST', '/api/v3/security/users', { ...body, ownerRoles: { 'Intel Community': 'Editor' } })).status,
    ).toBe(400)
    expect((await call('POST', '/api/v3/security/users', { ...body, firstName: undefined })).body.message).toMatch(
      /firstName is required/,
    )
  })
})
