/**
 * A change made elsewhere — another node, the admin CLI, any process writing the database —
 * applies on this node within 100 ms, not at the end of its caches' second: PostgreSQL's NOTIFY
 * (sent by the tables' triggers) on the listening connection, SQLite's data_version. The writes
 * here go through a handle without this process's cache-emptying plugin, as another process's
 * would: only the notice can tell the node of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, createOwner, issueApiToken, setAccountDisabled } from './domain/access/accounts.js'
import { SettingsService } from './domain/settings.js'
import { isoNow } from './core/time.js'
import { type ChangeNotices, watchChanges } from './store/change-notices.js'
import { join } from 'node:path'
import { createServices, type Services } from './domain/services.js'
import { type Store, openStore } from './store/connect.js'
import { type CliSandbox, createCliSandbox } from './test/cli-sandbox.js'
import { type SharedNode as Node, startSharedNodes } from './test/harness.js'

const BOUND_MS = 100

let nodes: Node[] = []
let close: () => Promise<void>
let notices: ChangeNotices
let admin: string
let analyst: string

beforeAll(async () => {
  ;({ nodes, close } = await startSharedNodes(2))
  const db = nodes[0].store.db
  await createOwner(db, { name: 'Notice Org', type: 'Organization' }, isoNow())
  for (const [userName, role] of [
    ['notice-admin', 'Organization Administrator'],
    ['notice-analyst', 'Standard User'],
  ])
    await createAccount(db, { userName, kind: 'api', organization: 'Notice Org', role }, isoNow())
  admin = (await issueApiToken(db, 'notice-admin', {}, Date.now())).token
  analyst = (await issueApiToken(db, 'notice-analyst', {}, Date.now())).token
  notices = watchChanges(nodes[1].store)
  // The listening connection is up once a first change is heard.
  await new Promise((resolve) => setTimeout(resolve, 200))
})

afterAll(async () => {
  await notices?.close()
  await close?.()
})

function call(node: Node, method: 'GET' | 'DELETE', url: string, token: string) {
  return node.app.inject({
    method,
    url,
    headers: { 'x-forwarded-proto': 'https', authorization: `TC-Token ${token}` },
  })
}

/** Milliseconds until `check` holds, asked every 2 ms; fails past a second (the caches' own bound). */
async function millisecondsUntil(check: () => Promise<boolean>): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < 1000) {
    if (await check()) return performance.now() - started
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  throw new Error('not within a second')
}

/** Another process's view of the same database: writes that this process's caches do not see being made. */
const elsewhere = () => nodes[0].store.db.withoutPlugins()

describe('a change made elsewhere applies on this node within 100 ms', () => {
  it('a setting: bulk delete refused, then allowed, then refused again', async () => {
    const url = `/api/v3/indicators?tql=${encodeURIComponent('summary startswith "never-there-"')}`
    const refused = async () => (await call(nodes[1], 'DELETE', url, admin)).statusCode !== 200
    expect(await refused()).toBe(true)
    const settings = new SettingsService({ ...nodes[0].store, db: elsewhere() })
    await settings.set('bulkDeleteEnabled', 'true')
    expect(await millisecondsUntil(async () => !(await refused()))).toBeLessThan(BOUND_MS)
    await settings.set('bulkDeleteEnabled', 'false')
    expect(await millisecondsUntil(refused)).toBeLessThan(BOUND_MS)
  })

  it('a credential: an account disabled, then enabled again', async () => {
    const status = async () => (await call(nodes[1], 'GET', '/api/v2/owners', analyst)).statusCode
    expect(await status()).toBe(200)
    await setAccountDisabled(elsewhere(), 'notice-analyst', true, isoNow())
    expect(await millisecondsUntil(async () => (await status()) === 401)).toBeLessThan(BOUND_MS)
    await setAccountDisabled(elsewhere(), 'notice-analyst', false, isoNow())
    expect(await millisecondsUntil(async () => (await status()) === 200)).toBeLessThan(BOUND_MS)
  })
})

describe('a change made with the admin CLI, another process', () => {
  let cli: CliSandbox
  let node: { store: Store; services: Services }
  let heard: ChangeNotices
  beforeAll(async () => {
    cli = await createCliSandbox('bulwark-notices-', { dataDir: '.' })
    expect(cli.run(['--json', 'settings', 'get', 'bulkDeleteEnabled'], { timeoutMs: 30_000 }).status).toBe(0)
    const url = cli.env.BULWARK_DATABASE_URL ?? `sqlite:${join(cli.root, 'bulwark.db')}`
    const store = openStore(url)
    node = { store, services: createServices(store, { serverKey: 'k', publicUrl: 'https://bulwark.test' }) }
    heard = watchChanges(store)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }, 60_000)
  afterAll(async () => {
    await heard?.close()
    await node?.store.close()
    await cli?.close()
  })

  it('applies on a node within 100 ms of the command’s exit', async () => {
    for (const value of [true, false]) {
      expect(await node.services.settings.get('bulkDeleteEnabled')).toBe(!value)
      // The node keeps reading while the command runs, so its cache holds the old value when the command commits.
      let reading = true
      const reader = (async () => {
        while (reading) {
          await node.services.settings.get('bulkDeleteEnabled')
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
      })()
      const run = await cli.runAsync(['settings', 'set', 'bulkDeleteEnabled', String(value)], { timeoutMs: 30_000 })
      reading = false
      await reader
      expect(run.status).toBe(0)
      const took = await millisecondsUntil(
        async () => (await node.services.settings.get('bulkDeleteEnabled')) === value,
      )
      expect(took).toBeLessThan(BOUND_MS)
    }
  }, 90_000)
})
