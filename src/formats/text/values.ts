/**
 * What a bare value is: the Indicator type and value fields of a text as analysts, reports and
 * feeds write it, defanged or not. The one home of type detection and re-fanging: the plain-list
 * and CSV readers use it, and so will the console's search and the feeds. Pure functions over
 * the model's types (model/indicator-types.ts normalizes and validates); nothing here reads a
 * file or knows a format.
 */
import { isIP } from 'node:net'
import { type IndicatorTypeDef, composeSummary, findIndicatorType, parseSummary } from '../../model/indicator-types.js'

/** A value whose type was found: the type's name, its value fields as the type stores them, and a port it was written with. */
export interface DetectedValue {
  type: string
  values: (string | null)[]
  summary: string
  /** `198.51.100.7:8080`, `bad.example:443`: the port, which no Indicator type holds. */
  port?: number
}

/** Why a text is no value of a known type, in words that quote it. */
export interface Undetected {
  reason: string
}

/** The types detectValue can tell from the value alone; the others (Mutex, Registry Key, User Agent) are any text. */
export const DETECTABLE_TYPES: readonly string[] = ['Address', 'CIDR', 'Host', 'URL', 'EmailAddress', 'File', 'ASN']

const KNOWN = 'IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN'

/** How much of a value an error message quotes: a 10 MB line is not repeated back whole. */
const QUOTED_MAX = 120

/** `'value'`, cut short where it is long. */
export function quoteValue(text: string): string {
  return `'${text.length > QUOTED_MAX ? `${text.slice(0, QUOTED_MAX)}…` : text}'`
}

/** Defanged forms and what they stand for, anywhere in the value (the scheme, only at its start). */
const DEFANGED: [RegExp, string][] = [
  [/\[:\/\/\]/g, '://'],
  [/\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\{dot\}/gi, '.'],
  [/\[:\]/g, ':'],
  [/\[\/\]/g, '/'],
  [/\[@\]|\[at\]|\(at\)|\{at\}/gi, '@'],
]

/**
 * The value a defanged text stands for: `hxxp`/`hxxps`/`hXXp` (any case) → `http`/`https`, `[.]` `(.)` `{.}`
 * `[dot]` → `.`, `[:]` → `:`, `[://]` → `://`, `[/]` → `/`, `[@]` `[at]` → `@`.
 * @example refang('hxxp://91.215.85[.]188/a') === 'http://91.215.85.188/a'
 */
export function refang(text: string): string {
  if (!/[[({]|^hxxp/i.test(text)) return text
  let out = text.replace(/^hxxp(s?)(?=\[?:)/i, (_m, s: string) => `http${s.toLowerCase()}`)
  for (const [pattern, replacement] of DEFANGED) out = out.replace(pattern, replacement)
  return out
}

const def = (name: string) => findIndicatorType(name)!
const ADDRESS = def('Address')
const CIDR = def('CIDR')
const HOST = def('Host')
const URL_TYPE = def('URL')
const EMAIL = def('EmailAddress')
const FILE = def('File')
const ASN = def('ASN')

/** `AS174`, `ASN174`, `as 174` as `ASN174`, the form the STIX reader writes: one AS, one Indicator. */
function asnOf(text: string): string | undefined {
  const m = /^ASN?\s?(\d{1,10})$/i.exec(text)
  return m ? `ASN${m[1]}` : undefined
}

const HEX = /^[0-9a-f]+$/i
const HASH_SLOT: Record<number, number> = { 32: 0, 40: 1, 64: 2 }
const HASH_NAMES = ['MD5', 'SHA-1', 'SHA-256']
const HASH_SEPARATOR = /\s*[;|,]\s*|\s+:\s+|\s+|:/

/**
 * File name extensions that are no top-level domain: `nss3.dll` is a file a report names, not a
 * host. (`.zip`, `.mov`, `.sh` and `.py` are real TLDs, so they stay hosts.)
 */
const FILE_EXTENSIONS = new Set(
  (
    'exe dll sys bat cmd vbs vbe jse wsf hta scr lnk msi jar tmp dat bin log ini cfg txt doc docx docm xls ' +
    'xlsx xlsm pptx pdf rtf elf dylib apk dmg iso img vhd gz rar tar php asp aspx jsp htm html js json xml csv'
  ).split(' '),
)

function ofType(type: IndicatorTypeDef, values: (string | null)[], port?: number): DetectedValue {
  return { type: type.name, values, summary: composeSummary(type, values), ...(port === undefined ? {} : { port }) }
}

/** One hash or several of one file (`md5;sha1;sha256`, `md5 : sha1`), each kind at most once. */
function detectHashes(text: string): DetectedValue | Undetected | undefined {
  const parts = text.split(HASH_SEPARATOR)
  if (!parts.every((p) => HEX.test(p))) return undefined
  const values: (string | null)[] = [null, null, null]
  for (const part of parts) {
    const slot = HASH_SLOT[part.length]
    if (slot === undefined)
      return part.length === 128
        ? { reason: `${quoteValue(part)} is a SHA-512 hash: a File holds MD5, SHA-1 and SHA-256` }
        : part.length >= 16
          ? { reason: `${quoteValue(part)} is ${part.length} hex digits: no MD5 (32), SHA-1 (40) or SHA-256 (64)` }
          : undefined
    if (values[slot] !== null)
      return { reason: `${quoteValue(text)} holds two ${HASH_NAMES[slot]} hashes: one File has one` }
    values[slot] = part.toUpperCase()
  }
  return ofType(FILE, values)
}

/** A host name as lists write them: dotted, its last label letters (or punycode), not a file name. */
function detectHost(text: string, port?: number): DetectedValue | Undetected | undefined {
  const host = HOST.normalize(0, text)
  if (host === null || !host.includes('.')) return undefined
  const tld = host.slice(host.lastIndexOf('.') + 1)
  if (!/^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(tld)) return undefined
  if (FILE_EXTENSIONS.has(tld))
    return { reason: `${quoteValue(text)} is a file name (.${tld} is no top-level domain), not a host` }
  return ofType(HOST, [host], port)
}

const validPort = (port: string) => Number(port) >= 0 && Number(port) <= 65535

/** An address or host with `:port` (`[v6]:port` for IPv6). */
function detectWithPort(text: string): DetectedValue | Undetected | undefined {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:\s]+)):(\d{1,5})$/i.exec(text)
  if (!m || !validPort(m[3])) return undefined
  const port = Number(m[3])
  const address = m[1] ?? m[2]
  if (isIP(address)) return ofType(ADDRESS, [ADDRESS.normalize(0, address)], port)
  return m[2] ? detectHost(m[2], port) : undefined
}

/**
 * The Indicator type and values of one value as written (trimmed, re-fanged first): IPv4 or IPv6
 * (Address, also with `:port`), CIDR, host (dotted, letters in its last label; also with `:port`),
 * URL (a scheme and `://`), email address, MD5/SHA-1/SHA-256 (File; several hashes of one file
 * separated by `;`, `|`, `,`, `:` or spaces are one File), ASN (`AS174`, `ASN174`, `as 174`, kept as
 * `ASN174` as the STIX reader writes it). Anything else is Undetected with the reason.
 * @example detectValue('91.215.85[.]188') // { type: 'Address', values: ['91.215.85.188'], summary: '91.215.85.188' }
 * @example detectValue('nss3.dll')        // { reason: "'nss3.dll' is a file name (.dll is no top-level domain), not a host" }
 */
export function detectValue(raw: string): DetectedValue | Undetected {
  const text = refang(raw.trim())
  if (!text) return { reason: 'the value is empty' }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const url = URL_TYPE.normalize(0, text)
    return url === null ? { reason: `${quoteValue(text)} is not a URL: a URL has no spaces` } : ofType(URL_TYPE, [url])
  }
  if (isIP(text)) return ofType(ADDRESS, [ADDRESS.normalize(0, text)])
  if (text.includes('/')) {
    const block = CIDR.normalize(0, text)
    if (block !== null) return ofType(CIDR, [block])
    return /^[a-z0-9.-]+\.[a-z]{2,63}\//i.test(text)
      ? { reason: `${quoteValue(text)} is a host and path without a scheme: a URL needs one (http://…)` }
      : { reason: `${quoteValue(text)} is not a value of a known type (${KNOWN})` }
  }
  if (text.includes('@')) {
    const address = EMAIL.normalize(0, text.replace(/^mailto:/i, ''))
    return address === null ? { reason: `${quoteValue(text)} is not an email address` } : ofType(EMAIL, [address])
  }
  const asn = asnOf(text)
  if (asn) return ofType(ASN, [asn])
  return (
    detectHashes(text) ??
    detectWithPort(text) ??
    detectHost(text) ?? { reason: `${quoteValue(text)} is not a value of a known type (${KNOWN})` }
  )
}

export function isDetected(found: DetectedValue | Undetected): found is DetectedValue {
  return 'type' in found
}

/**
 * The values of a text as an Indicator of a type the caller names (`--type`, a CSV's type column):
 * re-fanged and, for a File, hashes found as detectValue finds them; null when the type refuses it.
 * Types detectValue cannot tell (Mutex, Registry Key, User Agent) take the text verbatim, so a
 * mutex that looks defanged stays as written.
 */
export function valuesOfType(type: IndicatorTypeDef, raw: string): (string | null)[] | null {
  if (!DETECTABLE_TYPES.includes(type.name)) return parseSummary(type, raw)
  const text = refang(raw.trim())
  if (type.name === 'File') {
    const found = detectHashes(text)
    return found && isDetected(found) ? found.values : null
  }
  if (type.name === 'ASN') {
    const asn = asnOf(text)
    return asn ? [asn] : null
  }
  return parseSummary(type, text)
}

/** The names feeds give types, beyond the model's own (`ip`, `domain`, `md5`, …), lower case. */
const TYPE_ALIASES: Record<string, string> = {
  ip: 'Address',
  ipv4: 'Address',
  ipv6: 'Address',
  'ipv4-addr': 'Address',
  'ipv6-addr': 'Address',
  'ip-src': 'Address',
  'ip-dst': 'Address',
  domain: 'Host',
  'domain-name': 'Host',
  hostname: 'Host',
  fqdn: 'Host',
  uri: 'URL',
  email: 'EmailAddress',
  'email-addr': 'EmailAddress',
  md5: 'File',
  sha1: 'File',
  'sha-1': 'File',
  sha256: 'File',
  'sha-256': 'File',
  hash: 'File',
  md5_hash: 'File',
  sha1_hash: 'File',
  sha256_hash: 'File',
  as: 'ASN',
  'autonomous-system': 'ASN',
  subnet: 'CIDR',
  'user-agent': 'User Agent',
  regkey: 'Registry Key',
}

/**
 * The Indicator type a feed's type name means: the model's names (findIndicatorType), then the
 * common names above; undefined for a name of neither.
 * @example indicatorTypeNamed('domain')?.name === 'Host'
 */
export function indicatorTypeNamed(name: string): IndicatorTypeDef | undefined {
  const alias = TYPE_ALIASES[name.trim().toLowerCase()]
  return findIndicatorType(alias ?? name)
}
