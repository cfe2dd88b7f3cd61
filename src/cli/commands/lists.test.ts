/**
 * `bulwark lists add|update|list|show|remove`: the operator's outbound lists, each answered with its
 * URLs under the server's public URL; the same refusals as the API (TQL checked at save time).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, createOwner } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
import { type CliSandbox, createCliSandbox } from '../../test/cli-sandbox.js'
import { PUBLIC_URL, createTestDomain } from '../../test/harness.js'
import { addListCommand, listListsCommand, removeListCommand, showListCommand, updateListCommand } from './lists.js'

let store: Store
let services: Services
let drop: () => Promise<void>

beforeAll(async () => {
  ;({ store, services, drop } = await createTestDomain())
  await createOwner(store.db, { name: 'Abuse Feeds', type: 'Source' }, isoNow())
})
afterAll(() => drop())

describe('bulwark lists', () => {
  it('adds a list and answers its URLs', async () => {
    const list = await addListCommand(store, services, {
      name: 'pan-edl-ips',
      tql: 'rating >= 3',
      types: 'Address,cidr',
      owners: 'Abuse Feeds',
    })
    expect(list).toEqual({
      name: 'pan-edl-ips',
      tql: 'rating >= 3',
      types: ['Address', 'CIDR'],
      owners: ['Abuse Feeds'],
      urls: {
        text: `${PUBLIC_URL}/api/v3/lists/pan-edl-ips/values.txt`,
        csv: `${PUBLIC_URL}/api/v3/lists/pan-edl-ips/values.csv`,
      },
      dateAdded: expect.any(String),
      lastModified: expect.any(String),
    })
  })

  it('updates, lists, shows and removes', async () => {
    const changed = await updateListCommand(store, services, { name: 'pan-edl-ips', owners: '' })
    expect(changed.owners).toBeUndefined()
    expect(changed.types).toEqual(['Address', 'CIDR'])
    expect(await listListsCommand(store, services)).toEqual({
      lists: [
        {
          name: 'pan-edl-ips',
          tql: 'rating >= 3',
          types: ['Address', 'CIDR'],
          owners: undefined,
          text: `${PUBLIC_URL}/api/v3/lists/pan-edl-ips/values.txt`,
        },
      ],
    })
    expect((await showListCommand(store, services, { name: 'pan-edl-ips' })).tql).toBe('rating >= 3')
    expect(await removeListCommand(store, services, { name: 'pan-edl-ips' })).toEqual({ removed: 'pan-edl-ips' })
    await expect(showListCommand(store, services, { name: 'pan-edl-ips' })).rejects.toThrow(
      "No list is named 'pan-edl-ips'",
    )
  })

  it('refuses a TQL that does not compile', async () => {
    await expect(addListCommand(store, services, { name: 'bad', tql: 'rating >== 3' })).rejects.toThrow(
      /^The list's TQL: TQL error at column/,
    )
  })
})

describe('bulwark lists --saved-search', () => {
  it("follows a saved search's TQL, and refuses an id that names none", async () => {
    const now = isoNow()
    await createOwner(store.db, { name: 'List Org', type: 'Organization' }, now)
    await createAccount(store.db, { userName: 'list-searcher', kind: 'api', organization: 'List Org' }, now)
    const { id: userId } = await store.db
      .selectFrom('user_account')
      .select('id')
      .where('user_name', '=', 'list-searcher')
      .executeTakeFirstOrThrow()
    const { id } = await store.db
      .insertInto('saved_search')
      .values({
        name: 'High',
        tql: 'rating >= 4',
        kind: 'indicators',
        owner_id: null,
        created_by: userId,
        date_added: now,
        last_modified: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const list = await addListCommand(store, services, { name: 'from-search', savedSearch: String(id) })
    expect(list).toMatchObject({ name: 'from-search', tql: 'rating >= 4', savedSearch: { id, name: 'High' } })
    expect((await listListsCommand(store, services)).lists).toContainEqual(
      expect.objectContaining({ name: 'from-search', savedSearch: id }),
    )
    const own = await updateListCommand(store, services, { name: 'from-search', tql: 'rating = 1' })
    expect(own.savedSearch).toBeUndefined()
    await expect(addListCommand(store, services, { name: 'none', savedSearch: '424242' })).rejects.toThrow(
      'No saved search 424242 is visible to you',
    )
    await expect(addListCommand(store, services, { name: 'none', savedSearch: 'x' })).rejects.toThrow(
      'savedSearch must be the id of a saved search of Indicators',
    )
  })
})

describe('bin/bulwark lists', () => {
  let cli: CliSandbox
  beforeAll(async () => {
    cli = await createCliSandbox('bulwark-lists-', { dataDir: '.' })
  })
  afterAll(() => cli.close())

  it('prints the URLs under BULWARK_PUBLIC_URL as one JSON object', () => {
    const env = { BULWARK_PUBLIC_URL: 'https://tip.example.org' }
    const run = cli.run(['lists', 'add', 'fortigate-domains', '--tql', 'rating >= 2', '--types', 'Host', '--json'], {
      env,
      timeoutMs: 30_000,
    })
    expect(run.status, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout).urls).toEqual({
      text: 'https://tip.example.org/api/v3/lists/fortigate-domains/values.txt',
      csv: 'https://tip.example.org/api/v3/lists/fortigate-domains/values.csv',
    })
    const bad = cli.run(['lists', 'show', 'nothing-here', '--json'], { env, timeoutMs: 30_000 })
    expect(bad.status).toBe(1)
    expect(JSON.parse(bad.stdout)).toEqual({ error: "No list is named 'nothing-here'", code: 'not_found' })
  })
})
