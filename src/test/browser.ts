/**
 * Debian's Chromium driven by playwright-core for the console's browser tests: a headless browser on a
 * fresh profile that accepts the test server's self-signed certificate, and the axe-core check.
 * No browser is downloaded; where /usr/bin/chromium is missing the tests say so and are skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, type Page, chromium } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'

export interface Browser {
  context: BrowserContext
  page: Page
  /** Closes the browser and removes its profile. */
  close(): Promise<void>
}

export async function launchChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'bulwark-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ignoreHTTPSErrors: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  // Every page records what the Content-Security-Policy refused (cspRefusals reads it).
  await context.addInitScript(() => {
    const w = window as unknown as { __violations: string[] }
    w.__violations = []
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
    )
  })
  // Half the test's own limit (vitest.config.ts): a wait that never ends fails naming its locator, not as a bare
  // "Test timed out". Waits that may take longer say so themselves.
  context.setDefaultTimeout(15_000)
  const page = context.pages()[0] ?? (await context.newPage())
  return {
    context,
    page,
    async close() {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

/** What the page's Content-Security-Policy refused since it loaded: `<directive> <blocked URI>` each. */
export function cspRefusals(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)
}

/** axe-core's serious and critical violations on the page as it is now (evaluated through DevTools: the CSP refuses inline scripts). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source
  await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; help: string }[] }> } }
    ).axe
    return (await axe.run()).violations
  })
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)
}
