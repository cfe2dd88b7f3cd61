/**
 * The rules of the console's writes, kept apart from the pages so they are tested alone: which owners a
 * person may write, the v3 body of a new Indicator from a typed value, many writes four at a time, and
 * how a field of the API is named on an item page.
 */
import { detectValue, isDetected } from '../../src/formats/text/values.js'
import { findIndicatorType } from '../../src/model/indicator-types.js'
import type { OwnerAccess } from './api.js'

/** The Group types the console offers to create: those that need nothing but a name. */
export const GROUP_TYPES = ['Adversary', 'Campaign', 'Incident', 'Intrusion Set', 'Threat']

/** The v3 body of an Indicator from a typed value (defanged is fine), or why it is none. */
export function indicatorBody(text: string): { body: Record<string, unknown> } | { reason: string } {
  const detected = detectValue(text.trim())
  if (!isDetected(detected)) return { reason: detected.reason }
  const type = findIndicatorType(detected.type)
  if (!type) return { reason: `Bulwark has no Indicator type ${detected.type}` }
  const body: Record<string, unknown> = { type: type.name }
  type.fields.forEach((f, n) => {
    const value = detected.values[n]
    if (value) body[f.name] = value
  })
  return { body }
}

/** The owners where the person's role gives FULL on `perm`. */
export function writableOwners(access: readonly OwnerAccess[], perm: 'permIndicator' | 'permGroup'): OwnerAccess[] {
  return access.filter((o) => o[perm] === 'FULL')
}

const AT_ONCE = 4

/** Runs `work` on every id, AT_ONCE at a time; the refusals' messages, by id. */
export async function eachOf(ids: number[], work: (id: number) => Promise<unknown>): Promise<Map<number, string>> {
  const refused = new Map<number, string>()
  let next = 0
  const lane = async () => {
    while (next < ids.length) {
      const id = ids[next++]
      await work(id).catch((error: Error) => refused.set(id, error.message))
    }
  }
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, ids.length) }, lane))
  return refused
}

/** `externalDateAdded` → `External date added`. */
export function fieldLabel(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}
