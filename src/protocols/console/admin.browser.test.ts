/**
 * The console's administration of owners, people, memberships, tokens, TAXII accounts and settings in a real
 * browser (Debian's Chromium through playwright-core), on the database of the test project: a system
 * administrator creates a Source, a person, the person's membership in the Source, an API token (shown once, gone
 * after a reload, working against the API until revoked) and changes a setting; a Standard User sees no
 * administration and the admin API refuses them. Each page passes axe-core; screenshots go to
 * test-artifacts/console/<db>/admin-*.png (git-ignored).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoNow } from '../../core/time.js'
import { createAccount, listAccountSummaries, listMembershipSummaries } from '../../domain/access/accounts.js'
import { listAllOwners } from '../../domain/access/accounts.js'
import { type Browser, CHROMIUM, launchChromium, seriousViolations } from '../../test/browser.js'
import { ORG, TEST_DB, type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const ARTIFACTS = join(ROOT, 'test-artifacts', 'console', TEST_DB)
const PASSWORD = 'administrator password 1'

if (!existsSync(CHROMIUM))
  console.warn(
    `Skipping the console's administration browser tests: ${CHROMIUM} is missing (apt-get install -y chromium)`,
  )

describe.skipIf(!existsSync(CHROMIUM))('administration of owners, people, tokens and settings in Chromium', () => {
  let t: TestApp
  let analyst: TestAccount
  let browser: Browser
  let page: Page
  let token = ''

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' })
    t = await createTestApp({ listen: true, console: { dir: join(ROOT, 'dist', 'console') } })
    await createAccount(
      t.store.db,
      {
        userName: 'chief',
        kind: 'human',
        organization: ORG,
        role: 'Organization Administrator',
        systemRole: 'Administrator',
        password: PASSWORD,
      },
      isoNow(),
    )
    analyst = await t.createAccount({ kind: 'human', role: 'Standard User', password: PASSWORD })
    mkdirSync(ARTIFACTS, { recursive: true })
    browser = await launchChromium()
    page = browser.page
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `admin-${name}.png`), fullPage: true })
  const heading = (name: string) => page.getByRole('heading', { name, exact: true })
  /** Waits for the status line that says `text`; a refusal shown instead fails at once with its words. */
  const status = async (text: string) => {
    const said = page.getByRole('status').filter({ hasText: text })
    const refused = page.locator('[role="alert"]')
    await said.or(refused).first().waitFor()
    if (!(await said.count())) throw new Error(`Refused: ${await refused.first().textContent()}`)
  }
  const section = async (name: string, title: string) => {
    await page.goto(`${t.baseUrl}/#/admin/${name}`)
    await page.getByRole('heading', { name: title, exact: true, level: 1 }).waitFor()
  }
  const adminApi = (path: string) =>
    page.evaluate(async (url) => {
      const res = await fetch(url, { credentials: 'same-origin' })
      return { status: res.status, body: await res.json() }
    }, `/api/v3/admin${path}`)

  async function signIn(userName: string) {
    await page.goto(`${t.baseUrl}/`)
    await page.getByLabel('User name').fill(userName)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('searchbox', { name: 'Search' }).waitFor()
  }

  it('signs the administrator in, who reaches Administration from the header', async () => {
    await signIn('chief')
    await page.getByRole('link', { name: 'Administration' }).click()
    await page.getByRole('heading', { name: 'Owners', exact: true, level: 1 }).waitFor()
    expect(new URL(page.url()).hash).toBe('#/admin')
  })

  it('creates a Source', async () => {
    await page.getByLabel('Owner name').fill('Partner Source')
    await page.getByLabel('Owner type').selectOption('Source')
    await page.getByLabel('Description (optional)').fill('Shared by a partner')
    await page.getByRole('button', { name: 'Create owner' }).click()
    await status('Created the Source Partner Source')
    await page.getByRole('cell', { name: 'Partner Source' }).waitFor()
    const owners = await listAllOwners(t.store.db)
    expect(owners.find((o) => o.name === 'Partner Source')).toMatchObject({
      type: 'Source',
      description: 'Shared by a partner',
    })
    // A duplicate is refused in the server's words.
    await page.getByLabel('Owner name').fill('Partner Source')
    await page.getByRole('button', { name: 'Create owner' }).click()
    await page.getByRole('alert').filter({ hasText: "An owner named 'Partner Source' already exists" }).waitFor()
    await shot('owners')
    expect(await seriousViolations(page)).toEqual([])
  })

  it('creates a person with a password, disables and enables them, and sets a new password', async () => {
    await section('people', 'People and API accounts')
    await page.getByLabel('User name').fill('new-analyst')
    await page.getByLabel('Kind').selectOption('human')
    await page.getByLabel('First name (optional)').fill('Nadia')
    await page.getByLabel('Password (optional, at least 8 characters)').fill('first password 1')
    await page.getByRole('button', { name: 'Create account' }).click()
    await status('Created new-analyst')
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'new-analyst', exact: true }) })
    await row.getByRole('cell', { name: 'Active' }).waitFor()
    await page.getByRole('button', { name: 'Disable new-analyst' }).click()
    await status('Disabled new-analyst')
    await row.getByRole('cell', { name: 'Disabled' }).waitFor()
    await page.getByRole('button', { name: 'Enable new-analyst' }).click()
    await status('Enabled new-analyst')
    await page.getByLabel('Account', { exact: true }).selectOption('new-analyst')
    await page.getByLabel('New password').fill('second password 2')
    await page.getByRole('button', { name: 'Set password' }).click()
    await status('Set the password of new-analyst')
    const [person] = (await listAccountSummaries(t.store.db, { kind: 'human' })).filter(
      (a) => a.userName === 'new-analyst',
    )
    expect(person).toMatchObject({ kind: 'human', firstName: 'Nadia', disabled: false, systemRole: 'User' })
    const signIn = (password: string) =>
      t.request({
        method: 'POST',
        url: '/api/v3/session/sign-in',
        payload: { userName: 'new-analyst', password },
        as: null,
      })
    expect((await signIn('first password 1')).statusCode).toBe(401)
    expect((await signIn('second password 2')).statusCode).toBe(200)
    // A short password is refused, in the server's words.
    await page.getByLabel('New password').fill('short')
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.getByRole('alert').filter({ hasText: 'A password must be at least 8 characters long' }).waitFor()
    await shot('people')
    expect(await seriousViolations(page)).toEqual([])
  })

  it('gives the person a membership in the Source', async () => {
    await section('memberships', 'Memberships')
    await page.getByLabel('Account', { exact: true }).selectOption('new-analyst')
    await page.getByLabel('Owner', { exact: true }).selectOption('Partner Source')
    await page.getByLabel('Role', { exact: true }).selectOption('Contributor')
    await page.getByRole('button', { name: 'Set role' }).click()
    await status('new-analyst is now Contributor in Partner Source')
    await page.getByLabel('Show the memberships of').selectOption('new-analyst')
    await heading('Memberships shown (2)').waitFor()
    expect(await listMembershipSummaries(t.store.db, { userName: 'new-analyst' })).toEqual([
      { userName: 'new-analyst', owner: ORG, ownerType: 'Organization', role: 'Standard User' },
      { userName: 'new-analyst', owner: 'Partner Source', ownerType: 'Source', role: 'Contributor' },
    ])
    await shot('memberships')
    expect(await seriousViolations(page)).toEqual([])
  })

  it('issues an API token shown once, which authenticates a v3 request, and is not shown after a reload', async () => {
    await section('tokens', 'API tokens')
    await page.getByLabel('Account', { exact: true }).selectOption('new-analyst')
    await page.getByRole('button', { name: 'Issue token' }).click()
    await status('Issued a token for new-analyst')
    await page.getByText('This is the only time it is shown.').waitFor()
    const field = page.getByLabel('API token', { exact: true })
    expect(await field.getAttribute('readonly')).not.toBeNull()
    token = await field.inputValue()
    expect(token.length).toBeGreaterThanOrEqual(16)
    await page.getByRole('button', { name: 'Copy the API token' }).waitFor()
    await shot('tokens')
    expect(await seriousViolations(page)).toEqual([])

    const owners = await t.request({ url: '/api/v3/security/owners', as: { userName: 'new-analyst', token } })
    expect(owners.statusCode, owners.body).toBe(200)
    expect(owners.json().data.map((o: { name: string }) => o.name)).toContain('Partner Source')

    await page.reload()
    await page.getByRole('heading', { name: 'API tokens', exact: true, level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Issue token' }).waitFor()
    expect(await page.getByLabel('API token', { exact: true }).count()).toBe(0)
    expect(await page.content()).not.toContain(token)
    // Nor does any list of the admin API carry it.
    const accounts = await adminApi('/accounts')
    expect(accounts.status).toBe(200)
    expect(JSON.stringify(accounts.body)).not.toContain(token)
  })

  it('revokes the tokens, after which the token is refused', async () => {
    await page.getByLabel('Account', { exact: true }).selectOption('new-analyst')
    await page.getByRole('button', { name: 'Revoke every token of new-analyst' }).click()
    await status('Revoked every API token of new-analyst')
    const refused = await t.request({ url: '/api/v3/security/owners', as: { userName: 'new-analyst', token } })
    expect(refused.statusCode).toBe(401)
  })

  it('creates a TAXII account with its password and shows its memberships', async () => {
    await section('taxii', 'TAXII accounts')
    await page.getByLabel('User name').fill('taxii-partner')
    await page.getByLabel('Password (at least 8 characters)').fill('taxii password 1')
    await page.getByRole('button', { name: 'Create TAXII account' }).click()
    await status('Created taxii-partner')
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'taxii-partner', exact: true }) })
    await row.getByText(`${ORG}: Standard User`).waitFor()
    expect((await listAccountSummaries(t.store.db, { kind: 'taxii' })).map((a) => a.userName)).toEqual([
      'taxii-partner',
    ])
    await shot('taxii')
    expect(await seriousViolations(page)).toEqual([])
  })

  it('changes a setting, shown with its description', async () => {
    await section('settings', 'Settings')
    await page.getByText('System-wide TQL query timeout in milliseconds').waitFor()
    await page.getByLabel('tqlTimeoutMs').fill('12000')
    await page.getByLabel('bulkDeleteEnabled').selectOption('true')
    await page.getByRole('button', { name: 'Save changed settings' }).click()
    await status('Saved tqlTimeoutMs, bulkDeleteEnabled')
    expect(await t.services.settings.get('tqlTimeoutMs')).toBe(12_000)
    expect(await t.services.settings.get('bulkDeleteEnabled')).toBe(true)
    await page.getByLabel('tqlTimeoutMs').fill('5')
    await page.getByRole('button', { name: 'Save changed settings' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: "Setting 'tqlTimeoutMs' takes a whole number of at least 100" })
      .waitFor()
    expect(await t.services.settings.get('tqlTimeoutMs')).toBe(12_000)
    await shot('settings')
    expect(await seriousViolations(page)).toEqual([])
  })

  it('shows a Standard User no administration, and the admin API refuses them', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByLabel('User name').waitFor()
    await signIn(analyst.userName)
    expect(await page.getByRole('link', { name: 'Administration' }).count()).toBe(0)
    await page.goto(`${t.baseUrl}/#/admin/owners`)
    await page.getByRole('alert').filter({ hasText: 'Administration is for system administrators.' }).waitFor()
    expect(await page.getByRole('navigation', { name: 'Administration' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Create owner' }).count()).toBe(0)
    expect(await page.getByText('Partner Source').count()).toBe(0)
    const refused = await adminApi('/owners')
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({
      errCode: '0x1002',
      message:
        'Only system administrators (Administrator or Operations Administrator) manage owners; your system role is User',
      status: 'Error',
    })
    await shot('refused')
    expect(await seriousViolations(page)).toEqual([])
  })
})
