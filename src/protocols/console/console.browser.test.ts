/**
 * The console in a real browser: Debian's Chromium driven by playwright-core against a Bulwark
 * server on a loopback port (its self-signed certificate accepted), on the database of the test
 * project. Screenshots of each page are kept in test-artifacts/console/ (ignored by git).
 * Skipped, with a message, where /usr/bin/chromium is missing (`apt-get install chromium`).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoNow } from '../../core/time.js'
import { setMembership } from '../../domain/access/accounts.js'
import { SIGN_IN_REFUSED } from '../../domain/access/sessions.js'
import { setUserPasswordCommand } from '../../cli/commands/users.js'
import { TEST_DB, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import {
  type Browser,
  CHROMIUM,
  launchChromium,
  seriousViolations as axeViolations,
  cspRefusals,
} from '../../test/browser.js'
import { CONTENT_SECURITY_POLICY, IMMUTABLE } from './static.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const ARTIFACTS = join(ROOT, 'test-artifacts', 'console', TEST_DB)
const PASSWORD = 'analyst password 1'
const XSS_DESCRIPTION =
  '<img src=x onerror="window.__xss=1;alert(1)"><script>window.__xss=2</script>"><svg onload="window.__xss=3">'
const XSS_TAG = '"><svg onload=alert(3)>'

if (!existsSync(CHROMIUM))
  console.warn(`Skipping the console's browser tests: ${CHROMIUM} is missing (apt-get install -y chromium)`)

describe.skipIf(!existsSync(CHROMIUM))('the console in Chromium', () => {
  let t: TestApp
  let analyst: TestAccount
  let context: BrowserContext
  let page: Page
  let browser: Browser
  const dialogs: string[] = []

  beforeAll(async () => {
    // The console the server serves is the one `npm install` builds (dist/console); this builds it when stale.
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' })
    t = await createTestApp({ listen: true, console: { dir: join(ROOT, 'dist', 'console') } })
    analyst = await t.createAccount({ kind: 'human', role: 'Standard User', password: PASSWORD })
    await t.createOwner('Partner Community', 'Community')
    await t.createOwner('Closed Community', 'Community')
    for (const owner of ['Partner Community', 'Closed Community'])
      await setMembership(t.store.db, t.admin.userName, owner, 'Director', isoNow())
    await setMembership(t.store.db, analyst.userName, 'Partner Community', 'Subscriber', isoNow())

    const add = async (body: Record<string, unknown>, owner?: string) => {
      const res = await t.request({
        method: 'POST',
        url: `/api/v3/indicators${owner ? `?owner=${encodeURIComponent(owner)}` : ''}`,
        payload: body,
      })
      expect(res.statusCode, res.body).toBe(201)
      return res.json().data as { id: number }
    }
    const evil = await add({
      type: 'Host',
      hostName: 'evil.example',
      attributes: {
        data: Array.from({ length: 12 }, (_, n) => ({
          type: 'Description',
          value: n === 0 ? XSS_DESCRIPTION : `note ${String(n).padStart(2, '0')}`,
        })),
      },
      rating: 4,
      confidence: 80,
      description: XSS_DESCRIPTION,
      source: 'javascript:alert(document.domain)',
      tags: { data: [{ name: XSS_TAG }] },
    })
    const group = await t.request({
      method: 'POST',
      url: '/api/v3/groups',
      payload: { type: 'Adversary', name: XSS_TAG, associatedIndicators: { data: [{ id: evil.id }] } },
    })
    expect(group.statusCode, group.body).toBe(201)
    await add({ type: 'Address', ip: '1.2.3.4', rating: 2 })
    await add({ type: 'URL', text: 'http://evil.example/x' })
    await add({ type: 'File', md5: 'd41d8cd98f00b204e9800998ecf8427e' })
    await add({ type: 'Host', hostName: 'partner.example' }, 'Partner Community')
    await add({ type: 'Host', hostName: 'closed.example' }, 'Closed Community')
    for (let i = 0; i < 60; i++)
      await add({
        type: 'Host',
        hostName: `page-${String(i).padStart(2, '0')}.example`,
        tags: { data: [{ name: 'paging' }] },
      })

    // Not emptied first: the triage test writes its screenshots to the same folder, perhaps at the same time.
    mkdirSync(ARTIFACTS, { recursive: true })
    browser = await launchChromium()
    context = browser.context
    page = browser.page
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    // Every Content-Security-Policy refusal is recorded: a payload that reached the DOM as HTML would leave one.
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
  const searchbox = () => page.getByRole('searchbox', { name: 'Search' })
  const summaries = () => page.locator('table.results td.summary').allTextContents()

  async function search(text: string) {
    await searchbox().fill(text)
    await searchbox().press('Enter')
    await page.waitForFunction(() => !document.querySelector('.status')?.textContent?.startsWith('Searching'))
  }

  const seriousViolations = () => axeViolations(page)

  it('serves the page with a strict Content-Security-Policy, uncached, and its assets hashed and immutable', async () => {
    const res = await page.goto(`${t.baseUrl}/`)
    expect(res!.status()).toBe(200)
    const headers = res!.headers()
    expect(headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(headers['content-security-policy']).toContain("script-src 'self'")
    expect(headers['content-security-policy']).not.toContain('unsafe-inline')
    expect(headers['cache-control']).toBe('no-cache')
    const script = await page.locator('script[src]').getAttribute('src')
    expect(script).toMatch(/^\/assets\/index-[A-Za-z0-9_-]{8}\.js$/)
    const asset = await page.request.get(`${t.baseUrl}${script}`)
    expect(asset.headers()['cache-control']).toBe(IMMUTABLE)
    expect(asset.headers()['content-type']).toBe('text/javascript; charset=utf-8')
    // The first load's JavaScript: the issue's budget is 250 KB gzipped; the console is one script.
    const scripts = await page.locator('script[src]').count()
    expect(scripts).toBe(1)
    expect(gzipSync(await asset.body()).length).toBeLessThan(250_000)
  })

  it('shows the sign-in form, which passes the accessibility check', async () => {
    await expect(page.getByLabel('User name').isVisible()).resolves.toBe(true)
    await expect(page.getByLabel('Password').isVisible()).resolves.toBe(true)
    await shot('sign-in')
    expect(await seriousViolations()).toEqual([])
  })

  it('refuses a wrong password without saying which part was wrong', async () => {
    await page.getByLabel('User name').fill(analyst.userName)
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect(page.getByRole('alert').textContent()).resolves.toBe(SIGN_IN_REFUSED)
    await expect(page.getByLabel('Password').inputValue()).resolves.toBe('')
    await shot('sign-in-refused')
  })

  it('signs in with the keyboard; the session cookie is HttpOnly and never reaches a script', async () => {
    await page.getByLabel('User name').fill(analyst.userName)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByLabel('Password').press('Enter')
    await searchbox().waitFor()
    const cookies = await context.cookies()
    const session = cookies.find((c) => c.name === '__Host-bulwark-session')
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/' })
    expect(await page.evaluate(() => document.cookie)).not.toContain('bulwark-session')
  })

  it("lists the Indicators of every owner the person reads, and none of the others'", async () => {
    await page.waitForFunction(() => !document.querySelector('.status')?.textContent?.startsWith('Searching'))
    await expect(page.locator('.status').textContent()).resolves.toBe('65 found, page 1')
    await search('partner.example')
    expect(await summaries()).toEqual(['partner.example'])
    await search('closed.example')
    expect(await summaries()).toEqual([])
    await expect(page.getByText('No Indicators match.').isVisible()).resolves.toBe(true)
  })

  it.each([
    ['evil[.]example', 'evil.example'],
    ['1.2.3[.]4', '1.2.3.4'],
    ['hxxp://evil[.]example/x', 'http://evil.example/x'],
    ['D41D8CD98F00B204E9800998ECF8427E', 'D41D8CD98F00B204E9800998ECF8427E'],
  ])('finds %s by its value', async (typed, summary) => {
    await search(typed)
    expect(await summaries()).toEqual([summary])
    const hash = new URL(page.url()).hash
    expect(hash.startsWith('#/search?')).toBe(true)
    expect(new URLSearchParams(hash.slice(hash.indexOf('?') + 1)).get('q')).toBe(typed)
  })

  it('searches by TQL, pages by next, and a reload keeps the query, the sort and the page', async () => {
    await page.getByLabel('Sort by').selectOption('summary asc')
    await search('tag = "paging"')
    await expect(page.locator('.status').textContent()).resolves.toBe('60 found, page 1')
    const first = await summaries()
    expect(first).toHaveLength(50)
    expect(first[0]).toBe('page-00.example')
    await page.getByRole('button', { name: 'Next page' }).click()
    await page.waitForFunction(() => document.querySelector('.status')?.textContent?.endsWith('page 2'))
    const second = await summaries()
    expect(second).toEqual(Array.from({ length: 10 }, (_, i) => `page-${50 + i}.example`))
    const hash = new URL(page.url()).hash
    expect(hash).toMatch(/^#\/search\?q=tag\+%3D\+%22paging%22&sort=summary\+asc&page=2/)
    await shot('search-page-2')
    await page.reload()
    await searchbox().waitFor()
    await page.waitForFunction(() => document.querySelector('.status')?.textContent?.endsWith('page 2'))
    expect(await summaries()).toEqual(second)
    expect(await searchbox().inputValue()).toBe('tag = "paging"')
    expect(await page.getByLabel('Sort by').inputValue()).toBe('summary asc')
    await page.goBack()
    await page.waitForFunction(() => document.querySelector('.status')?.textContent?.endsWith('page 1'))
    expect(await summaries()).toEqual(first)
  })

  it('answers a pasted list of values with those known and those not', async () => {
    await searchbox().fill('')
    await searchbox().evaluate((input, text) => {
      const data = new DataTransfer()
      data.setData('text/plain', text)
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
    }, 'evil[.]example\n1.2.3[.]4\nunknown.example\nnot a value\n')
    expect(await searchbox().inputValue()).toBe('evil[.]example, 1.2.3[.]4, unknown.example, not a value')
    await searchbox().press('Enter')
    await page.getByRole('heading', { name: 'Known: 2' }).waitFor()
    expect((await summaries()).sort()).toEqual(['1.2.3.4', 'evil.example'])
    await expect(page.getByRole('heading', { name: 'Not known: 1' }).isVisible()).resolves.toBe(true)
    expect(await page.getByRole('list', { name: 'Not known: 1' }).textContent()).toBe('Host unknown.example')
    await expect(page.getByRole('heading', { name: 'Not values: 1' }).isVisible()).resolves.toBe(true)
    await shot('search-list')
    expect(await seriousViolations()).toEqual([])
  })

  it("completes TQL keywords from the server's own list", async () => {
    await searchbox().fill('rating >= 3 and typeN')
    const offered = page.getByRole('group', { name: 'TQL keywords' }).getByRole('button')
    expect(await offered.allTextContents()).toEqual(['typeName'])
    await offered.first().click()
    expect(await searchbox().inputValue()).toBe('rating >= 3 and typeName ')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search')
    await searchbox().fill('evil.example')
    expect(await page.getByRole('group', { name: 'TQL keywords' }).count()).toBe(0)
  })

  it('works by keyboard: from the search field to a result and its page', async () => {
    await page.goto(`${t.baseUrl}/#/search`)
    await searchbox().waitFor()
    await page.locator('body').focus()
    let steps = 0
    while ((await page.evaluate(() => document.activeElement?.id)) !== 'search' && steps++ < 10)
      await page.keyboard.press('Tab')
    await page.keyboard.type('1.2.3[.]4')
    await page.keyboard.press('Enter')
    await page.locator('table.results td.summary a').waitFor()
    for (steps = 0; steps < 20; steps++) {
      await page.keyboard.press('Tab')
      if ((await page.evaluate(() => document.activeElement?.textContent)) === '1.2.3.4') break
    }
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: '1.2.3.4' }).waitFor()
    expect(new URL(page.url()).hash).toMatch(/^#\/details\/indicators\/\d+\/overview$/)
    await page.goBack()
    await searchbox().waitFor()
  })

  it('asks to sign in again when the session ends under an open page, and comes back to the same view', async () => {
    await search('1.2.3[.]4')
    const view = page.url()
    // Another browser signing in is not this one; a new password ends every session of the account.
    await setUserPasswordCommand(t.store, t.services, { userName: analyst.userName, password: PASSWORD })
    await searchbox().fill('evil[.]example')
    await searchbox().press('Enter')
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await page.getByLabel('User name').fill(analyst.userName)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await searchbox().waitFor()
    await page.waitForFunction(() => !document.querySelector('.status')?.textContent?.startsWith('Searching'))
    expect(await summaries()).toEqual(['evil.example'])
    await page.goto(view)
    await page.waitForFunction(() => document.querySelector('td.summary')?.textContent === '1.2.3.4')
  })

  it('says what is wrong with a TQL expression', async () => {
    await search('rating >>> 3')
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/.+/)
    expect(await summaries()).toEqual([])
  })

  it("shows adversaries' markup as text and never runs it", async () => {
    await search('evil.example')
    const row = page.locator('table.results tbody tr')
    await expect(row.locator('td.description').textContent()).resolves.toBe(XSS_DESCRIPTION)
    await expect(row.locator('.tag').textContent()).resolves.toBe(XSS_TAG)
    expect(await page.locator('table.results img, table.results svg, table.results script').count()).toBe(0)
    await shot('search-xss-as-text')
    expect(await seriousViolations()).toEqual([])

    await row.getByRole('link', { name: 'evil.example' }).click()
    await page.getByRole('heading', { name: 'evil.example' }).waitFor()
    expect(new URL(page.url()).hash).toMatch(/^#\/details\/indicators\/\d+\/overview$/)
    await expect(page.locator('p.description').textContent()).resolves.toBe(XSS_DESCRIPTION)
    // A javascript: URL from intelligence is shown, never made a link.
    await expect(page.getByText('javascript:alert(document.domain)').isVisible()).resolves.toBe(true)
    expect(await page.locator('a[href^="javascript:" i], a[href^="data:" i]').count()).toBe(0)
    // Attributes and associations: paged and counted, shown as text.
    await page.getByRole('heading', { name: 'Attributes (12)' }).waitFor()
    const attributes = page.locator('section[aria-labelledby="list-attributes"] tbody tr')
    expect(await attributes.count()).toBe(10)
    await expect(page.getByRole('cell', { name: XSS_DESCRIPTION, exact: true }).count()).resolves.toBeGreaterThan(0)
    await page.getByRole('heading', { name: 'Associated Groups (1)' }).waitFor()
    await expect(
      page.locator('section[aria-labelledby="list-associated-groups"] td.summary').textContent(),
    ).resolves.toBe(XSS_TAG)
    await shot('indicator-page')
    await page.getByRole('button', { name: 'Next attributes' }).click()
    await page.waitForFunction(
      () => document.querySelectorAll('section[aria-labelledby="list-attributes"] tbody tr').length === 2,
    )
    expect(await seriousViolations()).toEqual([])

    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined()
    expect(await cspRefusals(page)).toEqual([])
    expect(dialogs).toEqual([])
  })

  it('opens an Indicator at its v3 webLink, and at its v2 legacyLink, which leads to the same page', async () => {
    const v3 = (await t.request({ url: '/api/v3/indicators?tql=summary%20%3D%20%22evil.example%22' })).json().data[0]
    expect(v3.webLink).toBe(`${t.baseUrl}/#/details/indicators/${v3.id}/overview`)
    await page.goto(v3.webLink)
    await page.getByRole('heading', { name: 'evil.example' }).waitFor()
    const v2 = (await t.request({ url: '/api/v2/indicators/hosts/evil.example' })).json().data.host
    expect(v2.webLink).toMatch(/\/auth\/indicators\/details\/host\.xhtml\?host=evil\.example&owner=/)
    await page.goto(`${t.baseUrl}/#/search`)
    await searchbox().waitFor()
    await page.goto(v2.webLink)
    await page.waitForURL(`${t.baseUrl}/#/details/indicators/${v3.id}/overview`)
    await page.getByRole('heading', { name: 'evil.example' }).waitFor()
  })

  it('refuses a write that lacks the CSRF token, and takes one that has it', async () => {
    const answers = await page.evaluate(async () => {
      const body = JSON.stringify({ type: 'Host', hostName: 'csrf.example' })
      const headers = { 'content-type': 'application/json' }
      const without = await fetch('/api/v3/indicators', { method: 'POST', headers, body })
      const session = (await (await fetch('/api/v3/session')).json()) as { data: { csrfToken: string } }
      const withToken = await fetch('/api/v3/indicators', {
        method: 'POST',
        headers: { ...headers, 'x-csrf-token': session.data.csrfToken },
        body,
      })
      return [without.status, withToken.status]
    })
    expect(answers).toEqual([403, 201])
  })

  it('signs out: the session ends and the sign-in form is back, also after a reload', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    expect((await context.cookies()).find((c) => c.name === '__Host-bulwark-session')).toBeUndefined()
    await page.reload()
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    // Without a session the browser holds no credentials at all: the REST API's answer to that is 403.
    const status = await page.evaluate(async () => (await fetch('/api/v3/indicators')).status)
    expect(status).toBe(403)
  })
})
