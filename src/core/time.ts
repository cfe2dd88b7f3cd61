/**
 * Time in storage is fixed-width UTC ISO-8601 with milliseconds, so text order is time
 * order on both databases. The API shows seconds precision, as the platform does.
 */

export function isoNow(): string {
  return new Date().toISOString()
}

let lastMs = Number.NaN
let lastIso = ''

/**
 * The stored form of a time given in ms since the epoch. Every request reads one (its ctx.now) and
 * Date#toISOString costs about half a microsecond, so requests of the same millisecond share it.
 */
export function isoAt(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString()
    lastMs = ms
  }
  return lastIso
}

export function toStoredTime(date: Date): string {
  return date.toISOString()
}

/** `2026-11-23T15:48:49.123Z` → `2026-11-23T15:48:49Z`. */
export function toApiTime(stored: string | null | undefined): string | undefined {
  if (!stored) return undefined
  return `${stored.slice(0, 19)}Z`
}

/**
 * Parses what clients send: ISO-8601 with or without offset, or a date alone. Returns the
 * stored form, or null when the text is not a time.
 */
export function parseApiTime(input: unknown): string | null {
  if (input instanceof Date) return validTime(input)
  if (typeof input === 'number' && Number.isFinite(input))
    return validTime(new Date(input > 1e11 ? input : input * 1000))
  if (typeof input !== 'string' || !input.trim()) return null
  const text = input.trim()
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return null
  const withZone = /T|\s/.test(text) && !/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? `${text}Z` : text
  return validTime(new Date(withZone.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2')))
}

/**
 * Only years 0000–9999 keep the stored form fixed-width (and so text order time order); outside
 * the Date range at all, toISOString would throw.
 */
function validTime(date: Date): string | null {
  const year = date.getUTCFullYear()
  return Number.isNaN(date.getTime()) || year < 0 || year > 9999 ? null : date.toISOString()
}

export const HOUR_MS = 3_600_000
export const DAY_MS = 24 * HOUR_MS
