/** `bulwark lifecycle show|set|run`: the owner's days per type, changed one type at a time, and a run now. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOwner } from '../../domain/access/accounts.js'
import type { Services } from '../../domain/services.js'
import { isoNow } from '../../core/time.js'
import type { Store } from '../../store/connect.js'
import { createTestDomain } from '../../test/harness.js'
import { runDueTasks } from '../../worker/scheduled-tasks.js'
import { runLifecycleCommand, setLifecycleCommand, showLifecycleCommand } from './lifecycle.js'

let store: Store
let services: Services
let drop: () => Promise<void>

beforeAll(async () => {
  ;({ store, services, drop } = await createTestDomain())
  await createOwner(store.db, { name: 'Acme', type: 'Organization' }, isoNow())
})
afterAll(() => drop())

describe('bulwark lifecycle', () => {
  it('shows the defaults for every type, and no run yet', async () => {
    const shown = await showLifecycleCommand(store, services, { owner: 'Acme' })
    expect(shown.policy).toHaveLength(10)
    expect(shown.policy).toContainEqual({ type: 'Address', days: 30, own: false })
    expect(shown.policy).toContainEqual({ type: 'File', days: 365, own: false })
    expect(shown.lastRun).toBeNull()
  })

  it('sets one type, back to its default with `default`, and refuses what is not a number of days', async () => {
    const set = await setLifecycleCommand(store, services, { owner: 'Acme', type: 'url', days: '7' })
    expect(set.policy).toContainEqual({ type: 'URL', days: 7, own: true })
    const reset = await setLifecycleCommand(store, services, { owner: 'Acme', type: 'URL', days: 'default' })
    expect(reset.policy).toContainEqual({ type: 'URL', days: 60, own: false })
    await expect(setLifecycleCommand(store, services, { owner: 'Acme', type: 'URL', days: 'soon' })).rejects.toThrow(
      /whole number of days/,
    )
    await expect(setLifecycleCommand(store, services, { owner: 'Nobody', type: 'URL', days: '1' })).rejects.toThrow(
      /No owner named 'Nobody'/,
    )
  })

  it('runs now and shows that run', async () => {
    expect(await runLifecycleCommand(store, services)).toMatchObject({ deactivated: 0 })
    const { lastRun } = await showLifecycleCommand(store, services, { owner: 'Acme' })
    expect(lastRun).toMatchObject({ started: expect.any(String), outcome: { deactivated: 0 } })
  })

  it('a node runs it only when the setting allows it', async () => {
    await store.db.deleteFrom('scheduled_task').execute()
    await services.settings.set('indicatorLifecycleEnabled', 'false')
    expect(await runDueTasks(store, services, 'node-a')).toBeUndefined()
    await services.settings.set('indicatorLifecycleEnabled', 'true')
    expect(await runDueTasks(store, services, 'node-a')).toMatchObject({ deactivated: 0 })
  })
})
