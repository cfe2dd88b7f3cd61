/**
 * `bulwark feeds add|list|show|set|remove`: the options become the body the API takes, the command
 * acts as the installation's administrator (a system Administrator), and no output shows a secret.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rootCertificates } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, createOwner, setMembership } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
import { type CliSandbox, createCliSandbox } from '../../test/cli-sandbox.js'
import { createTestDomain } from '../../test/harness.js'
import {
  addFeedCommand,
  feedBodyOf,
  listFeedsCommand,
  removeFeedCommand,
  setFeedCommand,
  showFeedCommand,
} from './feeds.js'

let store: Store
let services: Services
let drop: () => Promise<void>
const userName = 'admin-api'

beforeAll(async () => {
  ;({ store, services, drop } = await createTestDomain())
  // As first start makes the installation's administrator.
  await createOwner(store.db, { name: 'Acme', type: 'Organization' }, isoNow())
  await createOwner(store.db, { name: 'Blocklists', type: 'Source' }, isoNow())
  await createAccount(
    store.db,
    { userName, kind: 'api', organization: 'Acme', role: 'Organization Administrator', systemRole: 'Administrator' },
    isoNow(),
  )
  await createAccount(store.db, { userName: 'analyst', kind: 'api', organization: 'Acme' }, isoNow())
  // A feed writes as the administrator who adds it, who must have a role in its owner.
  await setMembership(store.db, userName, 'Blocklists', 'Editor', isoNow())
})
afterAll(async () => {
  await drop()
})

describe('feedBodyOf', () => {
  it('turns the options into the v3 body, with only what was given', () => {
    expect(
      feedBodyOf({
        kind: 'taxii21',
        url: 'https://t.example/api/',
        owner: 'Blocklists',
        collection: 'c1',
        types: 'indicator, malware',
        header: 'X-OTX-API-KEY:  abc:def ',
        interval: '30m',
        maxPerRun: '100',
        rating: '2',
        tag: ['a', 'b'],
        securityLabel: 'TLP:CLEAR',
        disabled: true,
      }),
    ).toEqual({
      kind: 'taxii21',
      url: 'https://t.example/api/',
      owner: 'Blocklists',
      interval: '30m',
      maxObjectsPerRun: '100',
      enabled: false,
      settings: { collection: 'c1', types: ['indicator', 'malware'] },
      defaults: { rating: '2', tags: ['a', 'b'], securityLabel: 'TLP:CLEAR' },
      credentials: { kind: 'header', name: 'X-OTX-API-KEY', value: 'abc:def' },
    })
    expect(feedBodyOf({})).toEqual({})
    expect(feedBodyOf({ noCredentials: true, noCaFile: true, securityLabel: '', mirror: false })).toEqual({
      credentials: null,
      caPem: null,
      settings: { mirror: false },
      defaults: { securityLabel: null },
    })
  })

  it('refuses credentials that do not go together, and a header without a value', () => {
    expect(() => feedBodyOf({ user: 'u', token: 't' })).toThrow(
      'Give one of --user with --password, --token, --header or --no-credentials',
    )
    expect(() => feedBodyOf({ user: 'u' })).toThrow('--user and --password go together')
    expect(() => feedBodyOf({ header: 'X-Key' })).toThrow("--header takes 'Name: value'")
    expect(() => feedBodyOf({ caFile: '/nonexistent/ca.pem' })).toThrow(
      'Cannot read the CA file /nonexistent/ca.pem: ENOENT',
    )
  })
})

describe('feeds add|list|show|set|remove', () => {
  it('adds a text list with a CA file, shows and lists it without its password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bulwark-feeds-'))
    const caFile = join(dir, 'ca.pem')
    writeFileSync(caFile, rootCertificates[0])
    const added = await addFeedCommand(store, services, {
      name: 'Feodo',
      userName,
      options: {
        kind: 'text',
        url: 'https://feodotracker.example/downloads/ipblocklist.txt',
        owner: 'Blocklists',
        indicatorType: 'Address',
        mirror: true,
        user: 'me',
        password: 'list-pa55word',
        caFile,
        interval: '1h',
        tag: ['botnet'],
        confidence: '90',
      },
    })
    expect(added).toMatchObject({
      name: 'Feodo',
      kind: 'text',
      owner: 'Blocklists',
      credentials: 'basic',
      hasCaFile: true,
      intervalSeconds: 3600,
      enabled: true,
      settings: { indicatorType: 'Address', mirror: true },
      defaults: { tags: ['botnet'], confidence: 90 },
    })
    const shown = await showFeedCommand(store, services, { name: 'Feodo', userName })
    expect(shown).toEqual(added)
    const { feeds } = await listFeedsCommand(store, services, { userName })
    expect(feeds.map((f) => f.name)).toEqual(['Feodo'])
    expect(JSON.stringify([added, shown, feeds])).not.toContain('list-pa55word')
    const row = await store.db.selectFrom('feed').select('credentials_sealed').executeTakeFirstOrThrow()
    expect(row.credentials_sealed).not.toContain('list-pa55word')
  })

  it('changes only the options given, and removes', async () => {
    const changed = await setFeedCommand(store, services, {
      name: 'Feodo',
      userName,
      options: { mirror: false, disabled: true, noCredentials: true, interval: '2d' },
    })
    expect(changed).toMatchObject({
      credentials: 'none',
      enabled: false,
      intervalSeconds: 172_800,
      hasCaFile: true,
      settings: { indicatorType: 'Address', mirror: false },
      defaults: { tags: ['botnet'], confidence: 90 },
    })
    await expect(
      setFeedCommand(store, services, { name: 'Feodo', userName, options: { collection: 'x' } }),
    ).rejects.toMatchObject({
      code: 'invalid',
      message: 'settings.collection applies to taxii21 and taxii11 feeds only, not to a text feed',
    })
    expect(await removeFeedCommand(store, services, { name: 'Feodo', userName })).toEqual({
      removed: 'Feodo',
      id: changed.id,
    })
    await expect(showFeedCommand(store, services, { name: 'Feodo', userName })).rejects.toMatchObject({
      code: 'not_found',
      message: "No feed named 'Feodo'",
    })
  })

  it('refuses an account that is not a system Administrator', async () => {
    await expect(listFeedsCommand(store, services, { userName: 'analyst' })).rejects.toMatchObject({
      code: 'forbidden',
    })
  })
})

describe('bin/bulwark feeds', () => {
  let cli: CliSandbox
  beforeAll(async () => {
    cli = await createCliSandbox('bulwark-feeds-', { dataDir: '.' })
  })
  afterAll(() => cli.close())
  const bulwark = (args: string[], input?: string) => cli.run([...args, '--json'], { input, timeoutMs: 30_000 })

  it('adds, changes, lists and removes a feed as the first-start administrator, one JSON object each', () => {
    expect(bulwark(['owners', 'create', 'Hail', '--type', 'Source']).status).toBe(0)
    // Its runs write as the administrator who adds it: without a role in the Source, the feed is refused.
    const refused = bulwark([
      'feeds',
      'add',
      'Early',
      '--kind',
      'text',
      '--url',
      'https://l.example/x.txt',
      '--owner',
      'Hail',
      '--indicator-type',
      'Host',
    ])
    expect(refused.status).toBe(1)
    expect(JSON.parse(refused.stdout).error).toMatch(
      /give them a role there first, e\.g\. bulwark memberships set admin-api 'Hail' Editor$/,
    )
    expect(bulwark(['memberships', 'set', 'admin-api', 'Hail', 'Editor']).status).toBe(0)
    const added = bulwark(
      [
        'feeds',
        'add',
        'Hail a TAXII',
        '--kind',
        'taxii11',
        '--url',
        'http://hailataxii.example/taxii-discovery-service',
        '--owner',
        'Hail',
        '--collection',
        'guest.Abuse_ch',
        '--user',
        'guest',
        '--password-stdin',
        '--tag',
        'abuse',
        '--tag',
        'hail',
        '--rating',
        '2.5',
        '--interval',
        '12h',
        '--disabled',
      ],
      'guest-pa55\n',
    )
    expect(added.status, added.stderr).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({
      name: 'Hail a TAXII',
      kind: 'taxii11',
      owner: 'Hail',
      credentials: 'basic',
      intervalSeconds: 43_200,
      enabled: false,
      settings: { collection: 'guest.Abuse_ch' },
      defaults: { tags: ['abuse', 'hail'], rating: 2.5 },
    })
    const changed = bulwark(['feeds', 'set', 'Hail a TAXII', '--enabled', '--header', 'X-Key: k-123'])
    expect(JSON.parse(changed.stdout)).toMatchObject({ enabled: true, credentials: 'header' })
    const listed = bulwark(['feeds', 'list'])
    expect(JSON.parse(listed.stdout).feeds.map((f: { name: string }) => f.name)).toEqual(['Hail a TAXII'])
    expect(JSON.parse(bulwark(['feeds', 'remove', 'Hail a TAXII']).stdout)).toMatchObject({ removed: 'Hail a TAXII' })
    const all = [added, changed, listed].map((r) => r.stdout + r.stderr).join('')
    expect(all).not.toContain('guest-pa55')
    expect(all).not.toContain('k-123')
  })

  it('answers bad options with the domain error as JSON and a failing exit code', () => {
    const run = bulwark(['feeds', 'add', 'Bad', '--kind', 'csv', '--url', 'file:///etc/passwd', '--owner', 'Hail'])
    expect(run.status).toBe(1)
    expect(JSON.parse(run.stdout)).toEqual({ error: 'url must be an http or https URL, not file', code: 'invalid' })
    const missing = bulwark(['feeds', 'show', 'Nope'])
    expect(JSON.parse(missing.stdout)).toEqual({ error: "No feed named 'Nope'", code: 'not_found' })
  })
})
