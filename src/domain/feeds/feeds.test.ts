/**
 * Defining feeds: only system Administrators add, change, remove or even read them; every field is
 * checked with a message naming it; credentials are sealed in the database and shown by kind only;
 * a feed is due at once when added, and starts over when pointed at another source.
 */
import { rootCertificates } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, issueApiToken, setMembership } from '../../domain/access/accounts.js'
import { isoNow } from '../../core/time.js'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import type { RequestContext } from '../context.js'
import { createSecurityLabel } from '../metadata/security-labels.js'
import { addFeed, getFeed, listFeeds, removeFeed, updateFeed } from './feeds.js'

let t: TestApp
let admin: RequestContext
let orgAdmin: RequestContext

beforeAll(async () => {
  t = await createTestApp()
  await createAccount(
    t.store.db,
    {
      userName: 'sysadmin',
      kind: 'api',
      organization: ORG,
      role: 'Organization Administrator',
      systemRole: 'Administrator',
    },
    isoNow(),
  )
  await t.createOwner('Abuse Lists', 'Source')
  await t.createOwner('Partners', 'Community')
  // A feed writes as the administrator who adds it, who must have a role in its owner.
  for (const owner of ['Abuse Lists', 'Partners'])
    await setMembership(t.store.db, 'sysadmin', owner, 'Editor', isoNow())
  const { token } = await issueApiToken(t.store.db, 'sysadmin', {}, Date.now())
  admin = await t.context({ userName: 'sysadmin', token })
  // The harness's administrator administers its Organization, not the system.
  orgAdmin = await t.context()
})
afterAll(() => t.close())

const taxii = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  kind: 'taxii21',
  url: 'https://taxii.example.org/api1/',
  owner: 'Abuse Lists',
  settings: { collection: 'indicators' },
  ...extra,
})

const sealedOf = async (name: string) =>
  (await t.store.db.selectFrom('feed').select('credentials_sealed').where('name', '=', name).executeTakeFirstOrThrow())
    .credentials_sealed

describe('addFeed', () => {
  it('adds a feed due at once, with the defaults filled in and its credentials shown by kind only', async () => {
    const feed = await addFeed(
      admin,
      taxii('OASIS', { credentials: { kind: 'basic', user: 'reader', password: 'correct horse battery' } }),
    )
    expect(feed).toMatchObject({
      name: 'OASIS',
      kind: 'taxii21',
      url: 'https://taxii.example.org/api1/',
      owner: 'Abuse Lists',
      credentials: 'basic',
      hasCaFile: false,
      intervalSeconds: 3600,
      enabled: true,
      settings: { collection: 'indicators' },
      defaults: {},
      failures: 0,
    })
    // Due at once: at the moment it was added.
    expect(feed.nextRunAt).toBe(feed.dateAdded)
    expect(feed.nextRunAt <= isoNow()).toBe(true)
    expect(JSON.stringify(feed)).not.toContain('correct horse')
    const sealed = await sealedOf('OASIS')
    expect(sealed).toBeTruthy()
    expect(sealed).not.toContain('correct horse')
    expect(sealed).not.toContain('reader')
    expect(JSON.parse(t.services.secretBox.open(sealed!))).toEqual({
      kind: 'basic',
      user: 'reader',
      password: 'correct horse battery',
    })
  })

  it('reads every kind of field: interval, defaults, CA, import start, limit', async () => {
    const feed = await addFeed(admin, {
      name: 'URLhaus',
      kind: 'text',
      url: 'https://urlhaus.example/downloads/text/',
      owner: 'Abuse Lists',
      interval: '15m',
      enabled: false,
      settings: { indicatorType: 'url', mirror: true },
      defaults: { rating: 3.5, confidence: 80, tags: ['malware', ' urlhaus ', 'malware'], securityLabel: 'tlp:green' },
      caPem: rootCertificates.slice(0, 2).join('\n'),
      importFrom: '2026-01-01',
      maxObjectsPerRun: 5000,
      credentials: { kind: 'header', name: 'Auth-Key', value: 's3cret-key' },
    })
    expect(feed).toMatchObject({
      owner: 'Abuse Lists',
      intervalSeconds: 900,
      enabled: false,
      settings: { indicatorType: 'URL', mirror: true },
      defaults: { rating: 3.5, confidence: 80, tags: ['malware', 'urlhaus'], securityLabel: 'TLP:GREEN' },
      hasCaFile: true,
      credentials: 'header',
      importFrom: '2026-01-01T00:00:00.000Z',
      maxObjectsPerRun: 5000,
    })
    const row = await t.store.db
      .selectFrom('feed')
      .select('ca_pem')
      .where('name', '=', 'URLhaus')
      .executeTakeFirstOrThrow()
    expect(row.ca_pem?.match(/BEGIN CERTIFICATE/g)).toHaveLength(2)
  })

  it.each([
    [{ name: ' ' }, 'name is required'],
    [{ kind: 'rss' }, "kind must be one of taxii21, taxii11, misp, csv, text; not 'rss'"],
    [{ url: 'ftp://taxii.example.org/' }, 'url must be an http or https URL, not ftp'],
    [{ url: 'not a url' }, 'url must be an absolute http or https URL'],
    [
      { url: 'https://me:hunter2@taxii.example.org/' },
      'url must not carry a user name or password; give them in credentials',
    ],
    [{ owner: 'Nobody' }, "owner: there is no owner named 'Nobody'"],
    [{ settings: {} }, "A taxii21 feed needs settings.collection (the collection's id or alias)"],
    [
      { settings: { collection: 'x', mirror: true } },
      'settings.mirror applies to csv and text feeds only, not to a taxii21 feed',
    ],
    [
      { settings: { collection: 'x', colection: 'y' } },
      'settings.colection is not a feed setting; the settings are collection, types, columns, indicatorType, mirror, pollUrl',
    ],
    [
      { settings: { collection: 'x', types: 'indicator' } },
      'settings.types must be a list of STIX object types, e.g. ["indicator", "malware"]',
    ],
    [{ interval: '30s' }, 'interval must be at least 60 seconds (1m)'],
    [{ interval: 'hourly' }, "interval must be a duration such as 15m, 1h or 1d, or whole seconds; not 'hourly'"],
    [{ interval: '1h', intervalSeconds: 3600 }, 'Give interval or intervalSeconds, not both'],
    [{ defaults: { rating: 6 } }, 'defaults.rating must be a number from 0 to 5'],
    [{ defaults: { confidence: 50.5 } }, 'defaults.confidence must be a whole number from 0 to 100'],
    [{ defaults: { tags: ['ok', ' '] } }, 'defaults.tags: A tag needs a name'],
    [
      { defaults: { securityLabel: 'TLP:PURPLE' } },
      "defaults.securityLabel: 'TLP:PURPLE' is neither a Security Label of Abuse Lists nor a standard TLP label (TLP:RED, TLP:AMBER+STRICT, TLP:AMBER, TLP:GREEN, TLP:CLEAR, TLP:WHITE)",
    ],
    [{ importFrom: 'yesterday' }, "importFrom must be an ISO 8601 date or time, not 'yesterday'"],
    [{ maxObjectsPerRun: 0 }, 'maxObjectsPerRun must be at least 1'],
    [{ credentials: { kind: 'basic', user: 'u' } }, 'credentials of kind basic need password'],
    [{ credentials: { kind: 'bearer', token: 't', user: 'u' } }, 'credentials of kind bearer take token, not user'],
    [
      { credentials: { kind: 'ntlm' } },
      'credentials must be {kind: "basic", user, password}, {kind: "bearer", token} or {kind: "header", name, value}',
    ],
    [
      { credentials: { kind: 'header', name: 'X-Key', value: 'a\r\nHost: evil' } },
      'credentials.value must not contain line breaks',
    ],
    [{ caPem: 'hello' }, 'caPem holds no PEM certificate (-----BEGIN CERTIFICATE-----)'],
    [
      { caPem: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n' },
      'caPem: certificate 1 of 1 is not a valid X.509 certificate',
    ],
    [{ colour: 'red' }, expect.stringMatching(/^'colour' is not a field of a feed; the fields are name, kind, url/)],
  ])('refuses %j: %s', async (change, message) => {
    await expect(addFeed(admin, taxii('Refused', change))).rejects.toMatchObject({ code: 'invalid', message })
    expect((await listFeeds(admin)).map((f) => f.name)).not.toContain('Refused')
  })

  it('checks settings by kind: text needs an Indicator type of the ten, csv columns parse, only TAXII 1.1 takes a poll URL', async () => {
    const list = { name: 'L', kind: 'text', url: 'https://l.example/', owner: 'Abuse Lists' }
    await expect(addFeed(admin, list)).rejects.toMatchObject({
      message:
        'A text feed needs settings.indicatorType, one of Address, EmailAddress, File, Host, URL, ASN, CIDR, Mutex, Registry Key, User Agent',
    })
    await expect(addFeed(admin, { ...list, settings: { indicatorType: 'Domain' } })).rejects.toMatchObject({
      message: expect.stringMatching(/^settings.indicatorType must be one of Address, .*; not 'Domain'$/),
    })
    await expect(
      addFeed(admin, { ...list, kind: 'csv', settings: { columns: 'value=IOC,colour=C' } }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/^settings.columns: 'colour' is not a field/) })
    await expect(
      addFeed(admin, { ...list, kind: 'misp', settings: { pollUrl: 'https://x.example/poll' } }),
    ).rejects.toMatchObject({ message: 'settings.pollUrl applies to taxii11 feeds only, not to a misp feed' })
    const csv = await addFeed(admin, {
      ...list,
      name: 'CSV',
      kind: 'csv',
      settings: { columns: 'value=IOC,type=Kind' },
    })
    expect(csv.settings).toEqual({ columns: 'value=IOC,type=Kind' })
    const t11 = await addFeed(admin, {
      ...list,
      name: 'Hail',
      kind: 'taxii11',
      settings: { collection: 'guest.Abuse_ch', pollUrl: 'http://hail.example/taxii-data' },
    })
    expect(t11.settings).toEqual({ collection: 'guest.Abuse_ch', pollUrl: 'http://hail.example/taxii-data' })
  })

  it("takes a label of the feed's owner, a standard TLP label, or none: never one invented", async () => {
    await createSecurityLabel(orgAdmin, { name: 'PII' })
    const own = await addFeed(admin, taxii('Own label', { owner: ORG, defaults: { securityLabel: 'pii' } }))
    expect(own.defaults).toEqual({ securityLabel: 'PII' })
    await expect(addFeed(admin, taxii('Foreign label', { defaults: { securityLabel: 'PII' } }))).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^defaults.securityLabel: 'PII' is neither a Security Label of Abuse Lists/),
    })
    const plain = await addFeed(admin, taxii('Plain'))
    expect(plain.defaults).toEqual({})
  })

  it('refuses one of two feeds of the same name added at once as a conflict, not a database error', async () => {
    const both = await Promise.allSettled([addFeed(admin, taxii('Racing')), addFeed(admin, taxii('Racing'))])
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    const refused = both.find((r) => r.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason).toMatchObject({ code: 'conflict', message: "A feed named 'Racing' already exists" })
  })

  it('refuses a second feed of the same name', async () => {
    await addFeed(admin, taxii('Twice'))
    await expect(addFeed(admin, taxii('Twice'))).rejects.toMatchObject({
      code: 'conflict',
      message: "A feed named 'Twice' already exists",
    })
  })
})

describe('only system Administrators', () => {
  it('refuses every operation to others, an Organization Administrator included', async () => {
    await addFeed(admin, taxii('Guarded'))
    const refused = {
      code: 'forbidden',
      message: expect.stringMatching(
        /^Only system administrators \(Administrator or Operations Administrator\) manage feeds; your system role is /,
      ),
    }
    await expect(addFeed(orgAdmin, taxii('Sneaky'))).rejects.toMatchObject(refused)
    await expect(listFeeds(orgAdmin)).rejects.toMatchObject(refused)
    await expect(getFeed(orgAdmin, 'Guarded')).rejects.toMatchObject(refused)
    await expect(updateFeed(orgAdmin, 'Guarded', { enabled: false })).rejects.toMatchObject(refused)
    await expect(removeFeed(orgAdmin, 'Guarded')).rejects.toMatchObject(refused)
    expect(await getFeed(admin, 'Guarded')).toMatchObject({ enabled: true })
  })
})

describe('updateFeed', () => {
  it('changes only what is given, settings and defaults key by key', async () => {
    const added = await addFeed(admin, taxii('Partial', { defaults: { rating: 2, tags: ['a'] } }))
    const changed = await updateFeed(admin, added.id, {
      interval: '1d',
      settings: { types: ['indicator'] },
      defaults: { rating: null, confidence: 60 },
    })
    expect(changed).toMatchObject({
      name: 'Partial',
      url: added.url,
      intervalSeconds: 86_400,
      settings: { collection: 'indicators', types: ['indicator'] },
      defaults: { tags: ['a'], confidence: 60 },
      nextRunAt: added.nextRunAt,
    })
    expect(changed.defaults.rating).toBeUndefined()
    expect(await getFeed(admin, added.id)).toEqual(changed)
  })

  it('keeps credentials unless given, replaces or removes them, and never shows them', async () => {
    await addFeed(admin, taxii('Creds', { credentials: { kind: 'bearer', token: 'tok-1' } }))
    const moved = await updateFeed(admin, 'Creds', { url: 'https://elsewhere.example/api1/' })
    expect(moved.credentials).toBe('bearer')
    expect(JSON.parse(t.services.secretBox.open((await sealedOf('Creds'))!))).toEqual({
      kind: 'bearer',
      token: 'tok-1',
    })
    const basic = await updateFeed(admin, 'Creds', { credentials: { kind: 'basic', user: 'u', password: 'pw-2' } })
    expect(basic.credentials).toBe('basic')
    expect(await sealedOf('Creds')).not.toContain('pw-2')
    expect((await updateFeed(admin, 'Creds', { credentials: null })).credentials).toBe('none')
    expect(await sealedOf('Creds')).toBeNull()
  })

  it('starts a feed pointed at another source over, and makes a re-enabled feed due at once', async () => {
    const added = await addFeed(admin, taxii('Over', { enabled: false }))
    const later = '2099-01-01T00:00:00.000Z'
    await t.store.db
      .updateTable('feed')
      .set({ cursor: '{"added_after":"x"}', failures: 3, next_run_at: later })
      .where('id', '=', added.id)
      .execute()
    const cursor = async () =>
      t.store.db
        .selectFrom('feed')
        .select(['cursor', 'failures', 'next_run_at'])
        .where('id', '=', added.id)
        .executeTakeFirstOrThrow()
    await updateFeed(admin, 'Over', { interval: '2h' })
    expect(await cursor()).toEqual({ cursor: '{"added_after":"x"}', failures: 3, next_run_at: later })
    const enabled = await updateFeed(admin, 'Over', { enabled: true })
    expect(enabled.nextRunAt < later).toBe(true)
    expect((await cursor()).cursor).toBe('{"added_after":"x"}')
    await updateFeed(admin, 'Over', { settings: { collection: 'other' } })
    expect(await cursor()).toMatchObject({ cursor: null, failures: 0 })
  })

  it('checks the whole feed again: a new kind needs its settings, a new owner its label', async () => {
    await createSecurityLabel(orgAdmin, { name: 'Internal' })
    await addFeed(admin, taxii('Recheck', { owner: ORG, defaults: { securityLabel: 'Internal' } }))
    await expect(updateFeed(admin, 'Recheck', { kind: 'text' })).rejects.toMatchObject({
      message: 'settings.collection applies to taxii21 and taxii11 feeds only, not to a text feed',
    })
    const text = await updateFeed(admin, 'Recheck', {
      kind: 'text',
      settings: { collection: null, indicatorType: 'Host' },
    })
    expect(text).toMatchObject({ kind: 'text', settings: { indicatorType: 'Host' } })
    await expect(updateFeed(admin, 'Recheck', { owner: 'Abuse Lists' })).rejects.toMatchObject({
      message: expect.stringMatching(/^defaults.securityLabel: 'Internal' is neither a Security Label of Abuse Lists/),
    })
    const moved = await updateFeed(admin, 'Recheck', { owner: 'Abuse Lists', defaults: { securityLabel: 'TLP:AMBER' } })
    expect(moved).toMatchObject({ owner: 'Abuse Lists', defaults: { securityLabel: 'TLP:AMBER' } })
  })

  it('renames, refusing a taken name, and answers not found for an unknown feed', async () => {
    await addFeed(admin, taxii('Old Name'))
    await expect(updateFeed(admin, 'Old Name', { name: 'OASIS' })).rejects.toMatchObject({ code: 'conflict' })
    expect((await updateFeed(admin, 'Old Name', { name: 'New Name' })).name).toBe('New Name')
    await expect(getFeed(admin, 'Old Name')).rejects.toMatchObject({
      code: 'not_found',
      message: "No feed named 'Old Name'",
    })
    await expect(updateFeed(admin, 999_999, {})).rejects.toMatchObject({
      code: 'not_found',
      message: 'No feed with id 999999',
    })
  })
})

describe('removeFeed and listFeeds', () => {
  it('removes a feed with its runs, and lists the rest by name', async () => {
    const gone = await addFeed(admin, taxii('Gone'))
    await t.store.db
      .insertInto('feed_run')
      .values({ feed_id: gone.id, status: 'Succeeded', trigger: 'manual', worker: 'w', started_at: isoNow() })
      .execute()
    expect((await removeFeed(admin, 'Gone')).id).toBe(gone.id)
    const runs = await t.store.db.selectFrom('feed_run').select('id').where('feed_id', '=', gone.id).execute()
    expect(runs).toEqual([])
    const names = (await listFeeds(admin)).map((f) => f.name)
    expect(names).not.toContain('Gone')
    expect(names).toEqual([...names].sort())
    await expect(removeFeed(admin, 'Gone')).rejects.toMatchObject({ code: 'not_found' })
  })
})
