/**
 * Intelligence is written by adversaries: a URL from a feed becomes a link only when it is plain
 * http or https. `javascript:`, `data:`, `vbscript:`, `file:` and anything unparsable stay text.
 */
export function safeHref(text: string | null | undefined): string | undefined {
  if (!text) return undefined
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return undefined
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined
}
