/**
 * /v3/admin/… : a system administrator creates owners and accounts, sets memberships, passwords, token lifetimes
 * and settings, issues and revokes tokens and access keys (each secret answered once and never listed); anyone
 * else gets 403 naming what was refused; bad input is a 400 that says what is wrong; an unknown account or owner a
 * 404. Every answer validates against the OpenAPI document.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, issueApiToken } from '../../domain/access/accounts.js'
import { isoNow } from '../../core/time.js'
import { ORG, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

let t: TestApp
let sysadmin: TestAccount
let orgAdmin: TestAccount
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: object }> }> }>>
}
let doc: Doc
const ajv = new Ajv2020({ strict: false, allErrors: true })
const secrets: string[] = []
const answers: { path: string; body: string }[] = []

beforeAll(async () => {
  t = await createTestApp()
  await createAccount(
    t.store.db,
    { userName: 'root-admin', kind: 'api', organization: ORG, role: 'Standard User', systemRole: 'Administrator' },
    isoNow(),
  )
  sysadmin = { userName: 'root-admin', token: (await issueApiToken(t.store.db, 'root-admin', {}, Date.now())).token }
  // An Organization Administrator runs one owner, not the installation.
  orgAdmin = t.admin
  doc = (await t.request({ method: 'GET', url: '/api/v3/openApi', as: null })).json()
})
afterAll(async () => {
  // Secrets appear only in the answer that made them.
  for (const secret of secrets) expect(answers.filter((a) => a.body.includes(secret)).length, secret).toBeLessThan(2)
  await t?.close()
})

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
/** Calls /api/v3/admin<path> and checks the answer against the documented schema of its route. */
async function call(method: Method, path: string, route: string, payload?: unknown, as: TestAccount | null = sysadmin) {
  const res = await t.request({ method, url: `/api/v3/admin${path}`, payload: payload as object, as })
  answers.push({ path, body: res.body })
  const op = doc.paths[`/api/v3/admin${route}`]?.[method.toLowerCase()]
  expect(op, `${method} ${route} is documented`).toBeDefined()
  const response = op!.responses[String(res.statusCode)] ?? op!.responses['4XX']
  const check = ajv.compile(response.content['application/json'].schema)
  expect(check(res.json()) ? [] : check.errors, `${method} ${path} ${res.body}`).toEqual([])
  return res
}

describe('/v3/admin/owners', () => {
  it('creates a Source and lists it', async () => {
    const res = await call('POST', '/owners', '/owners', { name: 'OSINT', type: 'Source', description: 'Open feeds' })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json()).toMatchObject({
      data: { name: 'OSINT', type: 'Source', description: 'Open feeds' },
      message: 'Created',
      status: 'Success',
    })
    const listed = await call('GET', '/owners', '/owners')
    expect(listed.json().data.map((o: { name: string; type: string }) => `${o.name}:${o.type}`)).toEqual([
      `${ORG}:Organization`,
      'OSINT:Source',
    ])
  })

  it('refuses a bad type, a missing name and a duplicate with 400s saying why', async () => {
    const bad = await call('POST', '/owners', '/owners', { name: 'X', type: 'Team' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toEqual({
      errCode: '0x1001',
      message: 'Owner type must be one of Organization, Community, Source',
      status: 'Error',
    })
    expect((await call('POST', '/owners', '/owners', { type: 'Source' })).json().message).toBe('name is required')
    const dup = await call('POST', '/owners', '/owners', { name: 'OSINT', type: 'Community' })
    expect(dup.statusCode).toBe(400)
    expect(dup.json().message).toBe("An owner named 'OSINT' already exists")
    expect((await call('POST', '/owners', '/owners', [1])).json().message).toBe(
      'The request body must be a JSON object',
    )
  })
})

describe('/v3/admin/accounts', () => {
  it('creates a person with a password, lists by kind, disables, enables and sets password and token lifetime', async () => {
    const made = await call('POST', '/accounts', '/accounts', {
      userName: 'ana',
      kind: 'human',
      password: 'ana password 1',
      firstName: 'Ana',
      role: 'Read Only User',
    })
    expect(made.statusCode, made.body).toBe(201)
    expect(made.json().data).toMatchObject({
      userName: 'ana',
      kind: 'human',
      organization: ORG,
      role: 'Read Only User',
      systemRole: 'User',
      firstName: 'Ana',
      disabled: false,
      tokenLifetimeDays: null,
    })
    expect(made.body).not.toContain('ana password 1')
    const humans = (await call('GET', '/accounts?kind=human', '/accounts')).json().data
    expect(humans.map((a: { userName: string }) => a.userName)).toEqual(['ana'])
    const signIn = (password: string) =>
      t.request({ method: 'POST', url: '/api/v3/session/sign-in', payload: { userName: 'ana', password }, as: null })
    expect((await signIn('ana password 1')).statusCode).toBe(200)

    const disabled = await call('PUT', '/accounts/ana', '/accounts/{userName}', { disabled: true })
    expect(disabled.json()).toMatchObject({ data: { userName: 'ana', disabled: true }, message: 'Updated' })
    expect((await signIn('ana password 1')).statusCode).toBe(401)
    const changed = await call('PUT', '/accounts/ana', '/accounts/{userName}', {
      disabled: false,
      password: 'ana password 2',
      tokenLifetimeDays: 30,
    })
    expect(changed.json().data).toMatchObject({ disabled: false, tokenLifetimeDays: 30 })
    expect((await signIn('ana password 1')).statusCode).toBe(401)
    expect((await signIn('ana password 2')).statusCode).toBe(200)
    const none = await call('PUT', '/accounts/ana', '/accounts/{userName}', { tokenLifetimeDays: null })
    expect(none.json().data.tokenLifetimeDays).toBeNull()
  })

  it('creates TAXII accounts (with their password) and API accounts, each listed by its kind', async () => {
    const noPassword = await call('POST', '/accounts', '/accounts', { userName: 'feed-reader', kind: 'taxii' })
    expect(noPassword.statusCode).toBe(400)
    expect(noPassword.json().message).toBe('A TAXII account needs a password')
    expect(
      (
        await call('POST', '/accounts', '/accounts', {
          userName: 'feed-reader',
          kind: 'taxii',
          password: 'taxii pass 1',
        })
      ).statusCode,
    ).toBe(201)
    expect((await call('POST', '/accounts', '/accounts', { userName: 'siem' })).json().data).toMatchObject({
      kind: 'api',
      systemRole: 'Api User',
    })
    const taxii = (await call('GET', '/accounts?kind=taxii', '/accounts')).json().data
    expect(taxii.map((a: { userName: string }) => a.userName)).toEqual(['feed-reader'])
  })

  it('refuses bad input with 400s and an unknown account with 404', async () => {
    const cases: [unknown, string][] = [
      [{ userName: 'x', kind: 'robot' }, 'Account kind must be one of human, api, taxii'],
      [{ userName: 'x', kind: 'human', password: 'short' }, 'A password must be at least 8 characters long'],
      [{ userName: 'x', role: 'Emperor' }, expect.stringContaining('Organization role must be one of') as never],
      [{ userName: 'x', organization: 'OSINT' }, "'OSINT' is a Source; an account's home must be an Organization"],
      [{ userName: 'x', tokenLifetimeDays: 0 }, 'tokenLifetimeDays must be at least 1'],
      [{ userName: 'ana' }, "An account named 'ana' already exists"],
      [{ kind: 'api' }, 'userName is required'],
    ]
    for (const [body, message] of cases) {
      const res = await call('POST', '/accounts', '/accounts', body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().message).toEqual(message)
    }
    const listBad = await call('GET', '/accounts?kind=robot', '/accounts')
    expect(listBad.statusCode).toBe(400)
    const unknown = await call('PUT', '/accounts/nobody', '/accounts/{userName}', { disabled: true })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().message).toBe("No account named 'nobody'")
    const nothing = await call('PUT', '/accounts/ana', '/accounts/{userName}', {})
    expect(nothing.json().message).toBe('Give at least one of disabled, password, tokenLifetimeDays')
    const other = await call('PUT', '/accounts/ana', '/accounts/{userName}', { systemRole: 'Administrator' })
    expect(other.statusCode).toBe(400)
    const self = await call('PUT', '/accounts/root-admin', '/accounts/{userName}', { disabled: true })
    expect(self.json().message).toBe('You cannot disable your own account; another administrator can')
  })
})

describe('/v3/admin/memberships', () => {
  it('sets a role in a Source, changes it, lists it and removes it', async () => {
    const set = await call('PUT', '/memberships/ana/OSINT', '/memberships/{userName}/{ownerName}', { role: 'Editor' })
    expect(set.json()).toEqual({
      data: { userName: 'ana', owner: 'OSINT', ownerType: 'Source', role: 'Editor' },
      message: 'Updated',
      status: 'Success',
    })
    await call('PUT', '/memberships/ana/OSINT', '/memberships/{userName}/{ownerName}', { role: 'Subscriber' })
    const mine = (await call('GET', '/memberships?userName=ana', '/memberships')).json().data
    expect(mine).toEqual([
      { userName: 'ana', owner: ORG, ownerType: 'Organization', role: 'Read Only User' },
      { userName: 'ana', owner: 'OSINT', ownerType: 'Source', role: 'Subscriber' },
    ])
    const ofOwner = (await call('GET', '/memberships?ownerName=OSINT', '/memberships')).json()
    expect(ofOwner.count).toBe(1)
    const removed = await call('DELETE', '/memberships/ana/OSINT', '/memberships/{userName}/{ownerName}')
    expect(removed.json()).toMatchObject({ data: { userName: 'ana', owner: 'OSINT', removed: true } })
    expect((await call('GET', '/memberships?ownerName=OSINT', '/memberships')).json().count).toBe(0)
  })

  it('finds an owner whose name holds a slash and spaces', async () => {
    await call('POST', '/owners', '/owners', { name: 'Partners / EU', type: 'Community' })
    const set = await call(
      'PUT',
      `/memberships/ana/${encodeURIComponent('Partners / EU')}`,
      '/memberships/{userName}/{ownerName}',
      {
        role: 'User',
      },
    )
    expect(set.statusCode, set.body).toBe(200)
    expect(set.json().data.owner).toBe('Partners / EU')
  })

  it('refuses a role that does not suit the owner, leaving the Organization, and unknown names', async () => {
    const role = await call('PUT', '/memberships/ana/OSINT', '/memberships/{userName}/{ownerName}', {
      role: 'Standard User',
    })
    expect(role.statusCode).toBe(400)
    expect(role.json().message).toMatch(/^Role for a Source must be one of Subscriber/)
    const leave = await call(
      'DELETE',
      `/memberships/ana/${encodeURIComponent(ORG)}`,
      '/memberships/{userName}/{ownerName}',
    )
    expect(leave.json().message).toBe('An account cannot leave its own Organization; disable it instead')
    const notMember = await call('DELETE', '/memberships/ana/OSINT', '/memberships/{userName}/{ownerName}')
    expect(notMember.statusCode).toBe(404)
    const noOwner = await call('PUT', '/memberships/ana/Nowhere', '/memberships/{userName}/{ownerName}', {
      role: 'User',
    })
    expect(noOwner.statusCode).toBe(404)
    expect(noOwner.json().message).toBe("No owner named 'Nowhere'")
    const noRole = await call('PUT', '/memberships/ana/OSINT', '/memberships/{userName}/{ownerName}', {})
    expect(noRole.json().message).toBe('role is required')
  })
})

describe('/v3/admin/accounts/{userName}/tokens and keys', () => {
  it('issues a token that works until it is revoked', async () => {
    const issued = await call('POST', '/accounts/siem/tokens', '/accounts/{userName}/tokens', { lifetimeDays: 7 })
    expect(issued.statusCode, issued.body).toBe(201)
    const { token, expiresAt, kind } = issued.json().data
    secrets.push(token)
    expect(kind).toBe('api')
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000)
    const asSiem = { userName: 'siem', token }
    expect((await t.request({ url: '/api/v3/security/owners', as: asSiem })).statusCode).toBe(200)
    // Not in any list.
    const accounts = (await call('GET', '/accounts', '/accounts')).body
    expect(accounts).not.toContain(token)

    const revoked = await call('DELETE', '/accounts/siem/tokens', '/accounts/{userName}/tokens')
    expect(revoked.json()).toEqual({ data: { userName: 'siem', revoked: 1 }, message: 'Deleted', status: 'Success' })
    expect((await t.request({ url: '/api/v3/security/owners', as: asSiem })).statusCode).toBe(401)
  })

  it('refuses tokens for TAXII accounts, a lifetime with a temporary token, and unknown accounts', async () => {
    const taxii = await call('POST', '/accounts/feed-reader/tokens', '/accounts/{userName}/tokens', {})
    expect(taxii.json().message).toBe('TAXII accounts use Basic authentication, not API tokens')
    const both = await call('POST', '/accounts/siem/tokens', '/accounts/{userName}/tokens', {
      temporary: true,
      lifetimeDays: 2,
    })
    expect(both.json().message).toBe('A temporary token always lives 4 hours: give it no lifetime')
    const unknown = await call('POST', '/accounts/nobody/tokens', '/accounts/{userName}/tokens', {})
    expect(unknown.statusCode).toBe(404)
    const temporary = await call('POST', '/accounts/siem/tokens', '/accounts/{userName}/tokens', { temporary: true })
    expect(temporary.json().data.kind).toBe('temporary')
    secrets.push(temporary.json().data.token)
  })

  it('creates an access key whose signatures work until revoked; keys are for API accounts only', async () => {
    const made = await call('POST', '/accounts/siem/keys', '/accounts/{userName}/keys')
    expect(made.statusCode, made.body).toBe(201)
    const { accessId, secretKey } = made.json().data
    secrets.push(secretKey)
    expect(accessId).toMatch(/^\d{20}$/)
    const asKey = { userName: 'siem', token: '', accessId, secretKey }
    expect((await t.request({ url: '/api/v3/security/owners', as: asKey, hmac: true })).statusCode).toBe(200)
    const wrong = await call('DELETE', '/accounts/siem/keys?accessId=1', '/accounts/{userName}/keys')
    expect(wrong.statusCode).toBe(404)
    const revoked = await call('DELETE', `/accounts/siem/keys?accessId=${accessId}`, '/accounts/{userName}/keys')
    expect(revoked.json().data).toEqual({ userName: 'siem', revoked: 1 })
    expect((await t.request({ url: '/api/v3/security/owners', as: asKey, hmac: true })).statusCode).toBe(401)
    const human = await call('POST', '/accounts/ana/keys', '/accounts/{userName}/keys')
    expect(human.json().message).toBe('Access id and secret key pairs belong to API accounts')
  })
})

describe('an unknown account', () => {
  it('is a 404 naming it on every route of one account', async () => {
    const routes: [Method, string, string, unknown?][] = [
      ['PUT', '/accounts/ghost', '/accounts/{userName}', { disabled: false }],
      ['POST', '/accounts/ghost/tokens', '/accounts/{userName}/tokens', {}],
      ['DELETE', '/accounts/ghost/tokens', '/accounts/{userName}/tokens'],
      ['POST', '/accounts/ghost/keys', '/accounts/{userName}/keys'],
      ['DELETE', '/accounts/ghost/keys', '/accounts/{userName}/keys'],
      ['PUT', '/memberships/ghost/OSINT', '/memberships/{userName}/{ownerName}', { role: 'User' }],
      ['DELETE', '/memberships/ghost/OSINT', '/memberships/{userName}/{ownerName}'],
    ]
    for (const [method, path, route, body] of routes) {
      const res = await call(method, path, route, body)
      expect(res.statusCode, `${method} ${path}`).toBe(404)
      expect(res.json()).toEqual({ errCode: '0x1007', message: "No account named 'ghost'", status: 'Error' })
    }
    expect((await call('GET', '/memberships?userName=ghost', '/memberships')).statusCode).toBe(404)
    expect((await call('GET', '/accounts?organization=Nowhere', '/accounts')).statusCode).toBe(404)
  })
})

describe('/v3/admin/settings', () => {
  it('lists every setting with its description and sets several at once', async () => {
    const all = (await call('GET', '/settings', '/settings')).json()
    expect(all.data.find((s: { name: string }) => s.name === 'tqlTimeoutMs')).toEqual({
      name: 'tqlTimeoutMs',
      value: 30_000,
      default: 30_000,
      type: 'integer',
      description: 'System-wide TQL query timeout in milliseconds',
    })
    const set = await call('PUT', '/settings', '/settings', { tqlTimeoutMs: 10_000, bulkDeleteEnabled: 'true' })
    expect(set.statusCode, set.body).toBe(200)
    const values = Object.fromEntries(set.json().data.map((s: { name: string; value: unknown }) => [s.name, s.value]))
    expect(values).toMatchObject({ tqlTimeoutMs: 10_000, bulkDeleteEnabled: true })
    expect(await t.services.settings.get('tqlTimeoutMs')).toBe(10_000)
  })

  it('stores none when one value is refused, and names it', async () => {
    const res = await call('PUT', '/settings', '/settings', { tqlTimeoutMs: 20_000, batchMaxIndicators: 0 })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toBe("Setting 'batchMaxIndicators' takes a whole number of at least 1")
    expect(await t.services.settings.get('tqlTimeoutMs')).toBe(10_000)
    expect((await call('PUT', '/settings', '/settings', { noSuch: 1 })).json().message).toMatch(
      /^Unknown setting 'noSuch'/,
    )
    expect((await call('PUT', '/settings', '/settings', {})).statusCode).toBe(400)
    expect((await call('PUT', '/settings', '/settings', { bulkDeleteEnabled: { a: 1 } })).statusCode).toBe(400)
  })
})

describe('anyone but a system administrator', () => {
  const routes: [Method, string, string, unknown?][] = [
    ['GET', '/owners', '/owners'],
    ['POST', '/owners', '/owners', { name: 'Mine', type: 'Source' }],
    ['GET', '/accounts', '/accounts'],
    ['POST', '/accounts', '/accounts', { userName: 'sneaky', systemRole: 'Administrator' }],
    ['PUT', '/accounts/root-admin', '/accounts/{userName}', { disabled: true }],
    ['POST', '/accounts/siem/tokens', '/accounts/{userName}/tokens', {}],
    ['DELETE', '/accounts/siem/tokens', '/accounts/{userName}/tokens'],
    ['POST', '/accounts/siem/keys', '/accounts/{userName}/keys'],
    ['DELETE', '/accounts/siem/keys', '/accounts/{userName}/keys'],
    ['GET', '/memberships', '/memberships'],
    ['PUT', '/memberships/ana/OSINT', '/memberships/{userName}/{ownerName}', { role: 'Director' }],
    ['DELETE', '/memberships/ana/OSINT', '/memberships/{userName}/{ownerName}'],
    ['GET', '/settings', '/settings'],
    ['PUT', '/settings', '/settings', { bulkDeleteEnabled: true }],
  ]

  it('gets 403 naming what was refused, on every route, and nothing changes', async () => {
    for (const [method, path, route, body] of routes) {
      const res = await call(method, path, route, body, orgAdmin)
      expect(res.statusCode, `${method} ${path}`).toBe(403)
      expect(res.json()).toEqual({
        errCode: '0x1002',
        message: expect.stringMatching(
          /^Only system administrators \(Administrator or Operations Administrator\) manage (owners|accounts|API tokens|access keys|memberships|system settings); your system role is Api User$/,
        ),
        status: 'Error',
      })
    }
    expect((await call('GET', '/owners', '/owners')).json().data.some((o: { name: string }) => o.name === 'Mine')).toBe(
      false,
    )
    expect(await t.services.settings.get('bulkDeleteEnabled')).toBe(true)
  })

  it('without credentials is refused as the rest of v3 refuses it', async () => {
    expect((await call('GET', '/owners', '/owners', undefined, null)).statusCode).toBe(403)
    const wrong = await call('GET', '/owners', '/owners', undefined, {
      userName: 'x',
      token: 'not-a-real-token-at-all',
    })
    expect(wrong.statusCode).toBe(401)
  })
})
