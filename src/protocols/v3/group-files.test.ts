import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

const create = async (body: object) =>
  (await t.request({ method: 'POST', url: '/api/v3/groups', payload: body })).json().data.id as number
const upload = (id: number, content: string) =>
  t.request({
    method: 'POST',
    url: `/api/v3/groups/${id}/upload`,
    payload: content,
    headers: { 'content-type': 'application/octet-stream' },
  })

describe('v3 Group files (tcex group.upload, download, pdf)', () => {
  it('uploads a Document, replaces it on a second upload, and downloads the bytes', async () => {
    const id = await create({ type: 'Document', name: 'v3 file', fileName: 'notes.txt' })
    const first = await upload(id, 'first version')
    expect([first.statusCode, first.headers['content-type'], first.json()]).toEqual([
      200,
      'application/json',
      { message: 'Uploaded', status: 'Success' },
    ])
    expect((await upload(id, 'second version')).statusCode).toBe(200)
    const down = await t.request({ method: 'GET', url: `/api/v3/groups/${id}/download` })
    expect([down.statusCode, down.headers['content-type'], down.headers['content-disposition'], down.body]).toEqual([
      200,
      'application/octet-stream',
      'attachment; filename="notes.txt"',
      'second version',
    ])
  })

  it('downloads a Signature as text/plain and renders any Group as a PDF', async () => {
    const sig = await create({
      type: 'Signature',
      name: 'v3 sig',
      fileName: 'r.yar',
      fileType: 'YARA',
      fileText: 'rule r { condition: true }',
    })
    const text = await t.request({ method: 'GET', url: `/api/v3/groups/${sig}/download` })
    expect([text.headers['content-type'], text.body]).toEqual(['text/plain', 'rule r { condition: true }'])
    const adversary = await create({ type: 'Adversary', name: 'v3 pdf' })
    const pdf = await t.request({ method: 'GET', url: `/api/v3/groups/${adversary}/pdf` })
    expect([pdf.statusCode, pdf.headers['content-type'], pdf.rawPayload.subarray(0, 5).toString()]).toEqual([
      200,
      'application/pdf',
      '%PDF-',
    ])
    expect(pdf.rawPayload.toString('latin1')).toContain('Adversary: v3 pdf')
  })

  it('refuses uploads to Groups without files (404, as on v2), empty uploads, and unknown Groups, in the v3 error body', async () => {
    const adversary = await create({ type: 'Adversary', name: 'no files' })
    const wrong = await upload(adversary, 'x')
    expect([wrong.statusCode, wrong.json().errCode]).toEqual([404, '0x1007'])
    const doc = await create({ type: 'Report', name: 'empty', fileName: 'r.pdf' })
    expect((await upload(doc, '')).statusCode).toBe(400)
    const missing = await t.request({ method: 'GET', url: '/api/v3/groups/999999/download' })
    expect([missing.statusCode, missing.json().errCode]).toEqual([404, '0x1007'])
    expect((await t.request({ method: 'GET', url: `/api/v3/groups/${doc}/download` })).statusCode).toBe(404)
  })
})
