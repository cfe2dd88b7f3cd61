import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { createTestDomain } from '../../test/harness.js'
import { listMembershipsCommand, removeMembershipCommand, setMembershipCommand } from './memberships.js'
import { createOwnerCommand, listOwnersCommand } from './owners.js'
import {
  createUserCommand,
  disableUserCommand,
  enableUserCommand,
  listUsersCommand,
  setUserPasswordCommand,
  setUserTokenLifetimeCommand,
} from './users.js'

let store: Store
let services: Services
let drop: () => Promise<void>

beforeAll(async () => {
  ;({ store, services, drop } = await createTestDomain())
})
afterAll(async () => {
  await drop()
})

describe('owners create|list', () => {
  it('creates an Organization by default and lists owners oldest first', async () => {
    expect(await createOwnerCommand(store, services, { name: 'Acme' })).toEqual({
      id: 1,
      name: 'Acme',
      type: 'Organization',
    })
    expect(
      await createOwnerCommand(store, services, { name: 'Sharing Circle', type: 'Community', description: 'peers' }),
    ).toEqual({ id: 2, name: 'Sharing Circle', type: 'Community' })
    const { owners } = await listOwnersCommand(store, services)
    expect(owners.map((o) => [o.name, o.type, o.description])).toEqual([
      ['Acme', 'Organization', null],
      ['Sharing Circle', 'Community', 'peers'],
    ])
  })

  it('refuses a duplicate name, an unknown type and an empty name', async () => {
    await expect(createOwnerCommand(store, services, { name: 'Acme', type: 'Source' })).rejects.toMatchObject({
      code: 'conflict',
    })
    await expect(createOwnerCommand(store, services, { name: 'X', type: 'Team' })).rejects.toMatchObject({
      code: 'invalid',
      message: 'Owner type must be one of Organization, Community, Source',
    })
    await expect(createOwnerCommand(store, services, { name: '  ' })).rejects.toMatchObject({ code: 'invalid' })
  })
})

describe('users create|list|disable|enable|set-password|set-token-lifetime', () => {
  it('creates an API account in the only Organization when none is named', async () => {
    expect(
      await createUserCommand(store, services, {
        userName: 'ops-api',
        role: 'Organization Administrator',
        tokenLifetimeDays: '30',
      }),
    ).toEqual({
      id: 1,
      userName: 'ops-api',
      kind: 'api',
      organization: 'Acme',
      role: 'Organization Administrator',
      systemRole: 'Api User',
    })
  })

  it('creates TAXII and human accounts with passwords', async () => {
    const taxii = await createUserCommand(store, services, {
      userName: 'feed-reader',
      kind: 'taxii',
      password: 'correct horse',
    })
    expect(taxii).toMatchObject({ kind: 'taxii', role: 'Standard User', systemRole: 'Taxii User' })
    const human = await createUserCommand(store, services, {
      userName: 'alice',
      kind: 'human',
      role: 'Read Only User',
      firstName: 'Alice',
      password: 'alice-password',
    })
    expect(human).toMatchObject({ kind: 'human', role: 'Read Only User', systemRole: 'User' })
  })

  it('refuses bad input with the domain message', async () => {
    await expect(createUserCommand(store, services, { userName: 'no-pass', kind: 'taxii' })).rejects.toMatchObject({
      message: 'A TAXII account needs a password',
    })
    await expect(createUserCommand(store, services, { userName: 'x', kind: 'robot' })).rejects.toMatchObject({
      code: 'invalid',
    })
    await expect(createUserCommand(store, services, { userName: 'x', tokenLifetimeDays: 'ten' })).rejects.toMatchObject(
      { message: 'Token lifetime is a whole number of days, at least 1' },
    )
    await expect(createUserCommand(store, services, { userName: 'x', role: 'Overlord' })).rejects.toMatchObject({
      code: 'invalid',
    })
    await expect(createUserCommand(store, services, { userName: 'ops-api' })).rejects.toMatchObject({
      code: 'conflict',
    })
    await expect(createUserCommand(store, services, { userName: 'x', organization: 'Nowhere' })).rejects.toMatchObject({
      code: 'not_found',
    })
  })

  it('needs --organization once there is more than one Organization', async () => {
    await createOwnerCommand(store, services, { name: 'Second Org' })
    await expect(createUserCommand(store, services, { userName: 'y' })).rejects.toMatchObject({
      code: 'invalid',
      message: "There are 2 Organizations; name the account's Organization with --organization",
    })
    expect(await createUserCommand(store, services, { userName: 'y', organization: 'Second Org' })).toMatchObject({
      organization: 'Second Org',
    })
  })

  it('lists accounts with their Organization role and no credential', async () => {
    const { users } = await listUsersCommand(store, services, { organization: 'Acme' })
    expect(users.map((u) => [u.userName, u.kind, u.role, u.tokenLifetimeDays, u.disabled])).toEqual([
      ['ops-api', 'api', 'Organization Administrator', 30, false],
      ['feed-reader', 'taxii', 'Standard User', null, false],
      ['alice', 'human', 'Read Only User', null, false],
    ])
    expect(JSON.stringify(users)).not.toMatch(/password|scrypt|hash/i)
    expect((await listUsersCommand(store, services, { kind: 'taxii' })).users.map((u) => u.userName)).toEqual([
      'feed-reader',
    ])
    await expect(listUsersCommand(store, services, { kind: 'robot' })).rejects.toMatchObject({ code: 'invalid' })
  })

  it('disables and enables an account', async () => {
    expect(await disableUserCommand(store, services, { userName: 'alice' })).toEqual({
      userName: 'alice',
      disabled: true,
    })
    expect((await listUsersCommand(store, services, { kind: 'human' })).users[0].disabled).toBe(true)
    expect(await enableUserCommand(store, services, { userName: 'alice' })).toEqual({
      userName: 'alice',
      disabled: false,
    })
    await expect(disableUserCommand(store, services, { userName: 'nobody' })).rejects.toMatchObject({
      code: 'not_found',
    })
  })

  it('sets a password (8 characters at least) and a token lifetime', async () => {
    expect(
      await setUserPasswordCommand(store, services, { userName: 'feed-reader', password: 'a new password' }),
    ).toEqual({ userName: 'feed-reader', passwordChanged: true })
    await expect(
      setUserPasswordCommand(store, services, { userName: 'feed-reader', password: 'short' }),
    ).rejects.toMatchObject({ code: 'invalid' })
    await expect(setUserPasswordCommand(store, services, { userName: 'feed-reader' })).rejects.toMatchObject({
      code: 'invalid',
    })
    expect(await setUserTokenLifetimeCommand(store, services, { userName: 'alice', days: '7' })).toEqual({
      userName: 'alice',
      tokenLifetimeDays: 7,
    })
    expect(await setUserTokenLifetimeCommand(store, services, { userName: 'ops-api', days: 'none' })).toEqual({
      userName: 'ops-api',
      tokenLifetimeDays: null,
    })
    await expect(setUserTokenLifetimeCommand(store, services, { userName: 'alice', days: '-3' })).rejects.toMatchObject(
      { code: 'invalid' },
    )
    const { users } = await listUsersCommand(store, services, { organization: 'Acme' })
    expect(users.map((u) => u.tokenLifetimeDays)).toEqual([null, null, 7])
  })
})

describe('memberships set|remove|list', () => {
  it('adds a Community role, changes it and removes it', async () => {
    expect(
      await setMembershipCommand(store, services, { userName: 'alice', owner: 'Sharing Circle', role: 'Contributor' }),
    ).toEqual({ userName: 'alice', owner: 'Sharing Circle', ownerType: 'Community', role: 'Contributor' })
    await setMembershipCommand(store, services, { userName: 'alice', owner: 'Sharing Circle', role: 'Editor' })
    expect((await listMembershipsCommand(store, services, { userName: 'alice' })).memberships).toEqual([
      { userName: 'alice', owner: 'Acme', ownerType: 'Organization', role: 'Read Only User' },
      { userName: 'alice', owner: 'Sharing Circle', ownerType: 'Community', role: 'Editor' },
    ])
    expect(
      (await listMembershipsCommand(store, services, { owner: 'Sharing Circle' })).memberships.map((m) => m.userName),
    ).toEqual(['alice'])
    expect(await removeMembershipCommand(store, services, { userName: 'alice', owner: 'Sharing Circle' })).toEqual({
      userName: 'alice',
      owner: 'Sharing Circle',
      removed: true,
    })
    expect((await listMembershipsCommand(store, services, { owner: 'Sharing Circle' })).memberships).toEqual([])
  })

  it('changes the Organization role, and refuses what the rules forbid', async () => {
    await setMembershipCommand(store, services, { userName: 'alice', owner: 'Acme', role: 'Sharing User' })
    expect(
      (await listMembershipsCommand(store, services, { userName: 'alice', owner: 'Acme' })).memberships[0].role,
    ).toBe('Sharing User')
    await expect(
      setMembershipCommand(store, services, { userName: 'alice', owner: 'Sharing Circle', role: 'Standard User' }),
    ).rejects.toMatchObject({ code: 'invalid' })
    await expect(
      setMembershipCommand(store, services, { userName: 'alice', owner: 'Second Org', role: 'Standard User' }),
    ).rejects.toMatchObject({ code: 'invalid' })
    await expect(removeMembershipCommand(store, services, { userName: 'alice', owner: 'Acme' })).rejects.toMatchObject({
      code: 'invalid',
    })
    await expect(
      removeMembershipCommand(store, services, { userName: 'alice', owner: 'Sharing Circle' }),
    ).rejects.toMatchObject({ code: 'not_found' })
  })
})
