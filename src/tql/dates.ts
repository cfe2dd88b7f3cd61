/**
 * TQL date values: ISO dates and times, and TODAY() with an offset. A value with day
 * precision (a date alone, or TODAY() moved by whole days, weeks, months or years) stands
 * for the whole UTC day, so `dateAdded = TODAY()` means "added today".
 */
import type { DateUnit } from './ast.js'
import { parseApiTime } from '../core/time.js'
import { DATE_UNITS } from './parser.js'

/** An instant, or with `until` a day-long interval [from, until). Both are stored-form ISO text. */
export interface DateValue {
  from: string
  until?: string
}

const DAY_MS = 86_400_000
const FIXED_MS: Partial<Record<DateUnit, number>> = { minute: 60_000, hour: 3_600_000, day: DAY_MS, week: 7 * DAY_MS }
const TODAY_TEXT = /^\s*TODAY\s*\(\s*\)\s*(?:([+-])\s*(\d{1,6})\s*([A-Za-z]+))?\s*$/i

export function todayValue(now: Date, amount: number, unit: DateUnit | null): DateValue | null {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
  if (unit === 'month') start.setUTCMonth(start.getUTCMonth() + amount)
  else if (unit === 'year') start.setUTCFullYear(start.getUTCFullYear() + amount)
  else if (unit) start.setTime(start.getTime() + amount * FIXED_MS[unit]!)
  if (Number.isNaN(start.getTime())) return null
  const dayPrecision = unit === null || unit === 'day' || unit === 'week' || unit === 'month' || unit === 'year'
  return dayPrecision
    ? { from: start.toISOString(), until: new Date(start.getTime() + DAY_MS).toISOString() }
    : { from: start.toISOString() }
}

/** Reads a quoted date value: `'2024-01-31'`, `'2024-01-31 10:00:00'`, ISO with zone, or `'TODAY() - 7 DAYS'`. */
export function parseDateText(text: string, now: Date): DateValue | null {
  const today = TODAY_TEXT.exec(text)
  if (today) {
    if (!today[1]) return todayValue(now, 0, null)
    const unit = DATE_UNITS[today[3].toUpperCase()]
    return unit ? todayValue(now, (today[1] === '-' ? -1 : 1) * Number(today[2]), unit) : null
  }
  const trimmed = text.trim()
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed)) return null
  const from = parseApiTime(trimmed)
  if (!from) return null
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) return { from, until: new Date(Date.parse(from) + DAY_MS).toISOString() }
  return { from }
}
