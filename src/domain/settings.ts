/**
 * System settings: the switches the spec names (bulk delete, TQL timeout) and the limits
 * the platform documents. Stored in the database so every node sees the same values; each
 * node keeps a copy until a change notice says the table moved (store/change-notices.ts: within
 * milliseconds) and for at most a second when no notice can come.
 */
import { findSetting, listSettings, upsertSetting } from '../store/repositories/account.repository.js'
import type { Store } from '../store/connect.js'
import { cachedStateEpoch } from '../store/engine/credential-cache.js'
import { invalid } from '../core/errors.js'
import { readBoolean } from '../core/input.js'

interface SettingDef {
  type: 'boolean' | 'integer'
  default: boolean | number
  description: string
  min?: number
}

export const SETTINGS = {
  bulkDeleteEnabled: {
    type: 'boolean',
    default: false,
    description: 'Allow DELETE /v3/<type>?tql=… to delete every match',
  },
  tqlTimeoutMs: {
    type: 'integer',
    default: 30_000,
    min: 100,
    description: 'System-wide TQL query timeout in milliseconds',
  },
  readOnlyUserUpdatesAllowed: {
    type: 'boolean',
    default: false,
    description: 'Let read-only roles report observations and false positives',
  },
  batchJobEnabled: { type: 'boolean', default: true, description: 'Enable the v2 batch API' },
  batchMaxIndicators: { type: 'integer', default: 25_000, min: 1, description: 'Indicators allowed in one batch job' },
  batchMaxUploadBytes: { type: 'integer', default: 2_000_000, min: 1, description: 'Largest batch upload in bytes' },
  indicatorDeleteRetentionDays: {
    type: 'integer',
    default: 30,
    min: 0,
    description: 'Days deleted-indicator records are kept',
  },
  observedIndicatorLimit: {
    type: 'integer',
    default: 20_000,
    min: 1,
    description: 'Most items returned by /v2/indicators/observed',
  },
  documentMaxBytes: {
    type: 'integer',
    default: 50 * 1024 * 1024,
    min: 1,
    description: 'Largest document or report upload in bytes',
  },
  importMaxBytes: {
    type: 'integer',
    default: 512 * 1024 * 1024,
    min: 1,
    description: 'Largest file POST /v3/imports takes, in bytes',
  },
  indicatorLifecycleEnabled: {
    type: 'boolean',
    default: true,
    description: "Turn Indicators inactive when not seen again within their owner's days per type",
  },
  indicatorLifecycleIntervalMinutes: {
    type: 'integer',
    default: 60,
    min: 1,
    description: 'Minutes between runs of the Indicator lifecycle',
  },
  feedsAllowPrivateNetworks: {
    type: 'boolean',
    default: false,
    description: 'Let feeds reach loopback and private addresses; link-local and cloud metadata addresses stay refused',
  },
} as const satisfies Record<string, SettingDef>

export type SettingName = keyof typeof SETTINGS
type SettingValue<N extends SettingName> = (typeof SETTINGS)[N]['type'] extends 'boolean' ? boolean : number

const CACHE_MS = 1000

export class SettingsService {
  private cache = new Map<string, { value: boolean | number; until: number; epoch: number }>()

  constructor(private readonly store: Store) {}

  /** The same settings read through another handle (an open transaction: on SQLite the outer handle waits for it). */
  within(db: Store['db']): SettingsService {
    const bound = new SettingsService({ ...this.store, db })
    bound.cache = this.cache
    return bound
  }

  async get<N extends SettingName>(name: N): Promise<SettingValue<N>> {
    const hit = this.cache.get(name)
    if (hit && hit.until > Date.now() && hit.epoch === cachedStateEpoch()) return hit.value as SettingValue<N>
    const epoch = cachedStateEpoch()
    const row = await findSetting(this.store.db, name)
    const value = row ? decode(SETTINGS[name], row.value) : SETTINGS[name].default
    this.cache.set(name, { value, until: Date.now() + CACHE_MS, epoch })
    return value as SettingValue<N>
  }

  async getBoolean(name: SettingName): Promise<boolean> {
    return !!(await this.get(name))
  }

  async getAll(): Promise<Record<SettingName, boolean | number>> {
    const stored = new Map((await listSettings(this.store.db)).map((r) => [r.name, r.value]))
    const result = {} as Record<SettingName, boolean | number>
    for (const [name, def] of Object.entries(SETTINGS) as [SettingName, SettingDef][]) {
      result[name] = stored.has(name) ? decode(def, stored.get(name)!) : def.default
    }
    return result
  }

  /** Validates and stores a setting given as text (from the CLI or an admin call). */
  async set(name: string, text: string): Promise<boolean | number> {
    const value = readSetting(name, text)
    await upsertSetting(this.store.db, name, String(value))
    this.cache.delete(name)
    return value
  }
}

/**
 * A setting's value as typed, checked without storing it: so several can be checked before any is set.
 * @example readSetting('tqlTimeoutMs', '10000') === 10000; readSetting('tqlTimeoutMs', '5') // throws invalid
 */
export function readSetting(name: string, text: string): boolean | number {
  if (!Object.hasOwn(SETTINGS, name))
    throw invalid(`Unknown setting '${name}'. Known settings: ${Object.keys(SETTINGS).join(', ')}`)
  const def: SettingDef = SETTINGS[name as SettingName]
  const value = parse(def, text)
  if (value === null)
    throw invalid(
      `Setting '${name}' takes ${def.type === 'boolean' ? 'true or false' : `a whole number${def.min !== undefined ? ` of at least ${def.min}` : ''}`}`,
    )
  return value
}

// A type rather than an interface: the CLI prints it as a plain record.
export type SettingView = {
  name: SettingName
  value: boolean | number
  default: boolean | number
  type: 'boolean' | 'integer'
  description: string
}

/** Every setting with its value, default, type and description, in declaration order (the CLI's list and the admin API's). */
export async function describeSettings(settings: SettingsService): Promise<SettingView[]> {
  const values = await settings.getAll()
  return (Object.keys(SETTINGS) as SettingName[]).map((name) => describeSetting(name, values[name]))
}

export function describeSetting(name: SettingName, value: boolean | number): SettingView {
  const def: SettingDef = SETTINGS[name]
  return { name, value, default: def.default, type: def.type, description: def.description }
}

function parse(def: SettingDef, text: string): boolean | number | null {
  const t = text.trim().toLowerCase()
  if (def.type === 'boolean') return readBoolean(t) ?? null
  if (!/^\d+$/.test(t)) return null
  const n = Number(t)
  return def.min !== undefined && n < def.min ? null : n
}

function decode(def: SettingDef, stored: string): boolean | number {
  return parse(def, stored) ?? def.default
}
