/**
 * Console sign-in, sessions and their use on the REST API, through the app (inject). The browser
 * drives the same endpoints in console.browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { createSignInThrottle } from '../../domain/access/sign-in-throttle.js'
import { ORG, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { SIGN_IN_REFUSED } from '../../domain/access/sessions.js'
import { setMembership } from '../../domain/access/accounts.js'
import { isoNow } from '../../core/time.js'
import { createUserCommand, setUserPasswordCommand } from '../../cli/commands/users.js'

const PASSWORD = 'correct horse battery'
let t: TestApp
let analyst: TestAccount
let reader: TestAccount
let robot: TestAccount

beforeAll(async () => {
  t = await createTestApp({
    console: { throttle: createSignInThrottle({ perAccount: 3, perAddress: 6, windowMs: 60_000 }) },
  })
  analyst = await t.createAccount({ kind: 'human', role: 'Standard User', password: PASSWORD })
  reader = await t.createAccount({ kind: 'human', role: 'Read Only User', password: PASSWORD })
  robot = await t.createAccount({ kind: 'api', password: PASSWORD })
  await t.createOwner('Shared Community', 'Community')
  await t.createOwner('Other Community', 'Community')
  for (const community of ['Shared Community', 'Other Community'])
    await setMembership(t.store.db, t.admin.userName, community, 'Director', isoNow())
  const added = await t.request({
    method: 'POST',
    url: '/api/v3/indicators?owner=Shared%20Community',
    payload: { type: 'Host', hostName: 'shared.example', rating: 3 },
  })
  expect(added.statusCode).toBe(201)
  await t.request({
    method: 'POST',
    url: '/api/v3/indicators?owner=Other%20Community',
    payload: { type: 'Host', hostName: 'hidden.example' },
  })
  await t.request({ method: 'POST', url: '/api/v3/indicators', payload: { type: 'Host', hostName: 'home.example' } })
})
afterAll(() => t.close())

function signIn(userName: string, password: string, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v3/session/sign-in',
    headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/json', ...headers },
    payload: JSON.stringify({ userName, password }),
  })
}

function cookieOf(res: LightMyRequestResponse): string {
  const header = String(res.headers['set-cookie'])
  return header.slice(0, header.indexOf(';'))
}

async function session(account: TestAccount) {
  const res = await signIn(account.userName, PASSWORD)
  expect(res.statusCode).toBe(200)
  return { cookie: cookieOf(res), csrf: res.json().data.csrfToken as string }
}

function withSession(
  s: { cookie: string },
  options: { method?: string; url: string; headers?: Record<string, string>; payload?: unknown },
) {
  return t.request({
    as: null,
    method: (options.method ?? 'GET') as 'GET',
    url: options.url,
    headers: { cookie: s.cookie, ...options.headers },
    payload: options.payload as object,
  })
}

describe('sign-in', () => {
  it('gives a human account an HttpOnly, Secure, SameSite=Strict session cookie and a CSRF token', async () => {
    const res = await signIn(analyst.userName, PASSWORD)
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const cookie = String(res.headers['set-cookie'])
    expect(cookie).toMatch(
      /^__Host-bulwark-session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=28800$/,
    )
    const body = res.json()
    expect(body.status).toBe('Success')
    expect(body.data).toMatchObject({ userName: analyst.userName, firstName: 'Test' })
    expect(body.data.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Date.parse(body.data.expiresAt) - Date.now()).toBeGreaterThan(7.9 * 3_600_000)
  })

  it('signs in a person made by `bulwark users create NAME --kind human --password …`', async () => {
    await createUserCommand(t.store, t.services, {
      userName: 'cli-person',
      kind: 'human',
      organization: ORG,
      role: 'Read Only User',
      password: PASSWORD,
    })
    const res = await signIn('cli-person', PASSWORD)
    expect(res.statusCode).toBe(200)
    expect(res.json().data.userName).toBe('cli-person')
  })

  it('keeps only a hash of the session token in the database', async () => {
    const res = await signIn(analyst.userName, PASSWORD)
    const token = cookieOf(res).split('=')[1]
    const rows = await t.store.db.selectFrom('console_session').select(['token_hash']).execute()
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.map((r) => r.token_hash)).not.toContain(token)
  })

  it('answers a wrong password, an unknown name and an API account with the same words', async () => {
    const answers = [
      await signIn(reader.userName, 'wrong password'),
      await signIn('nobody-of-that-name', PASSWORD),
      await signIn(robot.userName, PASSWORD),
    ]
    for (const res of answers) {
      expect(res.statusCode).toBe(401)
      expect(res.headers['set-cookie']).toBeUndefined()
      expect(res.json()).toEqual({ errCode: '0x1002', message: SIGN_IN_REFUSED, status: 'Error' })
    }
  })

  it('refuses a form post (not JSON) and a post from another site', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/v3/session/sign-in',
      headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/x-www-form-urlencoded' },
      payload: `userName=${analyst.userName}&password=${PASSWORD}`,
    })
    expect(form.statusCode).toBe(415)
    const crossSite = await signIn(analyst.userName, PASSWORD, { origin: 'https://evil.example', host: 'bulwark.test' })
    expect(crossSite.statusCode).toBe(403)
    const fromPublicUrl = await signIn(analyst.userName, PASSWORD, {
      origin: 'https://bulwark.test',
      host: 'node-1:8443',
    })
    expect(fromPublicUrl.statusCode).toBe(200)
  })

  it('refuses plain HTTP', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v3/session/sign-in',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ userName: analyst.userName, password: PASSWORD }),
    })
    expect(res.statusCode).toBe(403)
  })

  it('throttles failed sign-ins per account name, even for the right password, and says when to retry', async () => {
    const target = await t.createAccount({ kind: 'human', password: PASSWORD })
    for (let i = 0; i < 3; i++)
      expect((await signIn(target.userName, `guess ${i}`, { 'x-forwarded-for': `10.0.0.${i}` })).statusCode).toBe(401)
    const refused = await signIn(target.userName, PASSWORD, { 'x-forwarded-for': '10.0.0.9' })
    expect(refused.statusCode).toBe(429)
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(50)
    expect(refused.json().message).toMatch(/^Too many failed sign-ins: try again in \d+ s$/)
  })

  it('throttles failed sign-ins per address across names', async () => {
    const from = { 'x-forwarded-for': '10.9.9.9' }
    for (let i = 0; i < 6; i++) expect((await signIn(`sprayed-${i}`, 'password1', from)).statusCode).toBe(401)
    expect((await signIn(analyst.userName, PASSWORD, from)).statusCode).toBe(429)
    expect((await signIn(analyst.userName, PASSWORD, { 'x-forwarded-for': '10.9.9.10' })).statusCode).toBe(200)
  })
})

describe('a session on the REST API', () => {
  it('reads as the account reads: every owner it is a member of, nothing else', async () => {
    const member = await t.createAccount({
      kind: 'human',
      password: PASSWORD,
      memberships: { 'Shared Community': 'Subscriber' },
    })
    const s = await session(member)
    const res = await withSession(s, { url: '/api/v3/indicators?resultLimit=100' })
    expect(res.statusCode).toBe(200)
    const summaries = res
      .json()
      .data.map((i: { summary: string }) => i.summary)
      .sort()
    expect(summaries).toEqual(['home.example', 'shared.example'])
    const v2 = await withSession(s, { url: '/api/v2/indicators/hosts?owner=Shared%20Community' })
    expect(v2.statusCode).toBe(200)
    expect(v2.json().data.host.map((h: { summary: string }) => h.summary)).toEqual(['shared.example'])
    const barred = await withSession(s, { url: '/api/v2/indicators?owner=Other%20Community' })
    expect(barred.statusCode).toBe(403)
  })

  it('writes with the CSRF token and is refused without it or with another', async () => {
    const s = await session(analyst)
    const payload = { type: 'Host', hostName: 'written-by-session.example' }
    const without = await withSession(s, { method: 'POST', url: '/api/v3/indicators', payload })
    expect(without.statusCode).toBe(403)
    expect(without.json().message).toBe("A write from the console must carry its session's x-csrf-token header")
    const other = await session(analyst)
    const wrong = await withSession(s, {
      method: 'POST',
      url: '/api/v3/indicators',
      payload,
      headers: { 'x-csrf-token': other.csrf },
    })
    expect(wrong.statusCode).toBe(403)
    const ok = await withSession(s, {
      method: 'POST',
      url: '/api/v3/indicators',
      payload,
      headers: { 'x-csrf-token': s.csrf },
    })
    expect(ok.statusCode).toBe(201)
    expect(ok.json().data.summary).toBe('written-by-session.example')
  })

  it('keeps the role: a Read Only User reads but may not write', async () => {
    const s = await session(reader)
    expect((await withSession(s, { url: '/api/v3/indicators' })).statusCode).toBe(200)
    const write = await withSession(s, {
      method: 'POST',
      url: '/api/v3/indicators',
      payload: { type: 'Host', hostName: 'read-only.example' },
      headers: { 'x-csrf-token': s.csrf },
    })
    expect(write.statusCode).toBe(401)
  })

  it('answers the session with its CSRF token, and ends at sign-out', async () => {
    const s = await session(analyst)
    const current = await withSession(s, { url: '/api/v3/session' })
    expect(current.statusCode).toBe(200)
    expect(current.json().data).toMatchObject({ userName: analyst.userName, csrfToken: s.csrf })
    const noToken = await withSession(s, { method: 'POST', url: '/api/v3/session/sign-out' })
    expect(noToken.statusCode).toBe(403)
    const out = await withSession(s, {
      method: 'POST',
      url: '/api/v3/session/sign-out',
      headers: { 'x-csrf-token': s.csrf },
    })
    expect(out.statusCode).toBe(200)
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0')
    expect((await withSession(s, { url: '/api/v3/session' })).statusCode).toBe(401)
    const after = await withSession(s, { url: '/api/v3/indicators' })
    expect(after.statusCode).toBe(401)
    expect(after.json().message).toBe('The session has ended: sign in again')
  })

  it('ends at its expiry', async () => {
    const short = await createTestApp({ console: { sessionTtlMs: 1000 } })
    try {
      const person = await short.createAccount({ kind: 'human', password: PASSWORD })
      const res = await short.app.inject({
        method: 'POST',
        url: '/api/v3/session/sign-in',
        headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/json' },
        payload: JSON.stringify({ userName: person.userName, password: PASSWORD }),
      })
      const cookie = cookieOf(res)
      const read = () => short.request({ as: null, url: '/api/v3/indicators', headers: { cookie } })
      expect((await read()).statusCode).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 1100))
      expect((await read()).statusCode).toBe(401)
    } finally {
      await short.close()
    }
  })

  it('ends when the account is disabled', async () => {
    const person = await t.createAccount({ kind: 'human', password: PASSWORD })
    const s = await session(person)
    expect((await withSession(s, { url: '/api/v3/indicators' })).statusCode).toBe(200)
    await t.store.db.updateTable('user_account').set({ disabled: 1 }).where('user_name', '=', person.userName).execute()
    expect((await withSession(s, { url: '/api/v3/indicators' })).statusCode).toBe(401)
  })

  it('ends when the password changes, and when the browser signs in again', async () => {
    const person = await t.createAccount({ kind: 'human', password: PASSWORD })
    const first = await session(person)
    const again = await signIn(person.userName, PASSWORD, { cookie: first.cookie })
    expect(again.statusCode).toBe(200)
    expect((await withSession(first, { url: '/api/v3/indicators' })).statusCode).toBe(401)
    const second = { cookie: cookieOf(again) }
    expect((await withSession(second, { url: '/api/v3/indicators' })).statusCode).toBe(200)
    await setUserPasswordCommand(t.store, t.services, { userName: person.userName, password: 'another password' })
    expect((await withSession(second, { url: '/api/v3/indicators' })).statusCode).toBe(401)
  })

  it('gives way to an Authorization header: API clients are unaffected by a stray cookie', async () => {
    const res = await t.request({ url: '/api/v3/indicators', headers: { cookie: '__Host-bulwark-session=nonsense' } })
    expect(res.statusCode).toBe(200)
  })
})

describe('the OpenAPI document', () => {
  it('lists the session endpoints in v3', async () => {
    const doc = (await t.request({ as: null, url: '/api/v3/openApi' })).json()
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/api/v3/session'))
        .sort(),
    ).toEqual(['/api/v3/session', '/api/v3/session/sign-in', '/api/v3/session/sign-out'])
    expect(doc.paths['/api/v3/session/sign-in'].post.requestBody.content['application/json'].schema.required).toEqual([
      'userName',
      'password',
    ])
  })
})
