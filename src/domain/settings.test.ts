import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../store/connect.js'
import { createTestStore } from '../test/harness.js'
import { SETTINGS, SettingsService } from './settings.js'

let store: Store
let drop: () => Promise<void>
beforeAll(async () => {
  ;({ store, drop } = await createTestStore())
})
afterAll(async () => {
  await drop()
})

describe('SettingsService', () => {
  it('answers the defaults before anything is stored', async () => {
    const settings = new SettingsService(store)
    expect(await settings.get('bulkDeleteEnabled')).toBe(false)
    expect(await settings.get('tqlTimeoutMs')).toBe(30_000)
    expect(await settings.getBoolean('batchJobEnabled')).toBe(true)
    const all = await settings.getAll()
    expect(Object.keys(all)).toEqual(Object.keys(SETTINGS))
    expect(all.observedIndicatorLimit).toBe(20_000)
  })

  it('stores values given as text, trimmed and in any case, and reads them back at once', async () => {
    const settings = new SettingsService(store)
    await settings.get('bulkDeleteEnabled')
    expect(await settings.set('bulkDeleteEnabled', ' TRUE ')).toBe(true)
    expect(await settings.get('bulkDeleteEnabled')).toBe(true)
    expect(await settings.set('indicatorDeleteRetentionDays', '0')).toBe(0)
    expect(await settings.set('tqlTimeoutMs', '100')).toBe(100)
    expect(await new SettingsService(store).getAll()).toMatchObject({
      bulkDeleteEnabled: true,
      indicatorDeleteRetentionDays: 0,
      tqlTimeoutMs: 100,
    })
  })

  it('refuses an unknown name, naming the known ones', async () => {
    await expect(new SettingsService(store).set('bulkDelete', 'true')).rejects.toMatchObject({
      code: 'invalid',
      message: `Unknown setting 'bulkDelete'. Known settings: ${Object.keys(SETTINGS).join(', ')}`,
    })
  })

  it('reads a boolean as every true/false is read (1 and 0 too) and refuses anything else', async () => {
    expect(await new SettingsService(store).set('readOnlyUserUpdatesAllowed', '1')).toBe(true)
    expect(await new SettingsService(store).set('readOnlyUserUpdatesAllowed', ' FALSE ')).toBe(false)
    for (const text of ['yes', 'on', '']) {
      await expect(new SettingsService(store).set('readOnlyUserUpdatesAllowed', text)).rejects.toMatchObject({
        code: 'invalid',
        message: "Setting 'readOnlyUserUpdatesAllowed' takes true or false",
      })
    }
  })

  it('refuses a number below the minimum or not whole', async () => {
    const settings = new SettingsService(store)
    await expect(settings.set('tqlTimeoutMs', '99')).rejects.toMatchObject({
      message: "Setting 'tqlTimeoutMs' takes a whole number of at least 100",
    })
    await expect(settings.set('batchMaxIndicators', '0')).rejects.toMatchObject({
      message: "Setting 'batchMaxIndicators' takes a whole number of at least 1",
    })
    for (const text of ['-5', '2.5', '1e3', 'many'])
      await expect(settings.set('batchMaxIndicators', text)).rejects.toMatchObject({ code: 'invalid' })
    expect(await settings.get('tqlTimeoutMs')).toBe(100)
  })

  it('falls back to the default when a stored value no longer parses', async () => {
    await store.db.insertInto('setting').values({ name: 'documentMaxBytes', value: 'garbage' }).execute()
    expect(await new SettingsService(store).get('documentMaxBytes')).toBe(SETTINGS.documentMaxBytes.default)
  })
})
