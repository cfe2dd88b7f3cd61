/**
 * The ten Indicator types: their API names, value fields, case preference and validation.
 * Every adapter (v2, v3, batch, TAXII) reads names from here; nothing else spells them.
 */
import { isIP } from 'node:net'

export type CasePreference = 'upper' | 'lower' | 'sensitive' | null

export interface IndicatorValueField {
  /** Field name in v2/v3 JSON bodies and responses (e.g. `ip`, `hostName`, `AS Number`). */
  name: string
  /** Label for /v2/types/indicatorTypes (`value1Label`). */
  label: string
  type: 'text' | 'selectone'
  options?: readonly string[]
  required: boolean
}

export interface IndicatorTypeDef {
  name: string
  apiBranch: string
  apiEntity: string
  custom: boolean
  parsable: boolean
  casePreference: CasePreference
  fields: readonly IndicatorValueField[]
  regexes: readonly string[]
  /** Normalizes one value field; returns null when the value is not valid for the type. */
  normalize(field: number, value: string): string | null
}

export const REGISTRY_VALUE_TYPES = [
  'REG_NONE',
  'REG_BINARY',
  'REG_DWORD',
  'REG_DWORD_LITTLE_ENDIAN',
  'REG_DWORD_BIG_ENDIAN',
  'REG_EXPAND_SZ',
  'REG_LINK',
  'REG_MULTI_SZ',
  'REG_QWORD',
  'REG_QWORD_LITTLE_ENDIAN',
  'REG_SZ',
] as const

const HOST_RE = /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const URL_RE = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/\S+$/
const HASH_RE: Record<number, RegExp> = { 0: /^[0-9a-fA-F]{32}$/, 1: /^[0-9a-fA-F]{40}$/, 2: /^[0-9a-fA-F]{64}$/ }

function normalizeAddress(value: string): string | null {
  const kind = isIP(value)
  if (kind === 4)
    return value
      .split('.')
      .map((octet) => String(Number(octet)))
      .join('.')
  if (kind === 6) return compressIPv6(value)
  return null
}

/** RFC 5952 text form, so one address is one Indicator however it was written. */
function compressIPv6(value: string): string {
  const [head, tail = ''] = value.toLowerCase().split('::')
  const parse = (part: string) => (part ? part.split(':') : [])
  let groups: string[]
  const last = value.includes('.') ? value.slice(value.lastIndexOf(':') + 1) : null
  const expandV4 = (parts: string[]) => {
    if (!last) return parts
    const octets = last.split('.').map(Number)
    return [
      ...parts.slice(0, -1),
      ((octets[0] << 8) | octets[1]).toString(16),
      ((octets[2] << 8) | octets[3]).toString(16),
    ]
  }
  if (value.includes('::')) {
    const h = parse(head)
    const t = expandV4(parse(tail))
    groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t]
  } else {
    groups = expandV4(parse(head))
  }
  groups = groups.map((g) => parseInt(g, 16).toString(16))
  let bestStart = -1
  let bestLen = 0
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === '0') j++
    if (j - i > bestLen && j - i > 1) {
      bestStart = i
      bestLen = j - i
    }
    i = j
  }
  if (bestStart < 0) return groups.join(':')
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLen).join(':')}`
}

function applyCase(pref: CasePreference, value: string) {
  return pref === 'upper' ? value.toUpperCase() : pref === 'lower' ? value.toLowerCase() : value
}

/** A CIDR block whose address is a real IPv4 or IPv6 address and whose prefix fits it (≤ 32, ≤ 128). */
function isCidrBlock(value: string): boolean {
  const slash = value.lastIndexOf('/')
  if (slash < 0 || !/^\d{1,3}$/.test(value.slice(slash + 1))) return false
  const kind = isIP(value.slice(0, slash))
  const prefix = Number(value.slice(slash + 1))
  return (kind === 4 && prefix <= 32) || (kind === 6 && prefix <= 128)
}

function customType(
  def: Omit<IndicatorTypeDef, 'custom' | 'normalize' | 'regexes'> & {
    pattern?: RegExp
    valid?: (value: string) => boolean
  },
): IndicatorTypeDef {
  return {
    ...def,
    custom: true,
    regexes: def.pattern ? [def.pattern.source] : [],
    normalize(field, value) {
      const fieldDef = def.fields[field]
      if (!fieldDef) return null
      const v = applyCase(def.casePreference, value.trim())
      if (!v) return null
      if (fieldDef.options && !fieldDef.options.includes(v)) return null
      if (field === 0 && def.pattern && !def.pattern.test(v)) return null
      if (field === 0 && def.valid && !def.valid(v)) return null
      return v
    },
  }
}

const text = (name: string, required = true): IndicatorValueField => ({ name, label: name, type: 'text', required })

export const INDICATOR_TYPES: readonly IndicatorTypeDef[] = [
  {
    name: 'Address',
    apiBranch: 'addresses',
    apiEntity: 'address',
    custom: false,
    parsable: true,
    casePreference: null,
    fields: [{ name: 'ip', label: 'ip', type: 'text', required: true }],
    regexes: ['\\b(?:\\d{1,3}\\.){3}\\d{1,3}\\b', '(?:[0-9a-fA-F]{0,4}:){2,7}[0-9a-fA-F]{0,4}'],
    normalize: (_f, v) => normalizeAddress(v.trim()),
  },
  {
    name: 'EmailAddress',
    apiBranch: 'emailAddresses',
    apiEntity: 'emailAddress',
    custom: false,
    parsable: true,
    casePreference: null,
    fields: [{ name: 'address', label: 'address', type: 'text', required: true }],
    regexes: [EMAIL_RE.source],
    normalize: (_f, v) => (EMAIL_RE.test(v.trim()) ? v.trim().toLowerCase() : null),
  },
  {
    name: 'File',
    apiBranch: 'files',
    apiEntity: 'file',
    custom: false,
    parsable: true,
    casePreference: null,
    fields: [
      { name: 'md5', label: 'MD5', type: 'text', required: false },
      { name: 'sha1', label: 'SHA-1', type: 'text', required: false },
      { name: 'sha256', label: 'SHA-256', type: 'text', required: false },
    ],
    regexes: [HASH_RE[0].source, HASH_RE[1].source, HASH_RE[2].source],
    // The platform shows hashes in upper case; lookups are case-insensitive because input is normalized.
    normalize: (field, v) => (HASH_RE[field]?.test(v.trim()) ? v.trim().toUpperCase() : null),
  },
  {
    name: 'Host',
    apiBranch: 'hosts',
    apiEntity: 'host',
    custom: false,
    parsable: true,
    casePreference: null,
    fields: [{ name: 'hostName', label: 'hostName', type: 'text', required: true }],
    regexes: [HOST_RE.source],
    normalize: (_f, v) => {
      const host = v.trim().toLowerCase().replace(/\.$/, '')
      return HOST_RE.test(host) ? host : null
    },
  },
  {
    name: 'URL',
    apiBranch: 'urls',
    apiEntity: 'url',
    custom: false,
    parsable: true,
    casePreference: null,
    fields: [{ name: 'text', label: 'text', type: 'text', required: true }],
    regexes: [URL_RE.source],
    normalize: (_f, v) => (URL_RE.test(v.trim()) ? v.trim() : null),
  },
  customType({
    name: 'ASN',
    apiBranch: 'asns',
    apiEntity: 'asn',
    parsable: true,
    casePreference: 'upper',
    fields: [text('AS Number')],
    pattern: /^ASN?\d{1,10}$/,
  }),
  customType({
    name: 'CIDR',
    apiBranch: 'cidrBlocks',
    apiEntity: 'cidrBlock',
    parsable: true,
    casePreference: 'lower',
    fields: [text('Block')],
    pattern: /^(?:(?:\d{1,3}\.){3}\d{1,3}\/\d{1,2}|[0-9a-f:.]+\/\d{1,3})$/,
    valid: isCidrBlock,
  }),
  customType({
    name: 'Mutex',
    apiBranch: 'mutexes',
    apiEntity: 'mutex',
    parsable: false,
    casePreference: 'sensitive',
    fields: [text('Mutex')],
  }),
  customType({
    name: 'Registry Key',
    apiBranch: 'registryKeys',
    apiEntity: 'registryKey',
    parsable: false,
    casePreference: 'sensitive',
    fields: [
      text('Key Name'),
      text('Value Name', false),
      { name: 'Value Type', label: 'Value Type', type: 'selectone', options: REGISTRY_VALUE_TYPES, required: false },
    ],
  }),
  customType({
    name: 'User Agent',
    apiBranch: 'userAgents',
    apiEntity: 'userAgent',
    parsable: false,
    casePreference: 'sensitive',
    fields: [text('User Agent String')],
  }),
]

const byName = new Map(INDICATOR_TYPES.map((t) => [t.name.toLowerCase(), t]))
const byBranch = new Map(INDICATOR_TYPES.map((t) => [t.apiBranch.toLowerCase(), t]))
// Clients spell types in several ways (`Address`, `addresses`, `address`, `EmailAddress`, `Email Address`).
for (const t of INDICATOR_TYPES) {
  byName.set(t.apiEntity.toLowerCase(), t)
  byName.set(t.name.replace(/\s+/g, '').toLowerCase(), t)
}
byName.set('email address', byName.get('emailaddress')!)
byName.set('registrykey', byName.get('registry key')!)
byName.set('useragent', byName.get('user agent')!)

/** Finds a type by its name, entity or API branch, case-insensitively. */
export function findIndicatorType(nameOrBranch: string): IndicatorTypeDef | undefined {
  const key = nameOrBranch.trim().toLowerCase()
  return byName.get(key) ?? byBranch.get(key)
}

export function findIndicatorTypeByBranch(branch: string): IndicatorTypeDef | undefined {
  return byBranch.get(branch.toLowerCase())
}

/** File summaries join the hashes the platform's way: `md5 : sha1 : sha256`, present ones only. */
export const SUMMARY_SEPARATOR = ' : '

export function composeSummary(type: IndicatorTypeDef, values: readonly (string | null | undefined)[]): string {
  return values
    .slice(0, type.fields.length)
    .filter((v): v is string => !!v)
    .join(SUMMARY_SEPARATOR)
}

/**
 * Splits a summary (as found in a path or a batch file) into the type's value fields and
 * normalizes each; for Files a single hash is placed by its length.
 */
export function parseSummary(type: IndicatorTypeDef, summary: string): (string | null)[] | null {
  const parts = type.fields.length > 1 ? summary.split(/\s:\s/) : [summary]
  const values: (string | null)[] = type.fields.map(() => null)
  if (type.name === 'File') {
    for (const part of parts) {
      const slot = { 32: 0, 40: 1, 64: 2 }[part.trim().length]
      if (slot === undefined) return null
      values[slot] = type.normalize(slot, part)
      if (!values[slot]) return null
    }
    return values
  }
  if (parts.length > type.fields.length) return null
  for (const [i, part] of parts.entries()) {
    if (!part.trim() && !type.fields[i].required) continue
    values[i] = type.normalize(i, part)
    if (values[i] === null) return null
  }
  return values[0] ? values : null
}
