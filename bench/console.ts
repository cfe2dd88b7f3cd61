/**
 * The console in Chromium on the 1,000,000-Indicator dataset (bench/lib/dataset.ts, classic shape,
 * loaded through POST /v2/batch and cached): a person signs in, then for each of twenty values of the
 * dataset types it into the search box and waits until its row is rendered, opens the Indicator's
 * page and waits until its heading is rendered, and runs a TQL search to its first page. Baseline in
 * the same run: the API requests those pages make, timed from Node. Each search starts from the search page
 * at rest (its own first page loaded). Targets (issue 25): a search
 * answered and rendered in under 1 s, an item page in under 500 ms. Then the dashboard (issue 26), opened
 * DASHBOARD_SAMPLES times by an administrator who reads every owner (its counts over the whole store) until its total
 * and its newest Indicators are rendered, against `GET /api/v3/dashboard` from Node; target: under 1 s. Writes its
 * figures into bench/results/.
 *
 * Environment: BENCH_DB=sqlite|postgres (default sqlite), BENCH_INDICATORS (default 1,000,000).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, launchChromium } from '../src/test/browser.js'
import {
  type DatasetServer,
  call,
  datasetIndicator,
  defaultIndicators,
  startDatasetServer,
  benchDialects,
} from './lib/dataset.js'
import { median } from './lib/load.js'
import { ROOT } from './lib/processes.js'

const DIALECTS = benchDialects('sqlite')
const TOTAL = defaultIndicators()
const SAMPLES = 20
const DASHBOARD_SAMPLES = 10
const PASSWORD = 'bench analyst password'
const TARGETS = { searchMs: 1000, itemMs: 500, dashboardMs: 1000 }

const round = (n: number) => Math.round(n * 10) / 10
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]
const summary = (values: number[]) => ({
  p50: round(median(values)),
  p95: round(p95(values)),
  max: round(Math.max(...values)),
})

async function measure(dialect: 'sqlite' | 'postgres', work: string) {
  const ds = await startDatasetServer({ dialect, indicators: TOTAL }, work)
  let browser: Browser | undefined
  try {
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'bin/bulwark.mjs'),
        'users',
        'create',
        'bench-analyst',
        '--kind',
        'human',
        '--role',
        'Standard User',
        '--password',
        PASSWORD,
      ],
      { cwd: ROOT, env: ds.env, stdio: 'ignore' },
    )
    browser = await launchChromium()
    const { page } = browser
    await page.goto(ds.url)
    await page.getByLabel('User name').fill('bench-analyst')
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    const searchbox = page.getByRole('searchbox', { name: 'Search' })
    await searchbox.waitFor()

    const searches: number[] = []
    const items: number[] = []
    const apiSearches: number[] = []
    const apiItems: number[] = []
    const owner = ds.manifest.owners[0]
    for (let k = 0; k < SAMPLES; k++) {
      const { summary: value } = datasetIndicator(0, Math.floor(((k + 0.5) * owner.indicators) / SAMPLES))
      // Each search starts from the search page at rest, as a person's does.
      await page.goto(`${ds.url}/#/search`)
      await searchbox.waitFor()
      await page.waitForFunction(() => !document.querySelector('.status')?.textContent?.startsWith('Searching'))
      const started = performance.now()
      await searchbox.fill(value)
      await searchbox.press('Enter')
      const link = page.locator('table.results td.summary').getByText(value, { exact: true })
      await link.waitFor()
      searches.push(performance.now() - started)

      const api = performance.now()
      const found = await call(
        ds.port,
        ds.credentials.token,
        'GET',
        `/api/v3/indicators?tql=${encodeURIComponent(`summary = "${value}"`)}&resultLimit=25`,
      )
      apiSearches.push(performance.now() - api)
      const id = found.json.data[0].id as number

      const opened = performance.now()
      await link.click()
      await page.getByRole('heading', { name: value }).waitFor()
      items.push(performance.now() - opened)
      const apiItem = performance.now()
      await call(
        ds.port,
        ds.credentials.token,
        'GET',
        `/api/v3/indicators/${id}?fields=tags&fields=attributes&fields=securityLabels`,
      )
      apiItems.push(performance.now() - apiItem)
    }
    const tql: number[] = []
    for (let k = 0; k < 5; k++) {
      await page.goto(`${ds.url}/#/search`)
      await searchbox.waitFor()
      await page.waitForFunction(() => !document.querySelector('.status')?.textContent?.startsWith('Searching'))
      const started = performance.now()
      await searchbox.fill(`typeName = "Host" and rating >= ${1 + (k % 5)}`)
      await searchbox.press('Enter')
      await page.waitForFunction(() => /found|page/.test(document.querySelector('.status')?.textContent ?? ''))
      await page.locator('table.results td.summary').first().waitFor()
      tql.push(performance.now() - started)
    }
    const dashboards = await measureDashboard(ds, browser)
    return {
      dialect,
      indicators: TOTAL,
      searchMs: summary(searches),
      itemPageMs: summary(items),
      tqlFirstPageMs: summary(tql),
      dashboardMs: summary(dashboards.page),
      baseline: {
        apiSearchMs: summary(apiSearches),
        apiItemMs: summary(apiItems),
        apiDashboardMs: summary(dashboards.api),
      },
      targets: TARGETS,
      met:
        median(searches) < TARGETS.searchMs &&
        median(items) < TARGETS.itemMs &&
        Math.max(...dashboards.page) < TARGETS.dashboardMs,
    }
  } finally {
    await browser?.close()
    await ds.close()
  }
}

/** The dashboard as the administrator sees it (every owner), in a page of its own, and its one API request. */
async function measureDashboard(ds: DatasetServer, browser: Browser) {
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [join(ROOT, 'bin/bulwark.mjs'), ...args], {
      cwd: ROOT,
      env: ds.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
  const admin = `bench-admin-${Date.now().toString(36)}`
  cli('users', 'create', admin, '--kind', 'human', '--system-role', 'Administrator', '--password', PASSWORD)
  for (const owner of ds.manifest.owners.slice(1)) cli('memberships', 'set', admin, owner.name, 'Subscriber')
  // The analyst's session ends here: the context's cookie would sign the new page in as the analyst.
  await browser.context.clearCookies()
  const page = await browser.context.newPage()
  await page.goto(ds.url)
  await page.getByLabel('User name').fill(admin)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('searchbox', { name: 'Search' }).waitFor()
  const pageMs: number[] = []
  const apiMs: number[] = []
  for (let k = 0; k < DASHBOARD_SAMPLES; k++) {
    await page.goto(`${ds.url}/#/search`)
    await page.getByRole('searchbox', { name: 'Search' }).waitFor()
    const started = performance.now()
    await page.goto(`${ds.url}/#/dashboard`)
    await page.getByText(/^[\d,]+ Indicators$/).waitFor()
    await page.getByRole('heading', { name: 'Newest Indicators' }).waitFor()
    pageMs.push(performance.now() - started)
    const api = performance.now()
    await call(ds.port, ds.credentials.token, 'GET', '/api/v3/dashboard')
    apiMs.push(performance.now() - api)
  }
  await page.close()
  return { page: pageMs, api: apiMs }
}

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'bulwark-bench-console-'))
  try {
    const rows = []
    for (const dialect of DIALECTS) {
      const row = await measure(dialect, work)
      console.log(JSON.stringify(row))
      rows.push(row)
    }
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
    writeFileSync(
      join(ROOT, 'bench', 'results', 'console.json'),
      `${JSON.stringify({ machine: { cpus: cpus().length, load: loadavg().map(round) }, rows }, null, 2)}\n`,
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
