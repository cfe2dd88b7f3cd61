/**
 * What a refusing answer tells the run: how long the server asked it to wait (Retry-After) and a
 * short, safe reason. A feed server's error body is remote text: only a little of it, flattened to
 * one line, and only from plain text or the title/description of a JSON error (TAXII 2.1, MISP)
 * reaches the run's record, never markup and never more than a sentence or two.
 */

/** The longest wait a Retry-After may ask for; a server asking a week is not followed for a week. */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000

/** The summary's length at most. */
export const MAX_SUMMARY_CHARS = 200

/** Milliseconds to wait, from delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim()
  if (!text) return undefined
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS)
  // An HTTP date names its weekday; Date.parse alone would also take "7 s" or a bare year.
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined
  const at = Date.parse(text)
  if (Number.isNaN(at)) return undefined
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS)
}

/** One line of at most MAX_SUMMARY_CHARS from an error body, or undefined when it says nothing usable. */
export function summarizeErrorBody(contentType: string | undefined, body: string): string | undefined {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase()
  let text: string | undefined
  if (type === 'text/plain') text = body
  else if (type === 'application/json' || type.endsWith('+json')) text = jsonReason(body)
  if (text === undefined) return undefined
  // Control and format characters (bidi overrides among them) could disguise the line in a log or a console.
  const line = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  if (!line) return undefined
  return line.length > MAX_SUMMARY_CHARS ? `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…` : line
}

function jsonReason(body: string): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined
  const record = parsed as Record<string, unknown>
  const parts = ['title', 'description']
    .map((key) => record[key])
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
  // MISP answers {name, message, url}.
  if (parts.length === 0 && typeof record.message === 'string') parts.push(record.message)
  return parts.length ? parts.join(': ') : undefined
}
