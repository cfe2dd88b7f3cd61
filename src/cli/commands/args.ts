/** Turning option text into values. The domain checks ranges; this only refuses what is not a number. */

/** `'30'` → 30; anything but digits → NaN, which the domain then refuses with its own message. */
export function wholeNumber(text: string | number | undefined): number | undefined {
  if (text === undefined) return undefined
  if (typeof text === 'number') return text
  return /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
}
