import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../store/connect.js'
import { createTestStore } from '../../test/harness.js'
import {
  countRecords,
  createAccount,
  createOwner,
  listAccountSummaries,
  listMembershipSummaries,
  removeMembership,
  setMembership,
} from './accounts.js'
import { isoNow } from '../../core/time.js'

let store: Store
let drop: () => Promise<void>

beforeAll(async () => {
  ;({ store, drop } = await createTestStore())
  const now = isoNow()
  await createOwner(store.db, { name: 'Acme', type: 'Organization' }, now)
  await createOwner(store.db, { name: 'Other Org', type: 'Organization' }, now)
  await createOwner(store.db, { name: 'Circle', type: 'Community' }, now)
  await createOwner(store.db, { name: 'Vendor Feed', type: 'Source' }, now)
})
afterAll(async () => {
  await drop()
})

const create = (input: Partial<Parameters<typeof createAccount>[1]>) =>
  createAccount(store.db, { userName: 'u', kind: 'api', organization: 'Acme', ...input }, isoNow())

describe('createAccount', () => {
  it('gives an account its Organization role and a system role by kind', async () => {
    expect(await create({ userName: 'api-1' })).toMatchObject({
      kind: 'api',
      organization: 'Acme',
      role: 'Standard User',
      systemRole: 'Api User',
    })
    expect(await create({ userName: 'human-1', kind: 'human', role: 'Sharing User' })).toMatchObject({
      role: 'Sharing User',
      systemRole: 'User',
    })
    expect(await create({ userName: 'taxii-1', kind: 'taxii', password: 'taxii-password' })).toMatchObject({
      role: 'Standard User',
      systemRole: 'Taxii User',
    })
  })

  it('lets a TAXII account be a Standard User only', async () => {
    await expect(
      create({ userName: 'taxii-2', kind: 'taxii', password: 'taxii-password', role: 'Organization Administrator' }),
    ).rejects.toMatchObject({
      code: 'invalid',
      message: 'Standard User is the only Organization role a TAXII account may have',
    })
    await expect(create({ userName: 'taxii-3', kind: 'taxii' })).rejects.toMatchObject({
      code: 'invalid',
      message: 'A TAXII account needs a password',
    })
    await expect(setMembership(store.db, 'taxii-1', 'Acme', 'Read Only User', isoNow())).rejects.toMatchObject({
      code: 'invalid',
      message: 'Standard User is the only Organization role a TAXII account may have',
    })
  })

  it('treats a duplicate user name as a conflict', async () => {
    await expect(create({ userName: 'api-1' })).rejects.toMatchObject({
      code: 'conflict',
      message: "An account named 'api-1' already exists",
    })
    await expect(create({ userName: ' api-1 ', organization: 'Other Org' })).rejects.toMatchObject({ code: 'conflict' })
  })

  it('homes accounts in Organizations only, with known roles', async () => {
    await expect(create({ userName: 'x', organization: 'Circle' })).rejects.toMatchObject({
      code: 'invalid',
      message: "'Circle' is a Community; an account's home must be an Organization",
    })
    await expect(create({ userName: 'x', role: 'Editor' })).rejects.toMatchObject({ code: 'invalid' })
    await expect(create({ userName: 'x', systemRole: 'Super User' })).rejects.toMatchObject({ code: 'invalid' })
    await expect(create({ userName: 'x', kind: 'robot' })).rejects.toMatchObject({ code: 'invalid' })
    await expect(create({ userName: '' })).rejects.toMatchObject({
      code: 'invalid',
      message: 'An account needs a user name',
    })
    await expect(create({ userName: 'x', tokenLifetimeDays: 0 })).rejects.toMatchObject({ code: 'invalid' })
    await expect(create({ userName: 'x', organization: 'Nowhere' })).rejects.toMatchObject({ code: 'not_found' })
  })
})

describe('setMembership', () => {
  it('puts Community roles on Communities and Sources only', async () => {
    expect(await setMembership(store.db, 'api-1', 'Circle', 'Editor', isoNow())).toEqual({
      userName: 'api-1',
      owner: 'Circle',
      ownerType: 'Community',
      role: 'Editor',
    })
    expect(await setMembership(store.db, 'api-1', 'Vendor Feed', 'Subscriber', isoNow())).toMatchObject({
      ownerType: 'Source',
    })
    await expect(setMembership(store.db, 'api-1', 'Acme', 'Editor', isoNow())).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/Organization must be one of Read Only User, /),
    })
    await expect(setMembership(store.db, 'api-1', 'Circle', 'Standard User', isoNow())).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/Community must be one of Subscriber, /),
    })
  })

  it('keeps an account in its one Organization', async () => {
    await expect(setMembership(store.db, 'api-1', 'Other Org', 'Standard User', isoNow())).rejects.toMatchObject({
      code: 'invalid',
      message: 'An account belongs to one Organization; add it to Communities or Sources instead',
    })
    await expect(removeMembership(store.db, 'api-1', 'Acme')).rejects.toMatchObject({ code: 'invalid' })
  })

  it('lists memberships per account and per owner', async () => {
    expect(await listMembershipSummaries(store.db, { userName: 'api-1' })).toEqual([
      { userName: 'api-1', owner: 'Acme', ownerType: 'Organization', role: 'Standard User' },
      { userName: 'api-1', owner: 'Circle', ownerType: 'Community', role: 'Editor' },
      { userName: 'api-1', owner: 'Vendor Feed', ownerType: 'Source', role: 'Subscriber' },
    ])
    await removeMembership(store.db, 'api-1', 'Vendor Feed')
    expect(await listMembershipSummaries(store.db, { ownerName: 'Vendor Feed' })).toEqual([])
    await expect(listMembershipSummaries(store.db, { ownerName: 'Nowhere' })).rejects.toMatchObject({
      code: 'not_found',
    })
  })
})

describe('listAccountSummaries and countRecords', () => {
  it('summarise accounts and rows', async () => {
    const summaries = await listAccountSummaries(store.db)
    expect(summaries.map((a) => [a.userName, a.organization, a.role])).toEqual([
      ['api-1', 'Acme', 'Standard User'],
      ['human-1', 'Acme', 'Sharing User'],
      ['taxii-1', 'Acme', 'Standard User'],
    ])
    expect(await countRecords(store.db)).toEqual({ owners: 4, accounts: 3, indicators: 0, groups: 0 })
  })
})

describe('account input rules', () => {
  it('refuses a short password when the account is created, as when it is changed', async () => {
    const { createTestStore } = await import('../../test/harness.js')
    const { createOwner, createAccount } = await import('./accounts.js')
    const { store, drop } = await createTestStore()
    await createOwner(store.db, { name: 'Pw Org', type: 'Organization' }, new Date().toISOString())
    await expect(
      createAccount(
        store.db,
        { userName: 'feed', kind: 'taxii', organization: 'Pw Org', password: 'short' },
        new Date().toISOString(),
      ),
    ).rejects.toMatchObject({ code: 'invalid', message: 'A password must be at least 8 characters long' })
    await drop()
  })
})
