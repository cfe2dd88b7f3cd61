/**
 * The console's administration of feeds, outbound lists and jobs in a real browser (Debian's Chromium
 * through playwright-core), on the database of the test project. A system administrator adds a text-list
 * feed served on loopback (the feeds' own HTTP client, with feedsAllowPrivateNetworks on and the server's
 * certificate given as the feed's CA), with credentials that are never shown again; runs it from the page
 * and sees the run end with its counts and the refusal of the bad line; changes, disables and enables it;
 * saves an outbound list and reads its text URL; and reads another account's batch job and import with
 * their errors. Each page passes axe-core; screenshots go to test-artifacts/console/<db>/ (git-ignored).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoNow } from '../../core/time.js'
import { createAccount, setMembership } from '../../domain/access/accounts.js'
import { runPendingImports } from '../../domain/imports/import-jobs.js'
import { batchThroughApi } from '../../test/batch.js'
import { type Browser, CHROMIUM, launchChromium, seriousViolations, cspRefusals } from '../../test/browser.js'
import { type FeedServer, startFeedServer } from '../../test/feed-server.js'
import { ORG, TEST_DB, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const ARTIFACTS = join(ROOT, 'test-artifacts', 'console', TEST_DB)
const PASSWORD = 'operator password 9'
const SOURCE = 'Loopback Source'
const FEED = 'Loopback hosts'
const SECRET = 'never-shown-feed-secret'
const MARKUP = '<img src=x onerror="window.__xss=1">'

if (!existsSync(CHROMIUM))
  console.warn(
    `Skipping the console's administration browser tests: ${CHROMIUM} is missing (apt-get install -y chromium)`,
  )

describe.skipIf(!existsSync(CHROMIUM))('administration of feeds, outbound lists and jobs in Chromium', () => {
  let t: TestApp
  let server: FeedServer
  let analyst: TestAccount
  let browser: Browser
  let page: Page
  const operator = `operator-${Date.now().toString(36)}`
  const jobs = { batch: 0, import: 0 }

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' })
    t = await createTestApp({ listen: true, console: { dir: join(ROOT, 'dist', 'console') } })
    await t.services.settings.set('feedsAllowPrivateNetworks', 'true')
    await t.createOwner(SOURCE, 'Source')
    await createAccount(
      t.store.db,
      {
        userName: operator,
        kind: 'human',
        organization: ORG,
        role: 'Organization Administrator',
        systemRole: 'Administrator',
        password: PASSWORD,
        firstName: 'Oper',
        lastName: 'Ator',
      },
      isoNow(),
    )
    // A feed writes as the administrator who adds it, who therefore needs a role in its owner.
    await setMembership(t.store.db, operator, SOURCE, 'Editor', isoNow())

    server = await startFeedServer()
    server.files.set('/hosts.txt', {
      body: `alpha.example\nbeta.example\n${MARKUP}\ngamma.example\n`,
      etag: '"v1"',
    })

    // Another account's work: a batch job with one bad Indicator, an import with two bad lines.
    analyst = await t.createAccount({ role: 'Standard User' })
    const batch = await batchThroughApi(
      t,
      {
        indicator: [
          { type: 'Host', summary: 'batch-ok.example' },
          { type: 'Address', summary: 'not an address' },
        ],
      },
      {},
      ORG,
      analyst,
    )
    expect(batch.status).toMatchObject({ successCount: 1, errorCount: 1 })
    jobs.batch = batch.id
    const upload = await t.request({
      method: 'POST',
      url: '/api/v3/imports?fileName=analyst-hosts.txt&type=Host',
      payload: `import-ok.example\n!!first bad!!\n${MARKUP}\n`,
      headers: { 'content-type': 'application/octet-stream' },
      as: analyst,
    })
    expect(upload.statusCode, upload.body).toBe(201)
    jobs.import = upload.json().data.id
    await runPendingImports(t.store, t.services, 'test-worker')

    mkdirSync(ARTIFACTS, { recursive: true })
    browser = await launchChromium()
    page = browser.page
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl })
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await t?.close()
  })

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
  const heading = (name: string | RegExp) => page.getByRole('heading', { name, exact: typeof name === 'string' })
  /** Waits for the status line that says `text`; a refusal shown instead fails at once with its words. */
  const status = async (text: string | RegExp) => {
    const said = page.getByRole('status').filter({ hasText: text })
    const refused = page.locator('[role="alert"]')
    await said.or(refused).first().waitFor({ timeout: 20_000 })
    if (!(await said.count())) throw new Error(`Refused: ${await refused.first().textContent()}`)
    return (await said.first().textContent()) ?? ''
  }
  const noScriptRan = async () => {
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined()
    expect(await cspRefusals(page)).toEqual([])
    expect(await page.locator('main img, main script').count()).toBe(0)
  }

  it('signs the administrator in and shows the feeds page', async () => {
    await page.goto(`${t.baseUrl}/`)
    await page.getByLabel('User name').fill(operator)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('link', { name: 'Administration' }).click()
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Feeds' }).click()
    await heading('Feeds').waitFor()
    await page.getByText('No feed yet.').waitFor()
    expect(await seriousViolations(page)).toEqual([])
  })

  it('adds a text-list feed on loopback with credentials that are never shown again', async () => {
    await page.getByRole('button', { name: 'Add a feed' }).click()
    await heading('Add a feed').waitFor()
    await page.getByLabel('Name', { exact: true }).fill(FEED)
    // Each kind's settings are offered with it: a TAXII 2.1 collection and its types, a text list's type.
    await page.getByLabel('Kind', { exact: true }).selectOption('taxii21')
    await page.getByLabel('Collection', { exact: true }).waitFor()
    await page.getByLabel('Only these STIX types (optional)').waitFor()
    expect(await page.getByLabel('Every value is of type').count()).toBe(0)
    await page.getByLabel('Kind', { exact: true }).selectOption('text')
    await page.getByLabel('URL', { exact: true }).fill(`${server.url}/hosts.txt`)
    await page.getByLabel('Owner (where its items go)').selectOption(SOURCE)
    await page.getByLabel('Every value is of type').selectOption('Host')
    // Only the kind's settings are offered: a text list has no collection.
    expect(await page.getByLabel('Collection').count()).toBe(0)
    await page.getByLabel('How the feed proves who it is').selectOption('basic')
    await page.getByLabel('User name').fill('reader')
    await page.getByLabel('Password').fill(SECRET)
    await page.getByLabel('CA certificates to trust (PEM, optional)').fill(server.caPem)
    await page.getByLabel('Tags', { exact: true }).fill('loopback, console')
    expect(await seriousViolations(page)).toEqual([])
    await shot('admin-feed-form')
    await page.getByRole('button', { name: 'Add the feed' }).click()
    await status(`${FEED} added: it is due at once`)
    const row = page.getByRole('row').filter({ hasText: FEED })
    await expect(row.getByRole('cell').allTextContents()).resolves.toEqual([
      FEED,
      'Text list (one value a line)',
      `${server.url}/hosts.txt`,
      SOURCE,
      'basic',
      '1h',
      'never',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/),
      expect.stringContaining('Run now'),
    ])
    expect(await page.content()).not.toContain(SECRET)
    const feeds = await operatorApi<{ data: Record<string, unknown>[] }>('/api/v3/feeds')
    expect(feeds.data).toEqual([
      expect.objectContaining({
        name: FEED,
        kind: 'text',
        owner: SOURCE,
        credentials: 'basic',
        hasCaFile: true,
        settings: { indicatorType: 'Host' },
        defaults: { tags: ['loopback', 'console'] },
      }),
    ])
    expect(JSON.stringify(feeds)).not.toContain(SECRET)
  })

  /** A GET through the page, with the administrator's session (as the console itself reads). */
  /** A request of the signed-in operator's session (a write with the session's CSRF token, as the console sends it). */
  async function operatorApi<T>(path: string, method = 'GET', body?: unknown): Promise<T> {
    return page.evaluate(
      async ({ url, method, body }) => {
        const headers: Record<string, string> = { accept: 'application/json' }
        if (method !== 'GET') {
          const session = await (await fetch('/api/v3/session', { credentials: 'same-origin' })).json()
          headers['x-csrf-token'] = session.data.csrfToken
          headers['content-type'] = 'application/json'
        }
        const res = await fetch(url, {
          method,
          headers,
          credentials: 'same-origin',
          body: body === undefined ? undefined : JSON.stringify(body),
        })
        return (await res.json()) as T
      },
      { url: path, method, body },
    )
  }

  it('runs the feed from the page and shows the run end with its counts and the refused line in its history', async () => {
    await page.getByRole('button', { name: `Run now ${FEED}` }).click()
    const said = await status(/Succeeded|Failed|Interrupted/)
    expect(said).toMatch(
      new RegExp(`^Run \\d+ of ${FEED}: Succeeded — 4 fetched, 3 created, 0 updated, 0 unchanged, 1 refused$`),
    )
    // The feed server was read through the real client, with the CA given.
    expect(server.requests.map((r) => [r.path, r.status])).toEqual([['/hosts.txt', 200]])
    await heading(`History of ${FEED}`).waitFor()
    const record = Object.fromEntries(
      await page
        .locator('section[aria-labelledby^="run-"] dl.fields > div')
        .evaluateAll((divs) =>
          divs.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent]),
        ),
    )
    expect(record).toMatchObject({
      Status: 'Succeeded',
      Trigger: 'manual',
      'Objects fetched': '4',
      Created: '3',
      Refused: '1',
    })
    const refusal = page.locator('section[aria-labelledby^="run-"] tbody tr')
    await expect(refusal.count()).resolves.toBe(1)
    const [where, reason] = await refusal.getByRole('cell').allTextContents()
    expect(where).toBe('hosts.txt, line 3')
    expect(reason).toContain('<img')
    await page
      .getByRole('row')
      .filter({ hasText: FEED })
      .getByText(/^Succeeded, /)
      .waitFor()
    await noScriptRan()
    expect(await seriousViolations(page)).toEqual([])
    await shot('admin-feeds')
  })

  it('changes the feed, keeping its credentials, and disables and enables it', async () => {
    await page.getByRole('button', { name: `Edit ${FEED}` }).click()
    await heading(`Change the feed ${FEED}`).waitFor()
    await expect(page.getByLabel('How the feed proves who it is').inputValue()).resolves.toBe('keep')
    expect(await page.getByLabel('Password').count()).toBe(0)
    // The server's refusal is shown in its words, and nothing is saved.
    await page.getByLabel('Runs every').fill('10s')
    await page.getByRole('button', { name: 'Save the feed' }).click()
    await page.getByRole('alert').filter({ hasText: 'interval must be at least 60 seconds (1m)' }).waitFor()
    await page.getByLabel('Runs every').fill('2h')
    await page.getByRole('button', { name: 'Save the feed' }).click()
    await status(`${FEED} saved`)
    const [changed] = (await operatorApi<{ data: Record<string, unknown>[] }>('/api/v3/feeds')).data
    expect(changed).toMatchObject({ intervalSeconds: 7200, credentials: 'basic', hasCaFile: true })
    await page.getByRole('button', { name: `Disable ${FEED}` }).click()
    await status(`${FEED} disabled`)
    await page.getByRole('row').filter({ hasText: FEED }).getByRole('cell', { name: 'disabled', exact: true }).waitFor()
    await page.getByRole('button', { name: `Enable ${FEED}` }).click()
    await status(`${FEED} enabled`)
    expect((await operatorApi<{ data: { enabled: boolean }[] }>('/api/v3/feeds')).data[0]!.enabled).toBe(true)
  })

  it("saves an outbound list of the feed's values and gives its URLs, whose text is those values", async () => {
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Outbound lists' }).click()
    await heading('Outbound lists').waitFor()
    await page.getByRole('button', { name: 'New outbound list' }).click()
    await heading('New outbound list').waitFor()
    // The administrator has no saved search yet: the form offers TQL alone.
    await page.getByLabel('TQL over Indicators (empty: every active Indicator)').waitFor()
    expect(await page.getByLabel('From a saved search').count()).toBe(0)
    await page.getByLabel('Name (part of its URL; cannot change)').fill('loopback-hosts')
    await page.getByLabel('TQL over Indicators (empty: every active Indicator)').fill('summary contains "example"')
    await page.getByRole('checkbox', { name: 'Host', exact: true }).check()
    await page.getByLabel('Only these owners').fill(SOURCE)
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Create the list' }).click()
    await status('loopback-hosts saved')
    const textUrl = `${t.baseUrl}/api/v3/lists/loopback-hosts/values.txt`
    await expect(page.getByRole('textbox', { name: 'Text', exact: true }).inputValue()).resolves.toBe(textUrl)
    await expect(page.getByRole('textbox', { name: 'CSV', exact: true }).inputValue()).resolves.toBe(
      `${t.baseUrl}/api/v3/lists/loopback-hosts/values.csv`,
    )
    await page.getByRole('button', { name: 'Copy the Text URL of loopback-hosts' }).click()
    await status('The Text URL of loopback-hosts is copied')
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(textUrl)
    const values = await page.evaluate(
      async (url) => (await fetch(url, { credentials: 'same-origin' })).text(),
      textUrl,
    )
    expect(values.split('\n').filter(Boolean).sort()).toEqual(['alpha.example', 'beta.example', 'gamma.example'])
    await expect(
      page.getByRole('row').filter({ hasText: 'loopback-hosts' }).getByRole('cell').nth(3).textContent(),
    ).resolves.toBe(SOURCE)
    expect(await seriousViolations(page)).toEqual([])
    await shot('admin-lists')

    // With a saved search over Indicators (one over Groups is not offered), a list may follow it instead of TQL.
    const saved = await operatorApi<{ data: { id: number } }>('/api/v3/savedSearches', 'POST', {
      name: 'High-rated hosts',
      tql: 'rating >= 4',
    })
    await operatorApi('/api/v3/savedSearches', 'POST', {
      name: 'Named groups',
      tql: 'summary contains "x"',
      kind: 'groups',
    })
    await page.reload()
    await page.getByRole('button', { name: 'New outbound list' }).click()
    const from = page.getByLabel('From a saved search')
    await expect(from.locator('option').allTextContents()).resolves.toEqual(['No: the TQL below', 'High-rated hosts'])
    await from.selectOption(String(saved.data.id))
    expect(await page.getByLabel('TQL over Indicators (empty: every active Indicator)').count()).toBe(0)
    await page.getByLabel('Name (part of its URL; cannot change)').fill('high-hosts')
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Create the list' }).click()
    await status('high-hosts saved')
    const followed = await operatorApi<{ data: { tql: string; savedSearch?: { id: number; name: string } } }>(
      '/api/v3/lists/high-hosts',
    )
    expect(followed.data).toMatchObject({
      tql: 'rating >= 4',
      savedSearch: { id: saved.data.id, name: 'High-rated hosts' },
    })
    await page.reload()

    await page.getByRole('button', { name: 'Edit loopback-hosts' }).click()
    await page.getByRole('checkbox', { name: 'Address', exact: true }).check()
    await page.getByRole('button', { name: 'Save the list' }).click()
    await status('loopback-hosts saved')
    const list = await operatorApi<{ data: { types: string[]; owners: string[]; tql: string } }>(
      '/api/v3/lists/loopback-hosts',
    )
    expect(list.data).toMatchObject({ types: ['Host', 'Address'], owners: [SOURCE], tql: 'summary contains "example"' })
  })

  it("shows another account's batch job and import with their errors", async () => {
    await page
      .getByRole('navigation', { name: 'Administration' })
      .getByRole('link', { name: 'Batch and import jobs' })
      .click()
    await heading('Batch and import jobs').waitFor()
    await heading(/^Batch jobs \(\d+\)$/).waitFor()
    await heading('Import jobs (1)').waitFor()
    const batchRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('button', { name: `Batch job ${jobs.batch}`, exact: true }) })
    await expect(batchRow.getByRole('cell').allTextContents()).resolves.toEqual([
      `Batch job ${jobs.batch}`,
      ORG,
      analyst.userName,
      'Create',
      'Completed',
      '1',
      '1',
      '0',
      expect.stringMatching(/UTC$/),
      expect.stringMatching(/UTC$/),
    ])
    await page.getByRole('button', { name: `Batch job ${jobs.batch}`, exact: true }).click()
    await heading(`Errors of batch job ${jobs.batch} (1)`).waitFor()
    const error = page.locator(`section[aria-labelledby="job-errors-batch"] tbody tr`)
    const [code, severity, item, , message] = await error.getByRole('cell').allTextContents()
    expect([code, severity, item]).toEqual(['0x1005', 'Error', 'indicator[1]'])
    expect(message).toContain('not an address')

    const importRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('button', { name: `Import ${jobs.import}`, exact: true }) })
    await expect(importRow.getByRole('cell').nth(1).textContent()).resolves.toBe('analyst-hosts.txt')
    await expect(importRow.getByRole('cell').nth(3).textContent()).resolves.toBe(analyst.userName)
    await page.getByRole('button', { name: `Import ${jobs.import}`, exact: true }).click()
    await heading(`Refusals of import ${jobs.import} (2)`).waitFor()
    const refusals = await page
      .locator('section[aria-labelledby="job-errors-import"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)))
    expect(refusals.map((r) => r[0])).toEqual(['line 2', 'line 3'])
    expect(refusals[1]![1]).toContain('<img')
    await noScriptRan()
    expect(await seriousViolations(page)).toEqual([])
    await shot('admin-jobs')
  })

  it('removes the feed after asking, and keeps what it imported', async () => {
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Feeds' }).click()
    await page.getByRole('button', { name: `Remove ${FEED}` }).click()
    await page.getByRole('button', { name: `Yes, remove ${FEED}` }).click()
    await status(`${FEED} removed; what it imported stays`)
    await page.getByText('No feed yet.').waitFor()
    const kept = await t.store.db
      .selectFrom('indicator')
      .select('summary')
      .where('summary', 'like', '%.example')
      .execute()
    expect(kept.map((r) => r.summary)).toEqual(
      expect.arrayContaining(['alpha.example', 'beta.example', 'gamma.example']),
    )
  })
})
