/**
 * The console's item pages, triage and import in a real browser (Debian's Chromium through
 * playwright-core), on the database of the test project: Group, Victim, Case and Task pages at their
 * webLinks; each triage action by a Standard User, checked through the API; bulk tagging and labelling;
 * creating an Indicator and a Group; an import with its progress and refusals; a Read Only User who
 * gets no controls. Each page passes axe-core; screenshots go to test-artifacts/console/ (git-ignored).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoNow } from '../../core/time.js'
import { setMembership } from '../../domain/access/accounts.js'
import { runPendingImports } from '../../domain/imports/import-jobs.js'
import { type Browser, CHROMIUM, launchChromium, seriousViolations, cspRefusals } from '../../test/browser.js'
import { TEST_DB, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const ARTIFACTS = join(ROOT, 'test-artifacts', 'console', TEST_DB)
const PASSWORD = 'analyst password 2'
const XSS = '"><svg onload="window.__xss=1"><img src=x onerror="window.__xss=2">'

if (!existsSync(CHROMIUM))
  console.warn(`Skipping the console's triage browser tests: ${CHROMIUM} is missing (apt-get install -y chromium)`)

describe.skipIf(!existsSync(CHROMIUM))('item pages, triage and import in Chromium', () => {
  let t: TestApp
  let analyst: TestAccount
  let reader: TestAccount
  let browser: Browser
  let page: Page
  const ids = { indicator: 0, group: 0, victim: 0, case: 0, task: 0, spare: 0, bulk: [] as number[] }

  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>) => {
    const res = await t.request({ method, url, ...(payload === undefined ? {} : { payload }) })
    expect(res.statusCode, res.body).toBeLessThan(300)
    return res.json().data
  }

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' })
    t = await createTestApp({ listen: true, console: { dir: join(ROOT, 'dist', 'console') } })
    analyst = await t.createAccount({ kind: 'human', role: 'Standard User', password: PASSWORD })
    reader = await t.createAccount({ kind: 'human', role: 'Read Only User', password: PASSWORD })
    // The analyst reads this Community's Indicators but may not change them.
    await t.createOwner('Watch Community', 'Community')
    await setMembership(t.store.db, t.admin.userName, 'Watch Community', 'Director', isoNow())
    await setMembership(t.store.db, analyst.userName, 'Watch Community', 'Subscriber', isoNow())

    ids.indicator = (
      await call('POST', '/api/v3/indicators', {
        type: 'Host',
        hostName: 'triage.example',
        rating: 1,
        confidence: 10,
        active: true,
        firstSeen: '2026-01-02T03:04:05Z',
        externalDateAdded: '2025-12-01T00:00:00Z',
        externalDateExpires: '2027-01-01T00:00:00Z',
      })
    ).id
    const partners = []
    for (let n = 0; n < 12; n++)
      partners.push((await call('POST', '/api/v3/indicators', { type: 'Host', hostName: `member-${n}.example` })).id)
    ids.group = (
      await call('POST', '/api/v3/groups', {
        type: 'Adversary',
        name: `APT ${XSS}`,
        firstSeen: '2025-06-01T00:00:00Z',
        externalDateAdded: '2025-05-01T00:00:00Z',
        tags: { data: [{ name: 'apt' }] },
        securityLabels: { data: [{ name: 'TLP:AMBER' }] },
        attributes: { data: [{ type: 'Description', value: XSS }] },
        associatedIndicators: { data: partners.map((id) => ({ id })) },
      })
    ).id
    ids.spare = (await call('POST', '/api/v3/groups', { type: 'Campaign', name: 'Spare campaign' })).id
    ids.victim = (
      await call('POST', '/api/v3/victims', {
        name: 'Acme Victim',
        nationality: 'Atlantean',
        assets: { data: [{ type: 'WebSite', website: 'acme.example' }] },
        associatedGroups: { data: [{ id: ids.group }] },
      })
    ).id
    ids.case = (
      await call('POST', '/api/v3/cases', {
        name: 'Phishing wave',
        severity: 'High',
        status: 'Open',
        description: XSS,
        associatedGroups: { data: [{ id: ids.group }] },
      })
    ).id
    ids.task = (await call('POST', '/api/v3/tasks', { name: 'Check the mail gateway', caseId: ids.case })).id
    for (const host of ['bulk-a.example', 'bulk-b.example', 'bulk-c.example'])
      ids.bulk.push(
        (await call('POST', '/api/v3/indicators', { type: 'Host', hostName: host, tags: { data: [{ name: 'bulk' }] } }))
          .id,
      )
    await call('POST', `/api/v3/indicators?owner=${encodeURIComponent('Watch Community')}`, {
      type: 'Host',
      hostName: 'bulk-watched.example',
      tags: { data: [{ name: 'bulk' }] },
    })

    mkdirSync(ARTIFACTS, { recursive: true })
    browser = await launchChromium()
    page = browser.page
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
  const heading = (name: string) => page.getByRole('heading', { name, exact: true })
  /** Waits for the status line that says `text`; a refusal shown instead fails at once with its words. */
  const status = async (text: string) => {
    const said = page.getByRole('status').filter({ hasText: text })
    const refused = page.locator('[role="alert"]')
    await said.or(refused).first().waitFor()
    if (!(await said.count())) throw new Error(`Refused: ${await refused.first().textContent()}`)
  }
  const indicator = async (id: number) =>
    call(
      'GET',
      `/api/v3/indicators/${id}?fields=tags&fields=securityLabels&fields=observations&fields=falsePositives&fields=attributes`,
    )

  async function signIn(account: TestAccount) {
    await page.goto(`${t.baseUrl}/`)
    await page.getByLabel('User name').fill(account.userName)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('searchbox', { name: 'Search' }).waitFor()
  }

  it('signs the analyst in', async () => {
    await signIn(analyst)
  })

  it("opens a Group at its webLink: fields, tags, labels, attributes and associations paged and counted, adversaries' text as text", async () => {
    const group = await call('GET', `/api/v3/groups/${ids.group}`)
    expect(group.webLink).toBe(`${t.baseUrl}/#/details/groups/${ids.group}/overview`)
    await page.goto(group.webLink)
    await page.getByRole('heading', { level: 1 }).waitFor()
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`APT ${XSS}`)
    await heading('Associated Indicators (12)').waitFor()
    const members = page.locator('section[aria-labelledby="list-associated-indicators"] tbody tr')
    expect(await members.count()).toBe(10)
    await page.getByRole('button', { name: 'Next associated indicators' }).click()
    await page.waitForFunction(
      () => document.querySelectorAll('section[aria-labelledby="list-associated-indicators"] tbody tr').length === 2,
    )
    await heading('Associated Victims (1)').waitFor()
    await heading('Associated Cases (1)').waitFor()
    await heading('Attributes (1)').waitFor()
    await expect(page.getByRole('cell', { name: XSS, exact: true }).count()).resolves.toBe(1)
    await expect(page.locator('.tag', { hasText: 'apt' }).count()).resolves.toBe(1)
    await expect(page.locator('.tag', { hasText: 'TLP:AMBER' }).count()).resolves.toBe(1)
    const fields = Object.fromEntries(
      await page
        .locator('dl.fields > div')
        .evaluateAll((divs) =>
          divs.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent]),
        ),
    )
    expect(fields).toMatchObject({
      ID: String(ids.group),
      Type: 'Adversary',
      'Owner name': expect.any(String),
      'First seen': '2025-06-01T00:00:00Z',
      'External date added': '2025-05-01T00:00:00Z',
    })
    expect(await page.locator('article svg, article img, article script').count()).toBe(0)
    await shot('group-page')
    // The v2 legacyLink of a Group leads to the same page.
    const v2 = (await t.request({ url: `/api/v2/groups/adversaries/${ids.group}` })).json().data.adversary
    await page.goto(`${t.baseUrl}/#/search`)
    await page.goto(v2.webLink)
    await page.waitForURL(`${t.baseUrl}/#/details/groups/${ids.group}/overview`)
    await heading('Associated Indicators (12)').waitFor()
    expect(await seriousViolations(page)).toEqual([])
  })

  it('opens a Victim, a Case and a Task at their webLinks, each with its associations', async () => {
    const victim = await call('GET', `/api/v3/victims/${ids.victim}`)
    await page.goto(victim.webLink)
    await heading('Acme Victim').waitFor()
    await heading('Associated Groups (1)').waitFor()
    await expect(page.getByText('Atlantean').isVisible()).resolves.toBe(true)
    await heading('Assets (1)').waitFor()
    await expect(page.getByRole('cell', { name: 'acme.example' }).count()).resolves.toBe(1)
    await shot('victim-page')
    expect(await seriousViolations(page)).toEqual([])

    const kase = await call('GET', `/api/v3/cases/${ids.case}`)
    expect(kase.webLink).toBe(`${t.baseUrl}/#/details/cases/${ids.case}/overview`)
    await page.goto(kase.webLink)
    await heading('Phishing wave').waitFor()
    await heading('Associated Groups (1)').waitFor()
    await heading('Tasks (1)').waitFor()
    await expect(page.locator('p.description').textContent()).resolves.toBe(XSS)
    await shot('case-page')
    expect(await seriousViolations(page)).toEqual([])

    await page.getByRole('link', { name: 'Check the mail gateway' }).click()
    await heading('Check the mail gateway').waitFor()
    expect(new URL(page.url()).hash).toBe(`#/details/tasks/${ids.task}/overview`)
    await heading('Case (1)').waitFor()
    await shot('task-page')
    expect(await seriousViolations(page)).toEqual([])
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined()
  })

  it('shows an Indicator with its source dates, observations and false positives', async () => {
    await page.goto(`${t.baseUrl}/#/details/indicators/${ids.indicator}/overview`)
    await heading('triage.example').waitFor()
    const text = await page.locator('dl.fields').textContent()
    expect(text).toContain('First seen2026-01-02T03:04:05Z')
    expect(text).toContain('External date added2025-12-01T00:00:00Z')
    expect(text).toContain('External expiry2027-01-01T00:00:00Z')
    expect(text).toContain('Observations0')
    expect(text).toContain('False positives0')
  })

  it('edits rating, confidence and active', async () => {
    await page.getByLabel('Rating').selectOption('4')
    await page.getByLabel('Confidence').fill('85')
    await page.getByLabel('Active').uncheck()
    await page.getByRole('button', { name: 'Save' }).click()
    await status('Saved rating, confidence and active')
    expect(await indicator(ids.indicator)).toMatchObject({ rating: 4, confidence: 85, active: false })
  })

  it('adds a tag by keyboard with "Add tag", and removes it', async () => {
    await page.getByLabel('New tag').focus()
    await page.keyboard.type('needs review')
    await page.keyboard.press('Enter')
    await status('Added the tag needs review')
    await page.locator('.tag', { hasText: 'needs review' }).waitFor()
    expect((await indicator(ids.indicator)).tags.data.map((x: { name: string }) => x.name)).toEqual(['needs review'])
    await page.getByLabel('New tag').fill('second')
    await page.getByRole('button', { name: 'Add tag' }).click()
    await status('Added the tag second')
    await page.getByRole('button', { name: 'Remove tag needs review' }).click()
    await status('Removed the tag needs review')
    expect((await indicator(ids.indicator)).tags.data.map((x: { name: string }) => x.name)).toEqual(['second'])
  })

  it('adds and removes a security label', async () => {
    await page.getByLabel('New security label').selectOption('TLP:RED')
    await page.getByRole('button', { name: 'Add security label' }).click()
    await status('Added the security label TLP:RED')
    expect((await indicator(ids.indicator)).securityLabels.data.map((x: { name: string }) => x.name)).toEqual([
      'TLP:RED',
    ])
    await page.getByRole('button', { name: 'Remove security label TLP:RED' }).click()
    await status('Removed the security label TLP:RED')
    expect((await indicator(ids.indicator)).securityLabels).toEqual({ data: [] })
  })

  it('adds and deletes an attribute', async () => {
    await page.getByLabel('Attribute value').fill('seen in the March campaign')
    await page.getByRole('button', { name: 'Add attribute' }).click()
    await heading('Attributes (1)').waitFor()
    expect((await indicator(ids.indicator)).attributes.data).toMatchObject([
      { type: 'Description', value: 'seen in the March campaign' },
    ])
    await page.getByRole('button', { name: 'Delete attribute Description seen in the March campaign' }).click()
    await heading('Attributes (0)').waitFor()
  })

  it('reports a false positive and an observation', async () => {
    await page.getByRole('button', { name: 'Report false positive' }).click()
    await status('Reported a false positive')
    await page.getByRole('button', { name: 'Report observation' }).click()
    await status('Reported an observation')
    await page.waitForFunction(() => document.querySelector('dl.fields')?.textContent?.includes('Observations1'))
    expect(await page.locator('dl.fields').textContent()).toContain('False positives1')
    expect(await indicator(ids.indicator)).toMatchObject({ observations: 1, falsePositives: 1 })
  })

  it('associates the Indicator with a Group and dissociates it', async () => {
    await page.getByLabel('Its id or name').fill('Spare campaign')
    await page.getByRole('button', { name: 'Associate', exact: true }).click()
    await heading('Associated Groups (1)').waitFor()
    await shot('indicator-triage')
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Dissociate Group Spare campaign' }).click()
    await heading('Associated Groups (0)').waitFor()
    await page.getByLabel('Associate with a').selectOption('associatedCases')
    await page.getByLabel('Its id or name').fill(String(ids.case))
    await page.getByRole('button', { name: 'Associate', exact: true }).click()
    await heading('Associated Cases (1)').waitFor()
    expect(
      await call('GET', `/api/v3/cases?tql=${encodeURIComponent(`hasIndicator(id = ${ids.indicator})`)}`),
    ).toMatchObject([{ id: ids.case }])
    await page.getByRole('button', { name: 'Dissociate Case Phishing wave' }).click()
    await heading('Associated Cases (0)').waitFor()
    await page.getByLabel('Associate with a').selectOption('associatedGroups')
    await page.getByLabel('Its id or name').fill('No such group')
    await page.getByRole('button', { name: 'Associate', exact: true }).click()
    await expect(page.getByRole('alert').first().textContent()).resolves.toBe(
      'No Group you can read is named No such group',
    )
  })

  it('tags and labels a Group from its page, and dissociates one of its Indicators', async () => {
    await page.goto(`${t.baseUrl}/#/details/groups/${ids.group}/overview`)
    await heading('Associated Indicators (12)').waitFor()
    await page.getByLabel('New tag').fill('reviewed')
    await page.getByRole('button', { name: 'Add tag' }).click()
    await status('Added the tag reviewed')
    await page.getByRole('button', { name: 'Dissociate member-0.example' }).click()
    await heading('Associated Indicators (11)').waitFor()
    const group = await call('GET', `/api/v3/groups/${ids.group}?fields=tags`)
    expect(group.tags.data.map((x: { name: string }) => x.name).sort()).toEqual(['apt', 'reviewed'])
  })

  it('creates an Indicator from a defanged value, and a Group', async () => {
    await page.getByRole('link', { name: 'New' }).click()
    // The page left behind has a Value field of its own (an attribute's): fill only once the new page is up.
    await heading('New Indicator or Group').waitFor()
    await page.getByLabel('Value').fill('hxxp://made[.]example/a')
    await page.getByRole('button', { name: 'Create Indicator' }).click()
    await heading('http://made.example/a').waitFor()
    expect(new URL(page.url()).hash).toMatch(/^#\/details\/indicators\/\d+\/overview$/)

    await page.goto(`${t.baseUrl}/#/new`)
    await heading('New Indicator or Group').waitFor()
    await page.getByLabel('What').selectOption('groups')
    await page.getByLabel('Group type').selectOption('Campaign')
    await page.getByLabel('Name').fill('Operation Test')
    await shot('new-item')
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Create Group' }).click()
    await heading('Operation Test').waitFor()
    expect(new URL(page.url()).hash).toMatch(/^#\/details\/groups\/\d+\/overview$/)

    await page.goto(`${t.baseUrl}/#/new`)
    await heading('New Indicator or Group').waitFor()
    await page.getByLabel('Value').fill('not a value at all')
    await page.getByRole('button', { name: 'Create Indicator' }).click()
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/not a value at all/)
  })

  it('tags and labels many selected search results at once', async () => {
    await page.goto(`${t.baseUrl}/#/search?q=${encodeURIComponent('tag = "bulk"')}`)
    // By keyboard: Space on the header's box selects the page, Space on a row's box leaves that row out.
    await page.getByRole('checkbox', { name: 'Select every row of this page' }).focus()
    await page.keyboard.press('Space')
    await page.getByRole('checkbox', { name: 'Select bulk-b.example' }).focus()
    await page.keyboard.press('Space')
    await page.getByText('2 selected').waitFor()
    // A row of an owner where the person only reads has no box.
    await page.locator('td.summary', { hasText: 'bulk-watched.example' }).waitFor()
    expect(await page.getByRole('checkbox', { name: 'Select bulk-watched.example' }).count()).toBe(0)
    await page.getByLabel('Tag for the selected').fill('campaign-7')
    await page.getByRole('button', { name: 'Tag selected' }).click()
    await status('2 Indicators now carry the tag campaign-7')
    await page.getByLabel('Security label for the selected').selectOption('TLP:GREEN')
    await page.getByRole('button', { name: 'Label selected' }).click()
    await status('2 Indicators now carry the security label TLP:GREEN')
    await shot('search-bulk')
    expect(await seriousViolations(page)).toEqual([])
    const [a, b, c] = await Promise.all(ids.bulk.map(indicator))
    for (const tagged of [a, c]) {
      expect(tagged.tags.data.map((x: { name: string }) => x.name).sort()).toEqual(['bulk', 'campaign-7'])
      expect(tagged.securityLabels.data.map((x: { name: string }) => x.name)).toEqual(['TLP:GREEN'])
    }
    expect(b.tags.data.map((x: { name: string }) => x.name)).toEqual(['bulk'])
    expect(b.securityLabels).toEqual({ data: [] })
  })

  it('uploads a file into an owner, shows its progress and every refusal with its reason, paged', async () => {
    await page.getByRole('link', { name: 'Import' }).click()
    await heading('Import a file').waitFor()
    const lines = ['imported-1.example', '198.51.100.7']
    for (let n = 0; n < 24; n++) lines.push(`bad${n}.dll`)
    // A text list is read word by word: markup without spaces reaches the refusal whole.
    const markup = '"><svg/onload=window.__xss=5><img/src=x/onerror=window.__xss=6>'
    lines.push(markup)
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'hosts.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(lines.join('\n') + '\n'),
    })
    await page.getByRole('button', { name: 'Upload' }).click()
    await page.getByRole('heading', { name: /^Import \d+$/ }).waitFor()
    await page.getByText('Queued').first().waitFor()
    expect(await runPendingImports(t.store, t.services, 'browser-test')).toBe(1)
    await page.waitForFunction(() => document.querySelector('dl.fields')?.textContent?.includes('StatusCompleted'))
    const progress = await page.locator('dl.fields').textContent()
    expect(progress).toContain('Imported2')
    expect(progress).toContain('Refused25')
    await heading('Refusals (25)').waitFor()
    const rows = page.locator('section[aria-labelledby="refusals"] tbody tr')
    expect(await rows.count()).toBe(20)
    await expect(rows.first().locator('td.description').textContent()).resolves.toMatch(/bad0\.dll/)
    await shot('import')
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Next refusals' }).click()
    await page.waitForFunction(
      () => document.querySelectorAll('section[aria-labelledby="refusals"] tbody tr').length === 5,
    )
    // A refusal quoting adversaries' markup shows it as text.
    await expect(rows.last().locator('td.description').textContent()).resolves.toContain(markup)
    expect(await page.locator('main svg, main img, main script').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined()
    expect((await call('GET', '/api/v3/indicators?tql=summary%20%3D%20%22imported-1.example%22')).length).toBe(1)

    // Another format, detected by the server: a STIX 2.1 bundle.
    const bundle = {
      type: 'bundle',
      id: 'bundle--5d0092c5-5f74-4287-9642-33f4c354e56d',
      objects: [
        {
          type: 'indicator',
          spec_version: '2.1',
          id: 'indicator--8e2e2d2b-17d4-4cbf-938f-98ee46b3cd3f',
          created: '2026-01-01T00:00:00.000Z',
          modified: '2026-01-01T00:00:00.000Z',
          pattern: "[domain-name:value = 'stix-upload.example']",
          pattern_type: 'stix',
          valid_from: '2026-01-01T00:00:00Z',
        },
      ],
    }
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'bundle.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(bundle)),
    })
    await page.getByRole('button', { name: 'Upload' }).click()
    await page.waitForFunction(() => document.querySelector('dl.fields')?.textContent?.includes('Filebundle.json'))
    expect(await runPendingImports(t.store, t.services, 'browser-test')).toBe(1)
    await page.waitForFunction(() => document.querySelector('dl.fields')?.textContent?.includes('StatusCompleted'))
    expect(await page.locator('dl.fields').textContent()).toContain('Refused0')
    await heading('Refusals (0)').waitFor()
    expect((await call('GET', '/api/v3/indicators?tql=summary%20%3D%20%22stix-upload.example%22')).length).toBe(1)
    // A CSV whose header names its columns otherwise, with the columns mapped and the format chosen.
    await page.getByLabel('Format').selectOption('csv')
    await page.getByLabel(/^CSV columns/).fill('value=Observable,rating=Score')
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'observables.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Observable,Score\ncsv-upload.example,3\n'),
    })
    await page.getByRole('button', { name: 'Upload' }).click()
    await page.waitForFunction(() => document.querySelector('dl.fields')?.textContent?.includes('Fileobservables.txt'))
    expect(await runPendingImports(t.store, t.services, 'browser-test')).toBe(1)
    await page.waitForFunction(() => document.querySelector('dl.fields')?.textContent?.includes('StatusCompleted'))
    expect(await page.locator('dl.fields').textContent()).toContain('Formatcsv')
    expect(await call('GET', '/api/v3/indicators?tql=summary%20%3D%20%22csv-upload.example%22')).toMatchObject([
      { rating: 3 },
    ])
    // The uploads are among the person's recent imports.
    await expect(page.getByRole('table', { name: 'Your recent imports' }).locator('tbody tr').count()).resolves.toBe(3)
  })

  it('gives a Read Only User no triage controls, and the API refuses the write anyway', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    // Signed out once the form is back: navigating before that could cancel the sign-out, leaving the session on.
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await signIn(reader)
    await page.goto(`${t.baseUrl}/#/details/indicators/${ids.indicator}/overview`)
    await heading('triage.example').waitFor()
    await heading('Associated Groups (0)').waitFor()
    for (const name of [
      'Add tag',
      'Add security label',
      'Save',
      'Report false positive',
      'Report observation',
      'Add attribute',
      'Associate',
    ])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0)
    await page.goto(`${t.baseUrl}/#/details/groups/${ids.group}/overview`)
    await heading('Associated Indicators (11)').waitFor()
    expect(await page.getByRole('button', { name: /^(Add tag|Dissociate .*)$/ }).count()).toBe(0)
    await page.goto(`${t.baseUrl}/#/search?q=${encodeURIComponent('tag = "bulk"')}`)
    await page.locator('table.results td.summary').first().waitFor()
    expect(await page.getByRole('checkbox').count()).toBe(0)
    await page.goto(`${t.baseUrl}/#/import`)
    await expect(page.getByRole('alert').textContent()).resolves.toBe('You may not import into any owner.')
    const refused = await page.evaluate(async (id) => {
      const session = (await (await fetch('/api/v3/session')).json()) as { data: { csrfToken: string } }
      const res = await fetch(`/api/v3/indicators/${id}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrfToken },
        body: JSON.stringify({ rating: 5 }),
      })
      return res.status
    }, ids.indicator)
    expect([401, 403]).toContain(refused)
    expect((await indicator(ids.indicator)).rating).toBe(4)
    expect(await cspRefusals(page)).toEqual([])
  })
})
