/**
 * /v3/lists (beyond the interface specification): outbound lists. System administrators save a TQL
 * query under a name; any reader fetches its active Indicators at a stable URL as text (one value
 * per line) or CSV, with a token, Bearer or Basic credentials, narrowed to what it may read, with
 * an ETag that answers 304 while nothing changed, streamed in bounded memory.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, issueApiToken, setMembership } from '../../domain/access/accounts.js'
import { LIST_CSV_HEADER, openListValues, planListValues } from '../../domain/lists/values.js'
import { isoNow } from '../../core/time.js'
import { ORG, PUBLIC_URL, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
let admin: TestAccount
let analyst: TestAccount
let outsider: TestAccount
const PARTNER = 'Partner Community'

async function systemAdministrator(): Promise<TestAccount> {
  const userName = `list-admin-${randomBytes(3).toString('hex')}`
  await createAccount(
    t.store.db,
    { userName, kind: 'api', organization: ORG, role: 'Organization Administrator', systemRole: 'Administrator' },
    isoNow(),
  )
  const { token } = await issueApiToken(t.store.db, userName, {}, Date.now())
  return { userName, token }
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

async function indicator(body: Record<string, unknown>, owner?: string) {
  const res = await t.request({
    method: 'POST',
    url: `/api/v3/indicators${owner ? `?owner=${encodeURIComponent(owner)}` : ''}`,
    payload: body,
  })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().data.id as number
}

async function saveList(body: Record<string, unknown>) {
  const res = await t.request({ method: 'POST', url: '/api/v3/lists', payload: body, as: admin })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().data
}

const values = (name: string, query = '', as: TestAccount = analyst, format = 'txt') =>
  t.request({ method: 'GET', url: `/api/v3/lists/${name}/values.${format}${query}`, as })

beforeAll(async () => {
  t = await createTestApp()
  admin = await systemAdministrator()
  await t.createOwner(PARTNER, 'Community')
  await setMembership(t.store.db, t.admin.userName, PARTNER, 'Editor', isoNow())
  analyst = await t.createAccount({ role: 'Read Only User' })
  outsider = await t.createAccount({ role: 'Read Only User' })
  await indicator({ type: 'Address', ip: '203.0.113.7', rating: 4, confidence: 80 })
  await indicator({ type: 'CIDR', Block: '198.51.100.0/24', rating: 3 })
  await indicator({ type: 'Host', hostName: 'bad.example.test', rating: 5, confidence: 90 })
  await indicator({ type: 'URL', text: 'https://evil.example.test/a,b"c', rating: 2 })
  await indicator({
    type: 'File',
    md5: 'D41D8CD98F00B204E9800998ECF8427E',
    sha256: 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
    rating: 1,
  })
  await indicator({ type: 'Address', ip: '192.0.2.200', rating: 4, active: false })
  await indicator({ type: 'Address', ip: '192.0.2.99', rating: 5 }, PARTNER)
  // An older import wrote a value with a line break; the API would refuse one today.
  const [first] = await t.store.db.selectFrom('indicator').select(['owner_id', 'date_added']).limit(1).execute()
  await t.store.db
    .insertInto('indicator')
    .values({
      owner_id: first!.owner_id,
      type: 'Host',
      summary: 'split.example.test\n10.66.66.66',
      value1: 'split.example.test\n10.66.66.66',
      rating: 5,
      date_added: first!.date_added,
      last_modified: first!.date_added,
    })
    .execute()
})
afterAll(() => t.close())

describe('managing lists', () => {
  it('saves a list, answering its stable URLs under the public URL', async () => {
    const list = await saveList({ name: 'all', tql: '' })
    expect(list).toMatchObject({
      name: 'all',
      tql: '',
      urls: { text: `${PUBLIC_URL}/api/v3/lists/all/values.txt`, csv: `${PUBLIC_URL}/api/v3/lists/all/values.csv` },
    })
    expect(list.types).toBeUndefined()
    const got = await t.request({ method: 'GET', url: '/api/v3/lists/all', as: admin })
    expect(got.json().data).toEqual(list)
  })

  it('keeps types and owners by their names, and changes them', async () => {
    const list = await saveList({
      name: 'partner-ips',
      tql: 'rating >= 4',
      types: ['addresses', 'cidr'],
      owners: [PARTNER],
    })
    expect(list.types).toEqual(['Address', 'CIDR'])
    expect(list.owners).toEqual([PARTNER])
    const changed = await t.request({
      method: 'PUT',
      url: '/api/v3/lists/partner-ips',
      payload: { owners: [] },
      as: admin,
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json().data.owners).toBeUndefined()
    expect(changed.json().data.tql).toBe('rating >= 4')
    const all = await t.request({ method: 'GET', url: '/api/v3/lists', as: admin })
    expect(all.json().data.map((l: { name: string }) => l.name)).toEqual(expect.arrayContaining(['all', 'partner-ips']))
  })

  it('refuses a TQL that does not compile, saying where', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v3/lists',
      payload: { name: 'broken', tql: 'rating >== 3' },
      as: admin,
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ status: 'Error', errCode: '0x1001' })
    expect(res.json().message).toMatch(/^The list's TQL: TQL error at column \d+/)
    const unknown = await t.request({
      method: 'POST',
      url: '/api/v3/lists',
      payload: { name: 'broken', tql: 'nonsense = 1' },
      as: admin,
    })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().message).toMatch(/^The list's TQL: /)
  })

  it('refuses bad names, unknown types and owners, and a second list of one name', async () => {
    const post = (payload: object) => t.request({ method: 'POST', url: '/api/v3/lists', payload, as: admin })
    expect((await post({ name: 'a b', tql: '' })).json().message).toMatch(/list name is 1 to 64 letters/)
    expect((await post({ name: 'x', tql: '', types: ['Planet'] })).json().message).toBe(
      "types: 'Planet' is not an Indicator type",
    )
    expect((await post({ name: 'x', tql: '', owners: ['Nobody'] })).json().message).toBe("No owner is named 'Nobody'")
    const twice = await post({ name: 'all', tql: 'rating > 1' })
    expect(twice.statusCode).toBe(400)
    expect(twice.json().message).toBe("A list named 'all' already exists")
  })

  it('is for system administrators only: an Organization Administrator is refused', async () => {
    for (const [method, url] of [
      ['GET', '/api/v3/lists'],
      ['POST', '/api/v3/lists'],
      ['GET', '/api/v3/lists/all'],
      ['PUT', '/api/v3/lists/all'],
      ['DELETE', '/api/v3/lists/all'],
    ] as const) {
      const res = await t.request({ method, url, payload: { name: 'mine', tql: '' }, as: t.admin })
      expect(res.statusCode, `${method} ${url}`).toBe(401)
      expect(res.json().message).toMatch(
        /^Only system administrators \(Administrator or Operations Administrator\) manage outbound lists; your system role is Api User$/,
      )
    }
  })

  it('removes a list; its URL then answers 404 in the v3 envelope', async () => {
    await saveList({ name: 'short-lived', tql: '' })
    const removed = await t.request({ method: 'DELETE', url: '/api/v3/lists/short-lived', as: admin })
    expect(removed.json()).toEqual({ message: 'Deleted', status: 'Success' })
    const res = await values('short-lived')
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ errCode: '0x1007', message: "No list is named 'short-lived'", status: 'Error' })
  })
})

describe('a list as text', () => {
  it('serves every active Indicator the reader may read, one value per line, a File by each hash it has, as stored', async () => {
    const res = await values('all')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(res.headers['cache-control']).toBe('no-cache')
    // The inactive 192.0.2.200, the Partner's 192.0.2.99 (the analyst is not a member) and the value with a line break are left out.
    expect(res.body).toBe(
      [
        '203.0.113.7',
        '198.51.100.0/24',
        'bad.example.test',
        'https://evil.example.test/a,b"c',
        'D41D8CD98F00B204E9800998ECF8427E',
        'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
        '',
      ].join('\n'),
    )
  })

  it('never splits a value with a line break over two lines', async () => {
    const res = await values('all', '', t.admin)
    expect(res.body).not.toContain('split.example.test')
    expect(res.body).not.toContain('10.66.66.66')
  })

  it('filters by ?type=, and answers 400 for a type that is not one', async () => {
    expect((await values('all', '?type=Address,CIDR')).body).toBe('203.0.113.7\n198.51.100.0/24\n')
    expect((await values('all', '?type=hosts')).body).toBe('bad.example.test\n')
    const bad = await values('all', '?type=Planet')
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toEqual({
      errCode: '0x1001',
      message: "type: 'Planet' is not an Indicator type",
      status: 'Error',
    })
  })

  it("applies the list's TQL, types and owners to what the reader may read", async () => {
    await saveList({ name: 'hot-ips', tql: 'rating >= 4', types: ['Address'], owners: [PARTNER, ORG] })
    expect((await values('hot-ips', '', t.admin)).body).toBe('203.0.113.7\n192.0.2.99\n')
    expect((await values('hot-ips', '', analyst)).body).toBe('203.0.113.7\n')
    // A type the list does not keep: nothing, not an error.
    expect((await values('hot-ips', '?type=Host', t.admin)).body).toBe('')
  })
})

describe('a list as CSV', () => {
  it('has a header and one row per value, quoting commas and quotes', async () => {
    const res = await values('all', '', analyst, 'csv')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    const lines = res.body.split('\n')
    expect(lines[0]).toBe(LIST_CSV_HEADER.trimEnd())
    const at = (line: string) => line.replace(/,\d{4}-\d\d-\d\dT[^,]+,/, ',<date>,')
    expect(lines.slice(1).map(at)).toEqual([
      `Address,203.0.113.7,4,80,<date>,${ORG}`,
      `CIDR,198.51.100.0/24,3,,<date>,${ORG}`,
      `Host,bad.example.test,5,90,<date>,${ORG}`,
      `URL,"https://evil.example.test/a,b""c",2,,<date>,${ORG}`,
      `File,D41D8CD98F00B204E9800998ECF8427E,1,,<date>,${ORG}`,
      `File,E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855,1,,<date>,${ORG}`,
      '',
    ])
  })
})

describe('a list as CSV, adversarial owner names', () => {
  it('quotes an owner name with a comma and quotes, and keeps a line break out of it', async () => {
    const owner = 'Feeds, "Acme"\nLtd'
    await t.createOwner(owner, 'Source')
    await setMembership(t.store.db, t.admin.userName, owner, 'Editor', isoNow())
    const reader = await t.createAccount({ role: 'Read Only User', memberships: { [owner]: 'Subscriber' } })
    await indicator({ type: 'Host', hostName: 'acme.example.test', rating: 3, confidence: 7 }, owner)
    const res = await values('all', '?type=Host', reader, 'csv')
    const rows = res.body.split('\n').map((line) => line.replace(/,\d{4}-\d\d-\d\dT[^,]+,/, ',<date>,'))
    expect(rows).toContain('Host,acme.example.test,3,7,<date>,"Feeds, ""Acme"" Ltd"')
    expect(rows.every((row) => row === '' || row.startsWith('type,') || row.startsWith('Host,'))).toBe(true)
  })
})

describe('ETag', () => {
  it('answers 304 while nothing changed, and a new ETag once an Indicator does', async () => {
    await saveList({ name: 'hosts', tql: 'typeName = "Host"' })
    const first = await values('hosts')
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
    const again = await values('hosts', '')
    expect(again.headers.etag).toBe(etag)
    const unchanged = await t.request({
      method: 'GET',
      url: '/api/v3/lists/hosts/values.txt',
      as: analyst,
      headers: { 'if-none-match': `W/${etag}` },
    })
    expect(unchanged.statusCode).toBe(304)
    expect(unchanged.body).toBe('')
    expect(unchanged.headers.etag).toBe(etag)
    // The CSV of the same list is another representation, with its own ETag.
    expect((await values('hosts', '', analyst, 'csv')).headers.etag).not.toBe(etag)

    await indicator({ type: 'Host', hostName: 'new.example.test', rating: 1 })
    const changed = await t.request({
      method: 'GET',
      url: '/api/v3/lists/hosts/values.txt',
      as: analyst,
      headers: { 'if-none-match': etag },
    })
    expect(changed.statusCode).toBe(200)
    expect(changed.body).toBe('bad.example.test\nnew.example.test\n')
    expect(changed.headers.etag).not.toBe(etag)
  })

  it('answers HEAD with the headers alone', async () => {
    const head = await t.request({ method: 'HEAD', url: '/api/v3/lists/hosts/values.txt', as: analyst })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
    expect(head.headers.etag).toBe((await values('hosts')).headers.etag)
    expect(head.headers['content-type']).toBe('text/plain; charset=utf-8')
  })

  it('changes when an Indicator is deleted, and when the list is changed', async () => {
    const id = await indicator({ type: 'Host', hostName: 'gone.example.test' })
    const before = (await values('hosts')).headers.etag
    expect((await t.request({ method: 'DELETE', url: `/api/v3/indicators/${id}` })).statusCode).toBe(200)
    const after = (await values('hosts')).headers.etag
    expect(after).not.toBe(before)
    await t.request({
      method: 'PUT',
      url: '/api/v3/lists/hosts',
      payload: { tql: 'typeName = "Host" and rating >= 1' },
      as: admin,
    })
    expect((await values('hosts')).headers.etag).not.toBe(after)
  })

  it('differs between readers who may read different owners', async () => {
    expect((await values('all', '', t.admin)).headers.etag).not.toBe((await values('all', '', analyst)).headers.etag)
  })
})

describe('authentication', () => {
  it("takes a TAXII account's Basic credentials, and refuses a person's password there", async () => {
    const firewall = await t.createAccount({ kind: 'taxii', password: 'edl-secret-1' })
    const res = await t.request({
      method: 'GET',
      url: '/api/v3/lists/all/values.txt?type=Host',
      as: null,
      headers: { authorization: basic(firewall.userName, 'edl-secret-1') },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.body).toBe('bad.example.test\nnew.example.test\n')
    // A console password is guessed only through the sign-in's throttle, never through Basic.
    const human = await t.createAccount({ kind: 'human', password: 'console-secret-1' })
    const byHuman = await t.request({
      method: 'GET',
      url: '/api/v3/lists/all/values.txt?type=Host',
      as: null,
      headers: { authorization: basic(human.userName, 'console-secret-1') },
    })
    expect(byHuman.statusCode).toBe(401)
    expect(byHuman.json().message).toBe('Access Denied: only TAXII accounts use Basic authentication')
  })

  it('takes an API token as TC-Token and as Bearer', async () => {
    const bearer = await t.request({
      method: 'GET',
      url: '/api/v3/lists/all/values.txt?type=CIDR',
      as: null,
      headers: { authorization: `Bearer ${outsider.token}` },
    })
    expect(bearer.statusCode).toBe(200)
    expect(bearer.body).toBe('198.51.100.0/24\n')
    expect((await values('all', '?type=CIDR', outsider)).body).toBe('198.51.100.0/24\n')
  })

  it('refuses a request without credentials with 401 and a Basic challenge, and a wrong password with 401', async () => {
    const none = await t.request({ method: 'GET', url: '/api/v3/lists/all/values.txt', as: null })
    expect(none.statusCode).toBe(401)
    expect(none.headers['www-authenticate']).toBe('Basic realm="Bulwark lists", charset="UTF-8"')
    expect(none.json()).toMatchObject({ errCode: '0x1002', status: 'Error' })
    const firewall = await t.createAccount({ kind: 'taxii', password: 'edl-secret-2' })
    const wrong = await t.request({
      method: 'GET',
      url: '/api/v3/lists/all/values.csv',
      as: null,
      headers: { authorization: basic(firewall.userName, 'not-it') },
    })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().message).toBe('Access Denied: wrong user name or password')
    expect(wrong.headers['www-authenticate']).toBe('Basic realm="Bulwark lists", charset="UTF-8"')
  })

  it('leaves Basic refused on the rest of the API', async () => {
    const firewall = await t.createAccount({ kind: 'taxii', password: 'edl-secret-3' })
    const res = await t.request({
      method: 'GET',
      url: '/api/v3/indicators',
      as: null,
      headers: { authorization: basic(firewall.userName, 'edl-secret-3') },
    })
    expect(res.statusCode).toBe(403)
    expect(res.json().message).toMatch(/^Authorization required: use /)
  })
})

describe('a large list', () => {
  it('streams 50,000 Indicators in pages, in id order, without holding them', async () => {
    const owner = await t.createOwner('Bulk Source', 'Source')
    const now = isoNow()
    const rows = Array.from({ length: 50_000 }, (_, i) => {
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
      return { owner_id: owner, type: 'Address', summary: ip, value1: ip, date_added: now, last_modified: now }
    })
    for (let i = 0; i < rows.length; i += 1000)
      await t.store.db
        .insertInto('indicator')
        .values(rows.slice(i, i + 1000))
        .execute()
    const reader = await t.createAccount({ role: 'Read Only User', memberships: { 'Bulk Source': 'Subscriber' } })
    await saveList({ name: 'bulk', tql: '', owners: ['Bulk Source'] })
    const res = await values('bulk', '', reader)
    expect(res.statusCode).toBe(200)
    const lines = res.body.split('\n')
    expect(lines.length).toBe(50_001)
    expect(lines[0]).toBe('10.0.0.0')
    expect(lines[49_999]).toBe('10.0.195.79')
    expect(new Set(lines).size).toBe(50_001)
    // What the route streams comes a page at a time: five pages of 10,000 lines, none held beyond its turn.
    const ctx = await t.context(reader)
    const sizes: number[] = []
    for await (const chunk of await openListValues(ctx, await planListValues(ctx, 'bulk', { format: 'text' })))
      sizes.push(chunk.split('\n').length - 1)
    expect(sizes).toEqual([10_000, 10_000, 10_000, 10_000, 10_000])
  })
})

describe('a list that follows a saved search', () => {
  const search = async (body: Record<string, unknown>, as: TestAccount = admin) => {
    const res = await t.request({ method: 'POST', url: '/api/v3/savedSearches', payload: body, as })
    expect(res.statusCode, res.body).toBe(201)
    return res.json().data.id as number
  }

  it("serves the saved search's current TQL, and keeps the search from being deleted while it does", async () => {
    const id = await search({ name: 'Hosts to block', tql: 'typeName = "Host" and summary startswith "bad."' })
    const list = await saveList({ name: 'followed', savedSearch: id })
    expect(list).toMatchObject({
      name: 'followed',
      tql: 'typeName = "Host" and summary startswith "bad."',
      savedSearch: { id, name: 'Hosts to block' },
    })
    expect((await values('followed')).body).toBe('bad.example.test\n')
    const changed = await t.request({
      method: 'PUT',
      url: `/api/v3/savedSearches/${id}`,
      payload: { tql: 'summary = "203.0.113.7" and rating >= 4' },
      as: admin,
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect((await values('followed')).body).toBe('203.0.113.7\n')
    const shown = await t.request({ method: 'GET', url: '/api/v3/lists/followed', as: admin })
    expect(shown.json().data).toMatchObject({ tql: 'summary = "203.0.113.7" and rating >= 4', savedSearch: { id } })
    const refused = await t.request({ method: 'DELETE', url: `/api/v3/savedSearches/${id}`, as: admin })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().message).toBe(
      `Saved search ${id} is followed by the outbound list 'followed'; change or delete it first`,
    )
    const toGroups = await t.request({
      method: 'PUT',
      url: `/api/v3/savedSearches/${id}`,
      payload: { kind: 'groups' },
      as: admin,
    })
    expect(toGroups.statusCode).toBe(400)
    // Given its own TQL, the list stops following, and the search may go.
    const own = await t.request({
      method: 'PUT',
      url: '/api/v3/lists/followed',
      payload: { tql: 'summary = "198.51.100.0/24"' },
      as: admin,
    })
    expect(own.json().data.savedSearch).toBeUndefined()
    expect((await values('followed')).body).toBe('198.51.100.0/24\n')
    expect((await t.request({ method: 'DELETE', url: `/api/v3/savedSearches/${id}`, as: admin })).statusCode).toBe(200)
  })

  it("refuses another's private search, a search of Groups, an unknown one, and both tql and savedSearch", async () => {
    const others = await search({ name: 'Not yours', tql: '' }, analyst)
    const groups = await search({ name: 'Groups', tql: '', kind: 'groups' })
    const mine = await search({ name: 'Mine', tql: '' })
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x1', savedSearch: others }, `No saved search ${others} is visible to you`],
      [{ name: 'x2', savedSearch: groups }, `Saved search ${groups} is a search of groups; a list serves Indicators`],
      [{ name: 'x3', savedSearch: 999_999 }, 'No saved search 999999 is visible to you'],
      [{ name: 'x4', savedSearch: mine, tql: 'rating > 1' }, 'Give a list either tql or savedSearch, not both'],
      [{ name: 'x5', savedSearch: 'one' }, 'savedSearch must be the id of a saved search of Indicators'],
    ]
    for (const [body, message] of cases) {
      const res = await t.request({ method: 'POST', url: '/api/v3/lists', payload: body, as: admin })
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json()).toEqual({ errCode: '0x1001', message, status: 'Error' })
    }
  })
})
