import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../../test/harness.js'

let t: TestApp
let readOnly: TestAccount
beforeAll(async () => {
  t = await createTestApp()
  readOnly = await t.createAccount({ role: 'Read Only User' })
})
afterAll(async () => {
  await t.close()
})

async function create(branch: string, entity: string, body: Record<string, unknown>): Promise<number> {
  const res = await t.request({ method: 'POST', url: `/api/v2/groups/${branch}`, payload: body })
  expect(res.statusCode).toBe(201)
  return res.json().data[entity].id
}

const upload = (branch: string, id: number, body: Buffer | string, method: 'POST' | 'PUT' = 'POST', qs = '') =>
  t.request({
    method,
    url: `/api/v2/groups/${branch}/${id}/upload${qs}`,
    payload: body,
    headers: { 'content-type': 'application/octet-stream' },
  })

describe('Document and Report content', () => {
  it('uploads, marks the Document Success and downloads the same bytes', async () => {
    const id = await create('documents', 'document', { name: 'Notes', fileName: 'notes.bin' })
    expect((await t.request({ method: 'GET', url: `/api/v2/groups/documents/${id}/download` })).statusCode).toBe(404)
    const bytes = Buffer.from([0, 1, 2, 250, 255, 10])
    const res = await upload('documents', id, bytes)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ apiCalls: 1, resultCount: 1, status: 'Success' })
    const doc = (await t.request({ method: 'GET', url: `/api/v2/groups/documents/${id}` })).json().data.document
    expect(doc).toMatchObject({ status: 'Success', fileSize: 6 })
    const download = await t.request({ method: 'GET', url: `/api/v2/groups/documents/${id}/download` })
    expect(download.statusCode).toBe(200)
    expect(download.headers['content-type']).toBe('application/octet-stream')
    expect(download.headers['content-disposition']).toBe('attachment; filename="notes.bin"')
    expect(download.rawPayload.equals(bytes)).toBe(true)
  })

  it('refuses a second POST but replaces with PUT or updateIfExists=true (as tcex sends)', async () => {
    const id = await create('reports', 'report', { name: 'Q1', fileName: 'q1.txt' })
    expect((await upload('reports', id, 'first')).statusCode).toBe(200)
    const again = await upload('reports', id, 'second')
    expect(again.statusCode).toBe(400)
    expect(again.json().message).toBe(
      `Report ${id} already has content; use PUT (or updateIfExists=true) to replace it`,
    )
    expect((await upload('reports', id, 'second', 'PUT')).statusCode).toBe(200)
    expect((await t.request({ method: 'GET', url: `/api/v2/groups/reports/${id}/download` })).body).toBe('second')
    expect((await upload('reports', id, 'third', 'POST', '?updateIfExists=true')).statusCode).toBe(200)
    expect((await t.request({ method: 'GET', url: `/api/v2/groups/reports/${id}/download` })).body).toBe('third')
  })

  it('reads the body raw whatever the Content-Type', async () => {
    const id = await create('documents', 'document', { name: 'J', fileName: 'j.json' })
    const res = await t.request({
      method: 'PUT',
      url: `/api/v2/groups/documents/${id}/upload`,
      payload: '{"not":"parsed"}',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.statusCode).toBe(200)
    expect((await t.request({ method: 'GET', url: `/api/v2/groups/documents/${id}/download` })).body).toBe(
      '{"not":"parsed"}',
    )
  })

  it('accepts only zip archives for malware Documents', async () => {
    const id = await create('documents', 'document', {
      name: 'sample.exe',
      fileName: 'sample.zip',
      malware: true,
      password: 'infected',
    })
    const plain = await upload('documents', id, 'MZ\x90\x00 raw executable')
    expect(plain.statusCode).toBe(400)
    expect(plain.json().message).toBe('A malware Document must be uploaded as a password-protected zip archive')
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(30)])
    expect((await upload('documents', id, zip)).statusCode).toBe(200)
  })

  it('enforces the documentMaxBytes setting with 413', async () => {
    await t.services.settings.set('documentMaxBytes', '10')
    try {
      const id = await create('documents', 'document', { name: 'Big', fileName: 'big.bin' })
      const res = await upload('documents', id, 'x'.repeat(11))
      expect(res.statusCode).toBe(413)
      expect(res.json().message).toBe('The file is 11 bytes; the limit is 10 bytes')
    } finally {
      await t.services.settings.set('documentMaxBytes', String(50 * 1024 * 1024))
    }
  })

  it('refuses empty uploads, other Group types and read-only callers', async () => {
    const doc = await create('documents', 'document', { name: 'E', fileName: 'e' })
    expect((await upload('documents', doc, '')).statusCode).toBe(400)
    const threat = await create('threats', 'threat', { name: 'T' })
    expect((await upload('threats', threat, 'x')).statusCode).toBe(404)
    expect((await upload('documents', threat, 'x')).statusCode).toBe(404)
    const denied = await t.request({
      method: 'POST',
      url: `/api/v2/groups/documents/${doc}/upload`,
      payload: 'x',
      headers: { 'content-type': 'application/octet-stream' },
      as: readOnly,
    })
    expect(denied.statusCode).toBe(401)
  })
})

describe('GET /v2/groups/signatures/{id}/download', () => {
  it('returns the signature text as text/plain', async () => {
    const id = await create('signatures', 'signature', {
      name: 'R',
      fileName: 'r.yar',
      fileType: 'YARA',
      fileText: 'rule r { condition: true }',
    })
    const res = await t.request({ method: 'GET', url: `/api/v2/groups/signatures/${id}/download` })
    expect(res.statusCode).toBe(200)
    // Exactly text/plain: the v2 SDK compares the type for equality before it keeps the download.
    expect(res.headers['content-type']).toBe('text/plain')
    expect(res.body).toBe('rule r { condition: true }')
  })
})

describe('GET /v2/groups/{type}/{id}/pdf', () => {
  it('returns a well-formed one-page PDF naming the Group', async () => {
    const id = await create('incidents', 'incident', {
      name: 'Breach (east) \\ café ☃',
      eventDate: '2024-02-03T00:00:00Z',
    })
    await t.request({ method: 'POST', url: `/api/v2/groups/incidents/${id}/tags/Urgent` })
    const res = await t.request({ method: 'GET', url: `/api/v2/groups/incidents/${id}/pdf` })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/pdf')
    const pdf = res.rawPayload.toString('latin1')
    expect(pdf.startsWith('%PDF-1.4\n')).toBe(true)
    expect(pdf.trimEnd().endsWith('%%EOF')).toBe(true)
    expect(pdf).toContain('(Name: Breach \\(east\\) \\\\ caf\xe9 ?) Tj')
    expect(pdf).toContain('(Tags: Urgent) Tj')
    const startxref = Number(/startxref\n(\d+)\n/.exec(pdf)![1])
    expect(pdf.slice(startxref, startxref + 4)).toBe('xref')
    const offsets = [...pdf.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]))
    offsets.forEach((offset, i) => expect(pdf.slice(offset).startsWith(`${i + 1} 0 obj`)).toBe(true))
    const length = Number(/\/Length (\d+) >>\nstream\n/.exec(pdf)![1])
    const streamStart = pdf.indexOf('stream\n') + 'stream\n'.length
    expect(pdf.slice(streamStart + length, streamStart + length + 10)).toBe('\nendstream')
  })

  it('answers 404 for a Group that does not exist', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v2/groups/threats/424242/pdf' })).statusCode).toBe(404)
  })
})

describe('POST /v2/groups/{type}/{id}/publish', () => {
  it('publishes unless the labels exclude the Group', async () => {
    const id = await create('threats', 'threat', { name: 'P' })
    const unlabeled = await t.request({
      method: 'POST',
      url: `/api/v2/groups/threats/${id}/publish`,
      payload: { securityLabelList: [], excludeUnlabeled: true },
    })
    expect(unlabeled.json()).toEqual({ apiCalls: 1, resultCount: 0, status: 'Success' })
    const res = await t.request({
      method: 'POST',
      url: `/api/v2/groups/threats/${id}/publish`,
      payload: { securityLabelList: ['TLP:RED'], excludeUnlabeled: false },
    })
    expect(res.json()).toEqual({ apiCalls: 1, resultCount: 1, status: 'Success' })
    const row = await t.store.db
      .selectFrom('intel_group')
      .select('publish_date')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(row.publish_date).toMatch(/^\d{4}-\d{2}-\d{2}T/)
  })

  it('refuses a malformed body and callers without the publish permission', async () => {
    const id = await create('threats', 'threat', { name: 'P2' })
    const bad = await t.request({
      method: 'POST',
      url: `/api/v2/groups/threats/${id}/publish`,
      payload: { securityLabelList: 'TLP:RED' },
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().message).toBe('securityLabelList must be an array of Security Label names')
    const writer = await t.createAccount({ role: 'Standard User' })
    const denied = await t.request({
      method: 'POST',
      url: `/api/v2/groups/threats/${id}/publish`,
      payload: {},
      as: writer,
    })
    expect(denied.statusCode).toBe(401)
  })
})
