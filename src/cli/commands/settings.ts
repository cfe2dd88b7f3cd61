/** `bulwark settings list|get|set`: the system settings every node reads (domain/settings.ts). */
import { invalid } from '../../core/errors.js'
import type { Services } from '../../domain/services.js'
import { SETTINGS, type SettingName, describeSetting, describeSettings } from '../../domain/settings.js'
import type { Store } from '../../store/connect.js'

export async function listSettingsCommand(_store: Store, services: Services, _args: object = {}) {
  return { settings: await describeSettings(services.settings) }
}

export async function getSettingCommand(_store: Store, services: Services, args: { name: string }) {
  if (!(args.name in SETTINGS))
    throw invalid(`Unknown setting '${args.name}'. Known settings: ${Object.keys(SETTINGS).join(', ')}`)
  const name = args.name as SettingName
  return describeSetting(name, (await services.settings.getAll())[name])
}

/** Takes the value as typed (`true`, `false`, digits); other nodes see it within a second. */
export async function setSettingCommand(_store: Store, services: Services, args: { name: string; value: string }) {
  const value = await services.settings.set(args.name, args.value)
  return describeSetting(args.name as SettingName, value)
}
