/**
 * Lenient Accept negotiation (TAXII 2.1 §3.1, ../shared/research/taxii-stix.md §1.1): every response is
 * `application/taxii+json;version=2.1`, and a request is refused with 406 only when its Accept
 * header names nothing that response could satisfy.
 */

export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1'

/** What a collection's objects are, in its resource and manifest. */
export const STIX_MEDIA_TYPE = 'application/stix+json;version=2.1'

/** Media ranges this server answers: type/subtype → whether a version parameter other than 2.1 rules it out. */
const SERVED = new Set(['*/*', 'application/*', 'application/taxii+json', 'application/stix+json', 'application/json'])

/** True when the Accept header (absent, or any of its ranges) admits a TAXII 2.1 JSON response. */
export function acceptsTaxii(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase())
    if (!SERVED.has(type)) return false
    let acceptable = true
    for (const param of params) {
      const eq = param.indexOf('=')
      if (eq < 0) continue
      const name = param.slice(0, eq).trim()
      const value = param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
      if (name === 'version' && value !== '2.1') acceptable = false
      if (name === 'q' && Number(value) === 0) acceptable = false
    }
    return acceptable
  })
}
