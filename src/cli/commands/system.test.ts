import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccount, createOwner } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
import { createTestDomain } from '../../test/harness.js'
import { getSettingCommand, listSettingsCommand, setSettingCommand } from './settings.js'
import { statusCommand } from './status.js'

let store: Store
let services: Services
let drop: () => Promise<void>

beforeAll(async () => {
  ;({ store, services, drop } = await createTestDomain())
})
afterAll(async () => {
  await drop()
})

describe('settings list|get|set', () => {
  it('lists every setting with its default', async () => {
    const { settings } = await listSettingsCommand(store, services)
    expect(settings.find((s) => s.name === 'bulkDeleteEnabled')).toEqual({
      name: 'bulkDeleteEnabled',
      value: false,
      default: false,
      type: 'boolean',
      description: 'Allow DELETE /v3/<type>?tql=… to delete every match',
    })
    expect(settings.find((s) => s.name === 'tqlTimeoutMs')).toMatchObject({
      value: 30000,
      default: 30000,
      type: 'integer',
    })
  })

  it('sets a boolean and a number, and get shows the new value', async () => {
    expect(await setSettingCommand(store, services, { name: 'bulkDeleteEnabled', value: 'true' })).toMatchObject({
      name: 'bulkDeleteEnabled',
      value: true,
      default: false,
    })
    expect(await setSettingCommand(store, services, { name: 'tqlTimeoutMs', value: '5000' })).toMatchObject({
      value: 5000,
    })
    expect(await getSettingCommand(store, services, { name: 'bulkDeleteEnabled' })).toMatchObject({ value: true })
    expect(await getSettingCommand(store, services, { name: 'tqlTimeoutMs' })).toMatchObject({ value: 5000 })
  })

  it('refuses unknown names and bad values, and keeps the old value', async () => {
    await expect(getSettingCommand(store, services, { name: 'nope' })).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^Unknown setting 'nope'/),
    })
    await expect(setSettingCommand(store, services, { name: 'nope', value: '1' })).rejects.toMatchObject({
      code: 'invalid',
    })
    await expect(setSettingCommand(store, services, { name: 'bulkDeleteEnabled', value: 'yes' })).rejects.toMatchObject(
      { message: "Setting 'bulkDeleteEnabled' takes true or false" },
    )
    await expect(setSettingCommand(store, services, { name: 'tqlTimeoutMs', value: '50' })).rejects.toMatchObject({
      message: "Setting 'tqlTimeoutMs' takes a whole number of at least 100",
    })
    expect(await getSettingCommand(store, services, { name: 'tqlTimeoutMs' })).toMatchObject({ value: 5000 })
  })
})

describe('status', () => {
  it('reports the dialect, the migrations, the counts and the settings', async () => {
    await createOwner(store.db, { name: 'Acme', type: 'Organization' }, isoNow())
    await createAccount(store.db, { userName: 'svc', kind: 'api', organization: 'Acme' }, isoNow())
    const status = await statusCommand(store, services)
    expect(status.database).toBe(process.env.BULWARK_TEST_DB ?? 'sqlite')
    expect(status.migrationsPending).toEqual([])
    expect(status.migrationsApplied).toBe(status.migrations.length)
    expect(status.migrations[0]).toMatchObject({
      name: '0001-initial',
      executedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    })
    expect(status.counts).toEqual({ owners: 1, accounts: 1, indicators: 0, groups: 0 })
    expect(status.settings).toMatchObject({ bulkDeleteEnabled: true, tqlTimeoutMs: 5000, batchJobEnabled: true })
  })
})
