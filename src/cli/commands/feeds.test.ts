/**
 * `bulwark feeds add|list|show|set|remove`: the options become the body the API takes, the command
 * acts as the installation's administrator (a system Administrator), and no output shows a secret.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rootCertificates } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, createOwner } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
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
