/**
 * Indicators as STIX 2.1: patterns for the ten Indicator types, deterministic ids, TLP
 * marking definitions from Security Labels, and the indicator object of each TAXII server
 * application version. Pure functions over domain feed records, so a STIX bundle export can
 * use them as the TAXII collections do. docs/taxii21.md records each choice.
 */
import { isIP } from 'node:net'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { UuidV5Namespace } from '../../domain/uuid.js'

export type AppVersion = '1.0' | '2.0'

export const STIX_MEDIA_TYPE = 'application/stix+json;version=2.1'

// ---------------------------------------------------------------------------------------------
// Patterns (STIX 2.1 §9)

/** A pattern string constant: only `\'` and `\\` are escapes (§9.2), the backslash doubled first. */
export function stixString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

const HIVES: Record<string, string> = {
  HKLM: 'HKEY_LOCAL_MACHINE', HKCU: 'HKEY_CURRENT_USER', HKCR: 'HKEY_CLASSES_ROOT', HKU: 'HKEY_USERS',
  HKCC: 'HKEY_CURRENT_CONFIG', HKPD: 'HKEY_PERFORMANCE_DATA', HKDD: 'HKEY_DYN_DATA',
}

/** §6.17: the hive in full (`HKLM\…` → `HKEY_LOCAL_MACHINE\…`), whichever case it was written in. */
export function expandHive(key: string): string {
  const slash = key.indexOf('\\')
  const head = slash < 0 ? key : key.slice(0, slash)
  const full = HIVES[head.toUpperCase()] ?? (head.toUpperCase().startsWith('HKEY_') ? head.toUpperCase() : undefined)
  return full === undefined ? key : full + key.slice(head.length)
}

/** windows-registry-datatype-enum has no little-endian QWORD: REG_QWORD is little-endian already. */
function registryDataType(type: string): string {
  return type === 'REG_QWORD_LITTLE_ENDIAN' ? 'REG_QWORD' : type
}

const FILE_HASHES = ['MD5', "'SHA-1'", "'SHA-256'"] as const

/**
 * The pattern of one Indicator, or undefined when its value cannot be expressed (a value the
 * type's validation would not have stored).
 */
export function stixPattern(type: string, values: readonly (string | null)[]): string | undefined {
  const [v1, v2, v3] = values
  switch (type) {
    case 'Address': {
      const family = v1 ? isIP(v1) : 0
      return family ? `[ipv${family}-addr:value = ${stixString(v1!)}]` : undefined
    }
    case 'CIDR': {
      if (!v1) return undefined
      const family = v1.includes(':') ? 6 : 4
      return `[ipv${family}-addr:value ISSUBSET ${stixString(v1)}]`
    }
    case 'EmailAddress': return v1 ? `[email-addr:value = ${stixString(v1)}]` : undefined
    case 'Host': return v1 ? `[domain-name:value = ${stixString(v1)}]` : undefined
    case 'URL': return v1 ? `[url:value = ${stixString(v1)}]` : undefined
    case 'Mutex': return v1 ? `[mutex:name = ${stixString(v1)}]` : undefined
    case 'User Agent': return v1 ? `[network-traffic:extensions.'http-request-ext'.request_header.'User-Agent' = ${stixString(v1)}]` : undefined
    case 'ASN': {
      const digits = v1?.match(/^(?:ASN?)?\s*(\d+)$/i)?.[1]
      return digits === undefined ? undefined : `[autonomous-system:number = ${String(Number(digits))}]`
    }
    case 'File': {
      const terms = [v1, v2, v3].flatMap((hash, i) => (hash ? [`file:hashes.${FILE_HASHES[i]} = ${stixString(hash)}`] : []))
      return terms.length ? `[${terms.join(' OR ')}]` : undefined
    }
    case 'Registry Key': {
      if (!v1) return undefined
      const terms = [`windows-registry-key:key = ${stixString(expandHive(v1))}`]
      if (v2) terms.push(`windows-registry-key:values[*].name = ${stixString(v2)}`)
      if (v3) terms.push(`windows-registry-key:values[*].data_type = ${stixString(registryDataType(v3))}`)
      return `[${terms.join(' AND ')}]`
    }
    default: return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// Markings

export interface StixMarking {
  type: 'marking-definition'
  spec_version: '2.1'
  id: string
  created: string
  name: string
  definition_type?: 'tlp'
  definition?: { tlp: string }
  extensions?: Record<string, { extension_type: 'property-extension'; tlp_2_0: string }>
}

const TLP2_EXTENSION = 'extension-definition--60a3c5c5-0d10-413e-aab3-9e08dde9e88d'

function tlp1(level: string, uuid: string): StixMarking {
  return {
    type: 'marking-definition', spec_version: '2.1', id: `marking-definition--${uuid}`, created: '2017-01-20T00:00:00.000Z',
    definition_type: 'tlp', name: `TLP:${level.toUpperCase()}`, definition: { tlp: level },
  }
}

function tlp2(level: string, name: string, uuid: string): StixMarking {
  return {
    type: 'marking-definition', spec_version: '2.1', id: `marking-definition--${uuid}`, created: '2022-10-01T00:00:00.000Z', name,
    extensions: { [TLP2_EXTENSION]: { extension_type: 'property-extension', tlp_2_0: level } },
  }
}

/** The four TLP 1.0 objects STIX 2.1 §7.2.1.4 defines (the only instances allowed), then TLP 2.0's two levels TLP 1.0 lacks. */
export const MARKINGS: readonly StixMarking[] = [
  tlp1('white', '613f2e26-407d-48c7-9eca-b8e91df99dc9'),
  tlp1('green', '34098fce-860f-48ae-8e50-ebd3cc5e41da'),
  tlp1('amber', 'f88d31f6-486f-44da-b317-01333bde0b82'),
  tlp1('red', '5e57c739-391a-4eb3-b6be-7d15ca92d5ed'),
  tlp2('clear', 'TLP:CLEAR', '94868c89-83c2-464b-929b-a1a8aa3c8487'),
  tlp2('amber+strict', 'TLP:AMBER+STRICT', '939a9414-2ddd-4d32-a0cd-375ea402b003'),
]

/** How many of MARKINGS every collection carries; the rest only where a label needs them. */
export const ALWAYS_MARKINGS = 4

/** Security Label name → marking and its restrictiveness (an Indicator carries only its strictest TLP). */
const LABEL_MARKING: Record<string, { marking: StixMarking; rank: number }> = {
  'TLP:WHITE': { marking: MARKINGS[0], rank: 0 },
  'TLP:CLEAR': { marking: MARKINGS[4], rank: 0 },
  'TLP:GREEN': { marking: MARKINGS[1], rank: 1 },
  'TLP:AMBER': { marking: MARKINGS[2], rank: 2 },
  'TLP:AMBER+STRICT': { marking: MARKINGS[5], rank: 3 },
  'TLP:RED': { marking: MARKINGS[3], rank: 4 },
}

/** Label names whose marking is not in every collection (TLP 2.0 levels). */
export const OPTIONAL_MARKING_LABELS = Object.keys(LABEL_MARKING).filter((name) => MARKINGS.indexOf(LABEL_MARKING[name].marking) >= ALWAYS_MARKINGS)

/** The one TLP marking of an Indicator's Security Labels (the strictest), or undefined. */
export function markingOf(labels: readonly string[]): StixMarking | undefined {
  let best: { marking: StixMarking; rank: number } | undefined
  for (const label of labels) {
    const m = LABEL_MARKING[label.toUpperCase()]
    if (m && (!best || m.rank > best.rank)) best = m
  }
  return best?.marking
}

/** The markings a collection returns, given the optional labels its Indicators use. */
export function collectionMarkings(optionalLabelsInUse: readonly string[]): StixMarking[] {
  const needed = new Set(optionalLabelsInUse.map((name) => LABEL_MARKING[name.toUpperCase()]?.marking))
  return MARKINGS.filter((m, i) => i < ALWAYS_MARKINGS || needed.has(m))
}

// ---------------------------------------------------------------------------------------------
// Ids

/** Derives ids in one installation's namespace (Services.installationId), never the OASIS SCO namespace. */
export class StixIds {
  private readonly namespace: UuidV5Namespace

  constructor(installationId: string) {
    this.namespace = new UuidV5Namespace(installationId)
  }

  /** From the Indicator's database id, which no edit changes (a File gaining a hash keeps its id). */
  indicator(ownerId: number, indicatorId: number): string {
    return `indicator--${this.namespace.uuid(`indicator|${ownerId}|${indicatorId}`)}`
  }

  collection(ownerId: number): string {
    return this.namespace.uuid(`collection|${ownerId}`)
  }
}

// ---------------------------------------------------------------------------------------------
// Indicators

export interface StixIndicator {
  type: 'indicator'
  spec_version: '2.1'
  id: string
  created: string
  modified: string
  name: string
  pattern: string
  pattern_type: 'stix'
  valid_from: string
  valid_until?: string
  revoked: boolean
  indicator_types: string[]
  lang: string
  object_marking_refs?: string[]
  labels?: string[]
  confidence?: number
  description?: string
  x_threat_rating?: number
  x_svc_id?: number
  x_svc_owner?: string
  x_svc_type?: string
}

/** indicator-type-ov from the rating: none unknown, 1 (Suspicious) anomalous, 2 … 5 malicious. */
function indicatorTypes(rating: number | null): string[] {
  if (rating === null || rating <= 0) return ['unknown']
  return rating < 2 ? ['anomalous-activity'] : ['malicious-activity']
}

const later = (a: string, b: string) => (a > b ? a : b)

/** An Indicator's STIX `modified` (its version): the last change, never before `created`. */
export function stixModified(indicator: FeedIndicator): string {
  return later(indicator.lastModified, indicator.dateAdded)
}

/**
 * One Indicator as the STIX indicator object of an application version, or undefined when its
 * value has no pattern. Timestamps are the stored ones (UTC, milliseconds, `Z`).
 */
export function toStixIndicator(ids: StixIds, indicator: FeedIndicator, ownerName: string, version: AppVersion): StixIndicator | undefined {
  const pattern = stixPattern(indicator.type, indicator.values)
  if (pattern === undefined) return undefined
  const created = indicator.dateAdded
  const modified = stixModified(indicator)
  const object: StixIndicator = {
    type: 'indicator', spec_version: '2.1', id: ids.indicator(indicator.ownerId, indicator.id), created, modified,
    name: indicator.summary, pattern, pattern_type: 'stix', valid_from: created, revoked: false,
    indicator_types: indicatorTypes(indicator.rating), lang: 'en',
  }
  const marking = markingOf(indicator.securityLabels)
  if (marking) object.object_marking_refs = [marking.id]
  if (version === '1.0') {
    if (indicator.tags.length) object.labels = indicator.tags
    if (indicator.confidence !== null) object.confidence = indicator.confidence
    if (indicator.description) object.description = indicator.description
    return object
  }
  // Expiry, else the deactivation (an inactive Indicator stopped being valid by its last change).
  const until = indicator.expires ?? (indicator.active ? null : modified)
  if (until !== null && until > created) object.valid_until = until
  if (indicator.rating !== null) object.x_threat_rating = Math.round(indicator.rating)
  object.x_svc_id = indicator.id
  object.x_svc_owner = ownerName
  object.x_svc_type = indicator.type
  return object
}
