/**
 * /v3/cases, /v3/artifacts, /v3/notes, /v3/artifactTypes and /v3/intelRequirements through
 * HTTP: writes need Organization Administrator, nested writes are all-or-nothing, fields=
 * expands tags, attributes and associations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, ORG, type TestApp, type TestAccount } from '../../test/harness.js'

let t: TestApp
let standard: TestAccount

async function call(method: string, url: string, payload?: unknown, as?: TestAccount) {
  const res = await t.request({ method: method as 'GET', url, payload: payload as Record<string, unknown>, as })
  return { status: res.statusCode, body: JSON.parse(res.body) }
}

async function count(url: string): Promise<number> {
  return (await call('GET', `${url}${url.includes('?') ? '&' : '?'}count=true`)).body.count
}

beforeAll(async () => {
  t = await createTestApp()
  standard = await t.createAccount({ role: 'Standard User' })
})
afterAll(async () => {
  await t.close()
})

describe('/v3/cases', () => {
  it('creates a case with the platform defaults and reads it back', async () => {
    const created = await call('POST', '/api/v3/cases', {
      name: 'Phishing Investigation',
      severity: 'low',
      status: 'Open',
      description: 'x',
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ message: 'Created', status: 'Success' })
    const c = created.body.data
    expect(c).toMatchObject({
      name: 'Phishing Investigation',
      severity: 'Low',
      status: 'Open',
      resolution: 'Not Specified',
      owner: ORG,
      description: 'x',
    })
    expect(c.caseOpenTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(c.createdBy.userName).toBe(t.admin.userName)
    expect((await call('GET', `/api/v3/cases/${c.id}`)).body.data).toEqual(c)
  })

  it('refuses a case without its required fields or with a bad value', async () => {
    expect((await call('POST', '/api/v3/cases', { name: 'x', severity: 'Low' })).body.message).toMatch(
      /status is required/,
    )
    expect((await call('POST', '/api/v3/cases', { name: 'x', severity: 'Dire', status: 'Open' })).body.message).toMatch(
      /severity must be one of Low, Medium, High, Critical/,
    )
    expect(
      (
        await call('POST', '/api/v3/cases', {
          name: 'x',
          severity: 'Low',
          status: 'Open',
          caseOccurrenceTime: 'yesterday',
        })
      ).status,
    ).toBe(400)
  })

  it('needs Organization Administrator to write (401 otherwise) but any member may read', async () => {
    const denied = await call('POST', '/api/v3/cases', { name: 'x', severity: 'Low', status: 'Open' }, standard)
    expect(denied.status).toBe(401)
    expect((await call('GET', '/api/v3/cases', undefined, standard)).status).toBe(200)
  })

  it('updates fields, closes with a close time, and assigns a user of the Organization', async () => {
    const id = (await call('POST', '/api/v3/cases', { name: 'To close', severity: 'High', status: 'Open' })).body.data
      .id
    const updated = await call('PUT', `/api/v3/cases/${id}`, {
      status: 'Closed',
      resolution: 'False Positive',
      assignee: { type: 'User', data: { userName: standard.userName } },
    })
    expect(updated.status).toBe(200)
    expect(updated.body.message).toBe('Updated')
    expect(updated.body.data).toMatchObject({
      status: 'Closed',
      resolution: 'False Positive',
      assignee: { type: 'User', data: { userName: standard.userName } },
    })
    expect(updated.body.data.caseCloseTime).toBeDefined()
    expect(
      (await call('PUT', `/api/v3/cases/${id}`, { assignee: { type: 'User', data: { userName: 'stranger' } } })).status,
    ).toBe(400)
    expect(
      (await call('PUT', `/api/v3/cases/${id}`, { assignee: { type: 'None' } })).body.data.assignee,
    ).toBeUndefined()
  })

  it('nests tags, attributes, artifacts, notes and associations in one create', async () => {
    const other = (await call('POST', '/api/v3/cases', { name: 'Related', severity: 'Low', status: 'Open' })).body.data
      .id
    const res = await call(
      'POST',
      '/api/v3/cases?fields=tags&fields=attributes&fields=associatedCases&fields=associatedArtifacts',
      {
        name: 'Nested',
        severity: 'Medium',
        status: 'Open',
        tags: { data: [{ name: 'phish' }, { name: 'urgent' }] },
        attributes: { data: [{ type: 'Description', value: 'What happened', default: true }] },
        artifacts: { data: [{ summary: 'badguy.com', type: 'Host', notes: { data: [{ text: 'seen in mail' }] } }] },
        notes: { data: [{ text: 'Started' }] },
        associatedCases: { data: [{ id: String(other) }] },
      },
    )
    expect(res.status).toBe(201)
    const c = res.body.data
    expect(c.tags.data.map((x: { name: string }) => x.name)).toEqual(['phish', 'urgent'])
    expect(c.attributes.data).toEqual([
      expect.objectContaining({ type: 'Description', value: 'What happened', default: true, pinned: false }),
    ])
    expect(c.associatedCases.data).toEqual([expect.objectContaining({ id: other, name: 'Related' })])
    expect(c.associatedArtifacts.data).toEqual([])
    const artifacts = (await call('GET', `/api/v3/artifacts?tql=${encodeURIComponent(`caseId = ${c.id}`)}`)).body.data
    expect(artifacts).toEqual([
      expect.objectContaining({ summary: 'badguy.com', type: 'Host', intelType: 'indicator-Host', caseId: c.id }),
    ])
    const notes = (await call('GET', `/api/v3/notes?tql=${encodeURIComponent(`caseId = ${c.id}`)}`)).body.data
    expect(notes.map((n: { text: string }) => n.text).sort()).toEqual(['Started', 'seen in mail'])
    // The association is visible from the other side too.
    const back = (await call('GET', `/api/v3/cases/${other}?fields=associatedCases`)).body.data
    expect(back.associatedCases.data.map((x: { id: number }) => x.id)).toEqual([c.id])
  })

  it('writes nothing when one nested member is invalid', async () => {
    const before = {
      cases: await count('/api/v3/cases'),
      artifacts: await count('/api/v3/artifacts'),
      tags: await count('/api/v3/tags'),
      notes: await count('/api/v3/notes'),
    }
    const res = await call('POST', '/api/v3/cases', {
      name: 'Doomed',
      severity: 'Low',
      status: 'Open',
      tags: { data: [{ name: 'doomed-tag' }] },
      artifacts: { data: [{ summary: 'x.com', type: 'Host' }] },
      notes: { data: [{ text: 'a note' }] },
      securityLabels: { data: [{ name: 'NO SUCH LABEL' }] },
    })
    expect(res.status).toBe(404)
    expect(res.body.message).toMatch(/securityLabels: Security Label 'NO SUCH LABEL' does not exist/)
    const after = {
      cases: await count('/api/v3/cases'),
      artifacts: await count('/api/v3/artifacts'),
      tags: await count('/api/v3/tags'),
      notes: await count('/api/v3/notes'),
    }
    expect(after).toEqual(before)
    const bad = await call('POST', '/api/v3/cases', {
      name: 'x',
      severity: 'Low',
      status: 'Open',
      tags: { data: [{ name: 'ok' }], mode: 'sideways' },
    })
    expect(bad.status).toBe(400)
    expect(
      (
        await call('POST', '/api/v3/cases', {
          name: 'x',
          severity: 'Low',
          status: 'Open',
          associatedVictimAssets: { data: [] },
        })
      ).status,
    ).toBe(400)
  })

  it("replaces a case's tags by default on update (case objects) and honours mode", async () => {
    const id = (
      await call('POST', '/api/v3/cases', {
        name: 'Tagged',
        severity: 'Low',
        status: 'Open',
        tags: { data: [{ name: 'a' }, { name: 'b' }] },
      })
    ).body.data.id
    const tags = async () =>
      (await call('GET', `/api/v3/cases/${id}?fields=tags`)).body.data.tags.data.map((x: { name: string }) => x.name)
    await call('PUT', `/api/v3/cases/${id}`, { tags: { data: [{ name: 'b' }, { name: 'c' }] } })
    expect(await tags()).toEqual(['b', 'c'])
    await call('PUT', `/api/v3/cases/${id}`, { tags: { data: [{ name: 'd' }], mode: 'append' } })
    expect(await tags()).toEqual(['b', 'c', 'd'])
    await call('PUT', `/api/v3/cases/${id}`, { tags: { data: [{ name: 'c' }], mode: 'delete' } })
    expect(await tags()).toEqual(['b', 'd'])
  })

  it('expands one association level with dotted sub-fields, not two', async () => {
    const a = (
      await call('POST', '/api/v3/cases', {
        name: 'A',
        severity: 'Low',
        status: 'Open',
        attributes: { data: [{ type: 'Title', value: 'T' }] },
      })
    ).body.data.id
    const b = (
      await call('POST', '/api/v3/cases', {
        name: 'B',
        severity: 'Low',
        status: 'Open',
        associatedCases: { data: [{ id: a }] },
      })
    ).body.data.id
    const res = await call('GET', `/api/v3/cases/${b}?fields=associatedCases.attributes`)
    expect(res.body.data.associatedCases.data[0].attributes.data[0]).toMatchObject({ type: 'Title', value: 'T' })
    expect((await call('GET', `/api/v3/cases/${b}?fields=associatedCases.associatedCases`)).status).toBe(400)
  })

  it('deletes a case with its artifacts and notes', async () => {
    const id = (
      await call('POST', '/api/v3/cases', {
        name: 'Gone',
        severity: 'Low',
        status: 'Open',
        artifacts: { data: [{ summary: 'gone.com', type: 'Host' }] },
        notes: { data: [{ text: 'bye' }] },
      })
    ).body.data.id
    expect(await call('DELETE', `/api/v3/cases/${id}`)).toEqual({
      status: 200,
      body: { message: 'Deleted', status: 'Success' },
    })
    expect((await call('GET', `/api/v3/cases/${id}`)).status).toBe(404)
    expect(await count(`/api/v3/artifacts?tql=${encodeURIComponent(`caseId = ${id}`)}`)).toBe(0)
  })

  it('bulk deletes matching cases when enabled', async () => {
    await call('POST', '/api/v3/cases', { name: 'bulk one', severity: 'Critical', status: 'Open' })
    await call('POST', '/api/v3/cases', { name: 'bulk two', severity: 'Critical', status: 'Open' })
    const url = `/api/v3/cases?tql=${encodeURIComponent('severity = "Critical"')}`
    expect((await call('DELETE', url)).status).toBe(400)
    await t.services.settings.set('bulkDeleteEnabled', 'true')
    try {
      expect((await call('DELETE', url)).body).toEqual({ count: 2, message: 'Deleted', status: 'Success' })
    } finally {
      await t.services.settings.set('bulkDeleteEnabled', 'false')
    }
  })
})

describe('/v3/artifacts and /v3/artifactTypes', () => {
  it('creates, updates and deletes an artifact in a case; type and case are fixed', async () => {
    const caseId = (await call('POST', '/api/v3/cases', { name: 'Evidence', severity: 'Low', status: 'Open' })).body
      .data.id
    expect(
      (await call('POST', '/api/v3/artifacts', { summary: 'a@b.com', type: 'Email Address' })).body.message,
    ).toMatch(/caseId/)
    expect(
      (await call('POST', '/api/v3/artifacts', { caseId, summary: 'a@b.com', type: 'Nope' })).body.message,
    ).toMatch(/Unknown artifact type/)
    const created = await call('POST', '/api/v3/artifacts', {
      caseId,
      summary: 'a@b.com',
      type: 'Email Address',
      source: 'mail',
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({
      caseId,
      summary: 'a@b.com',
      type: 'Email Address',
      intelType: 'indicator-EmailAddress',
      source: 'mail',
    })
    const id = created.body.data.id
    expect((await call('PUT', `/api/v3/artifacts/${id}`, { summary: 'c@d.com' })).body.data.summary).toBe('c@d.com')
    expect((await call('PUT', `/api/v3/artifacts/${id}`, { type: 'Host' })).status).toBe(400)
    expect((await call('POST', '/api/v3/artifacts', { caseId, summary: 'x', type: 'Host' }, standard)).status).toBe(401)
    expect((await call('DELETE', `/api/v3/artifacts/${id}`)).status).toBe(200)
    expect((await call('GET', `/api/v3/artifacts/${id}`)).status).toBe(404)
  })

  it('lists artifact types read-only', async () => {
    const res = await call('GET', '/api/v3/artifactTypes?resultLimit=100')
    expect(res.body.data).toContainEqual({
      id: expect.any(Number),
      name: 'Email Address',
      dataType: 'String',
      intelType: 'indicator-EmailAddress',
      active: true,
    })
    expect((await call('DELETE', `/api/v3/artifactTypes/${res.body.data[0].id}`)).status).toBe(400)
  })
})

describe('/v3/notes', () => {
  it('writes notes on exactly one parent and edits their text', async () => {
    const caseId = (await call('POST', '/api/v3/cases', { name: 'Noted', severity: 'Low', status: 'Open' })).body.data
      .id
    expect((await call('POST', '/api/v3/notes', { text: 'orphan' })).status).toBe(400)
    const note = (await call('POST', '/api/v3/notes', { caseId, text: 'first' })).body.data
    expect(note).toMatchObject({ caseId, text: 'first', author: t.admin.userName, edited: false })
    expect((await call('PUT', `/api/v3/notes/${note.id}`, { text: '' })).status).toBe(400)
    expect((await call('PUT', `/api/v3/notes/${note.id}`, { text: 'second' })).body.data.text).toBe('second')
    expect((await call('DELETE', `/api/v3/notes/${note.id}`, undefined, standard)).status).toBe(401)
    expect((await call('DELETE', `/api/v3/notes/${note.id}`)).status).toBe(200)
  })
})

describe('/v3/intelRequirements', () => {
  const body = {
    uniqueId: 'IR-010',
    requirementText: 'Threats to Medical Device Companies',
    subtype: { id: 1 },
    category: { name: 'CISO Priorities' },
    keywordSections: [{ compareValue: 'includes', keywords: [{ value: 'healthcare' }], sectionNumber: 0 }],
    tags: { data: [{ name: 'medical' }] },
  }

  it('creates a requirement with subtype, category, keyword sections and tags', async () => {
    const res = await call('POST', '/api/v3/intelRequirements?fields=tags', body)
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({
      uniqueId: 'IR-010',
      requirementText: 'Threats to Medical Device Companies',
      subtype: { id: 1, name: 'Intelligence Requirement (IR)' },
      category: { name: 'CISO Priorities' },
      keywordSections: [{ compareValue: 'includes', keywords: [{ value: 'healthcare' }] }],
      resetResults: false,
      tags: { data: [expect.objectContaining({ name: 'medical' })] },
    })
    expect(res.body.data.createdBy.userName).toBe(t.admin.userName)
  })

  it('refuses a duplicate unique id, a missing subtype and bad keyword sections', async () => {
    expect(
      (await call('POST', '/api/v3/intelRequirements', { ...body, requirementText: 'other' })).body.message,
    ).toMatch(/IR-010/)
    expect(
      (
        await call('POST', '/api/v3/intelRequirements', {
          ...body,
          uniqueId: 'IR-2',
          requirementText: 'b',
          subtype: undefined,
        })
      ).status,
    ).toBe(400)
    expect(
      (
        await call('POST', '/api/v3/intelRequirements', {
          ...body,
          uniqueId: 'IR-3',
          requirementText: 'c',
          keywordSections: [{ compareValue: 'maybe', keywords: [] }],
        })
      ).status,
    ).toBe(400)
  })

  it('associates cases and lists them through fields', async () => {
    const caseId = (await call('POST', '/api/v3/cases', { name: 'IR case', severity: 'Low', status: 'Open' })).body.data
      .id
    const ir = (
      await call('POST', '/api/v3/intelRequirements', {
        ...body,
        uniqueId: 'IR-4',
        requirementText: 'd',
        associatedCases: { data: [{ id: caseId }] },
      })
    ).body.data
    const read = await call('GET', `/api/v3/intelRequirements/${ir.id}?fields=associatedCases`)
    expect(read.body.data.associatedCases.data.map((c: { id: number }) => c.id)).toEqual([caseId])
    const updated = await call('PUT', `/api/v3/intelRequirements/${ir.id}?fields=associatedCases`, {
      associatedCases: { data: [{ id: caseId }], mode: 'delete' },
    })
    expect(updated.body.data.associatedCases.data).toEqual([])
  })
})
