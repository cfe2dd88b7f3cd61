/**
 * /v3/feeds (beyond the interface specification): system Administrators add, read, change and
 * remove feeds in the v3 envelope; anyone else is refused as the REST API refuses a missing
 * permission (401, errCode 0x1002); no answer ever carries a credential; bad input is a 400
 * that says what is wrong, never a 500.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, issueApiToken, setMembership } from '../../domain/access/accounts.js'
import { isoNow } from '../../core/time.js'
import { ORG, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
let sysadmin: TestAccount
const SECRETS = ['pa55-w0rd-feed', 'bearer-tok-feed', 'hdr-value-feed']
const answers: string[] = []

beforeAll(async () => {
  t = await createTestApp()
  await createAccount(
    t.store.db,
    {
      userName: 'sysadmin',
      kind: 'api',
      organization: ORG,
      role: 'Organization Administrator',
      systemRole: 'Administrator',
    },
    isoNow(),
  )
  sysadmin = { userName: 'sysadmin', token: (await issueApiToken(t.store.db, 'sysadmin', {}, Date.now())).token }
  await t.createOwner('Feeds', 'Source')
  // A feed writes as the administrator who adds it, who must have a role in its owner.
  await setMembership(t.store.db, 'sysadmin', 'Feeds', 'Editor', isoNow())
})
afterAll(async () => {
  // Whatever was sent in this file, no answer carried a secret.
  for (const body of answers) for (const secret of SECRETS) expect(body).not.toContain(secret)
  await t.close()
})

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, as = sysadmin) {
  const res = await t.request({ method, url: `/api/v3${url}`, payload: payload as object, as })
  answers.push(res.body)
  return res
}

const body = {
  name: 'MISP circl',
  kind: 'misp',
  url: 'https://www.circl.lu/doc/misp/feed-osint/',
  owner: 'Feeds',
  credentials: { kind: 'basic', user: 'circl', password: SECRETS[0] },
  interval: '6h',
  defaults: { confidence: 70, tags: ['osint'] },
}

describe('/v3/feeds', () => {
  it('adds, reads, lists, changes and removes a feed', async () => {
    const created = await call('POST', '/feeds', body)
    expect(created.statusCode, created.body).toBe(201)
    const feed = created.json().data
    expect(created.json()).toMatchObject({
      data: {
        name: 'MISP circl',
        kind: 'misp',
        url: 'https://www.circl.lu/doc/misp/feed-osint/',
        owner: 'Feeds',
        credentials: 'basic',
        hasCaFile: false,
        intervalSeconds: 21_600,
        enabled: true,
        settings: {},
        defaults: { confidence: 70, tags: ['osint'] },
        failures: 0,
      },
      message: 'Created',
      status: 'Success',
    })

    const got = await call('GET', `/feeds/${feed.id}`)
    expect(got.statusCode).toBe(200)
    expect(got.json()).toEqual({ data: feed, status: 'Success' })

    const listed = await call('GET', '/feeds')
    expect(listed.json()).toEqual({ data: [feed], count: 1, status: 'Success' })

    const changed = await call('PUT', `/feeds/${feed.id}`, {
      enabled: false,
      credentials: { kind: 'bearer', token: SECRETS[1] },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json()).toMatchObject({
      data: { id: feed.id, enabled: false, credentials: 'bearer', intervalSeconds: 21_600 },
      message: 'Updated',
      status: 'Success',
    })

    const removed = await call('DELETE', `/feeds/${feed.id}`)
    expect(removed.json()).toEqual({ message: 'Deleted', status: 'Success' })
    const gone = await call('GET', `/feeds/${feed.id}`)
    expect(gone.statusCode).toBe(404)
    expect(gone.json()).toEqual({ errCode: '0x1007', message: `No feed with id ${feed.id}`, status: 'Error' })
  })

  it('takes back what GET gave, with changes, leaving the credentials alone', async () => {
    const feed = (
      await call('POST', '/feeds', {
        ...body,
        name: 'Roundtrip',
        credentials: { kind: 'header', name: 'X-Api-Key', value: SECRETS[2] },
      })
    ).json().data
    const res = await call('PUT', `/feeds/${feed.id}`, {
      ...feed,
      intervalSeconds: 7200,
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).toMatchObject({ intervalSeconds: 7200, credentials: 'header' })
    // Another kind given as text is no credential: refused, not taken as one.
    const other = await call('PUT', `/feeds/${feed.id}`, { credentials: 'basic' })
    expect(other.statusCode).toBe(400)
    const row = await t.store.db
      .selectFrom('feed')
      .select('credentials_sealed')
      .where('id', '=', feed.id)
      .executeTakeFirstOrThrow()
    expect(row.credentials_sealed).not.toContain(SECRETS[2])
    expect(JSON.parse(t.services.secretBox.open(row.credentials_sealed!))).toMatchObject({ value: SECRETS[2] })
  })

  it('refuses everyone but system Administrators, as the REST API refuses a missing permission', async () => {
    const feed = (await call('POST', '/feeds', { ...body, name: 'Admins only' })).json().data
    for (const [method, url, payload] of [
      ['GET', '/feeds', undefined],
      ['GET', `/feeds/${feed.id}`, undefined],
      ['POST', '/feeds', { ...body, name: 'Mine' }],
      ['PUT', `/feeds/${feed.id}`, { enabled: false }],
      ['DELETE', `/feeds/${feed.id}`, undefined],
    ] as const) {
      const res = await call(method, url, payload, t.admin)
      expect(res.statusCode, `${method} ${url}`).toBe(401)
      expect(res.json()).toEqual({
        errCode: '0x1002',
        message:
          'Only system administrators (Administrator or Operations Administrator) manage feeds; your system role is Api User',
        status: 'Error',
      })
    }
    expect((await call('GET', `/feeds/${feed.id}`)).json().data.enabled).toBe(true)
    // Without credentials at all: the REST API's 403 for a request with no supported scheme.
    expect((await call('GET', '/feeds', undefined, null as unknown as TestAccount)).statusCode).toBe(403)
  })

  it.each([
    [
      'a URL with a password',
      'POST',
      '/feeds',
      { ...body, name: 'X', url: 'https://u:p@x.example/' },
      'url must not carry a user name or password; give them in credentials',
    ],
    [
      'TAXII 2.1 without a collection',
      'POST',
      '/feeds',
      { ...body, name: 'X', kind: 'taxii21' },
      "A taxii21 feed needs settings.collection (the collection's id or alias)",
    ],
    [
      'an invented TLP',
      'POST',
      '/feeds',
      { ...body, name: 'X', defaults: { securityLabel: 'TLP:BLUE' } },
      expect.stringMatching(/^defaults.securityLabel: 'TLP:BLUE' is neither/),
    ],
    [
      'credentials as a kind only',
      'POST',
      '/feeds',
      { ...body, name: 'X', credentials: 'basic' },
      expect.stringMatching(/^credentials must be/),
    ],
    ['caPem not text', 'POST', '/feeds', { ...body, name: 'X', caPem: 42 }, 'caPem must be PEM text'],
    ['an array for a body', 'POST', '/feeds', [1, 2], 'The body must be a JSON object'],
    [
      'a zero interval',
      'POST',
      '/feeds',
      { ...body, name: 'X', interval: 0 },
      'interval must be at least 60 seconds (1m)',
    ],
    [
      'a feed id that is not a number',
      'PUT',
      '/feeds/abc',
      { enabled: false },
      "The feed id must be a number, not 'abc'",
    ],
    [
      'a feed id beyond the integers',
      'GET',
      '/feeds/99999999999',
      undefined,
      "The feed id must be a number, not '99999999999'",
    ],
  ])('%s is a 400 naming the problem', async (_label, method, url, payload, message) => {
    const res = await call(method as 'POST', url, payload)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toEqual({ errCode: '0x1001', message, status: 'Error' })
  })

  it('answers a taken name, an unknown id and a malformed body without a 500', async () => {
    await call('POST', '/feeds', { ...body, name: 'Taken' })
    const taken = await call('POST', '/feeds', { ...body, name: 'Taken' })
    expect(taken.statusCode).toBe(400)
    expect(taken.json()).toEqual({
      errCode: '0x100A',
      message: "A feed named 'Taken' already exists",
      status: 'Error',
    })
    expect((await call('PUT', '/feeds/2147483647', { enabled: true })).statusCode).toBe(404)
    const malformed = await t.request({
      method: 'POST',
      url: '/api/v3/feeds',
      payload: '{"name": ',
      headers: { 'content-type': 'application/json' },
      as: sysadmin,
    })
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json()).toMatchObject({ errCode: '0x1001', status: 'Error' })
  })
})

describe('/v3/feeds in the OpenAPI document', () => {
  it('is marked beyond the interface specification, and real answers match what it documents', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/v3/openApi', as: null })).json()
    const operations = [
      ['get', '/api/v3/feeds'],
      ['post', '/api/v3/feeds'],
      ['get', '/api/v3/feeds/{id}'],
      ['put', '/api/v3/feeds/{id}'],
      ['delete', '/api/v3/feeds/{id}'],
    ]
    for (const [method, path] of operations)
      expect(doc.paths[path][method].summary, `${method} ${path}`).toMatch(/beyond the interface specification$/)
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    const documented = (method: string, path: string, status: string) =>
      ajv.compile(doc.paths[path][method].responses[status].content['application/json'].schema)
    const sent = { ...body, name: 'Documented', caPem: null, settings: {}, defaults: { rating: 1 } }
    const validBody = ajv.compile(doc.paths['/api/v3/feeds'].post.requestBody.content['application/json'].schema)
    expect(validBody(sent) ? [] : validBody.errors).toEqual([])
    const created = await call('POST', '/feeds', sent)
    const check = documented('post', '/api/v3/feeds', '201')
    expect(check(created.json()) ? [] : check.errors).toEqual([])
    const listed = await call('GET', '/feeds')
    const checkList = documented('get', '/api/v3/feeds', '200')
    expect(checkList(listed.json()) ? [] : checkList.errors).toEqual([])
    const refused = await call('GET', '/feeds/abc')
    const checkRefused = documented('get', '/api/v3/feeds/{id}', '4XX')
    expect(checkRefused(refused.json()) ? [] : checkRefused.errors).toEqual([])
  })
})
