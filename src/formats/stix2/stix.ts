/**
 * Indicators as STIX 2.1: patterns for the ten Indicator types, deterministic ids, TLP
 * marking definitions from Security Labels, and the indicator object of each TAXII server
 * application version. Pure functions over domain feed records, so the bundle file (bundle.ts)
 * uses them as the TAXII 2.1 collections do. docs/taxii21.md records each choice.
 */
import { isIP } from 'node:net'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { UuidV5Namespace } from '../../core/uuid.js'
import type { KindDeclaration } from '../../model/field.js'
import { INDICATOR } from '../../model/indicator.js'

export type AppVersion = '1.0' | '2.0'

/** What an indicator object carries: a TAXII application version's fields, or (a bundle file) the fields of both. */
export type StixProfile = AppVersion | 'bundle'

// ---------------------------------------------------------------------------------------------
// Patterns (STIX 2.1 §9)

/** A pattern string constant: only `\'` and `\\` are escapes (§9.2), the backslash doubled first. */
export function stixString(value: string): string {
  if (!/[\\']/.test(value)) return `'${value}'`
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

const HIVES: Record<string, string> = {
  HKLM: 'HKEY_LOCAL_MACHINE',
  HKCU: 'HKEY_CURRENT_USER',
  HKCR: 'HKEY_CLASSES_ROOT',
  HKU: 'HKEY_USERS',
  HKCC: 'HKEY_CURRENT_CONFIG',
  HKPD: 'HKEY_PERFORMANCE_DATA',
  HKDD: 'HKEY_DYN_DATA',
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
    case 'EmailAddress':
      return v1 ? `[email-addr:value = ${stixString(v1)}]` : undefined
    case 'Host':
      return v1 ? `[domain-name:value = ${stixString(v1)}]` : undefined
    case 'URL':
      return v1 ? `[url:value = ${stixString(v1)}]` : undefined
    case 'Mutex':
      return v1 ? `[mutex:name = ${stixString(v1)}]` : undefined
    case 'User Agent':
      return v1
        ? `[network-traffic:extensions.'http-request-ext'.request_header.'User-Agent' = ${stixString(v1)}]`
        : undefined
    case 'ASN': {
      const digits = v1?.match(/^(?:ASN?)?\s*(\d+)$/i)?.[1]
      return digits === undefined ? undefined : `[autonomous-system:number = ${String(Number(digits))}]`
    }
    case 'File': {
      const terms = [v1, v2, v3].flatMap((hash, i) =>
        hash ? [`file:hashes.${FILE_HASHES[i]} = ${stixString(hash)}`] : [],
      )
      return terms.length ? `[${terms.join(' OR ')}]` : undefined
    }
    case 'Registry Key': {
      if (!v1) return undefined
      const terms = [`windows-registry-key:key = ${stixString(expandHive(v1))}`]
      if (v2) terms.push(`windows-registry-key:values[*].name = ${stixString(v2)}`)
      if (v3) terms.push(`windows-registry-key:values[*].data_type = ${stixString(registryDataType(v3))}`)
      return `[${terms.join(' AND ')}]`
    }
    default:
      return undefined
  }
}

/** An Indicator a pattern describes: its type and value fields as stixPattern reads them. */
export interface PatternIndicator {
  type: string
  values: [string | null, string | null, string | null]
  /**
   * Comparisons of a File's pattern that Bulwark has no column for (SHA-512, SSDEEP, name, size…),
   * each in pattern text (`file:hashes.'SHA-512' = '…'`), kept with the File instead of refusing it.
   */
  extras?: string[]
}

type Token = { kind: 'punct' | 'word' | 'string' | 'op'; text: string }

/** §9.2 tokens; an object path keeps its quoted steps and list indexes (`values[*].name`) as one word. */
function tokenize(pattern: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  const quoted = (start: number): [string, number] => {
    let value = ''
    for (let j = start + 1; j < pattern.length; j++) {
      const c = pattern[j]
      if (c === '\\') {
        const next = pattern[j + 1]
        if (next !== '\\' && next !== "'") throw new Error(`the pattern has an unknown escape \\${next ?? ''}`)
        value += next
        j++
      } else if (c === "'") return [value, j + 1]
      else value += c
    }
    throw new Error('the pattern has an unterminated string')
  }
  while (i < pattern.length) {
    const c = pattern[i]
    if (/\s/.test(c)) {
      i++
      continue
    }
    if ('[]()'.includes(c)) {
      tokens.push({ kind: 'punct', text: c })
      i++
      continue
    }
    if (c === "'") {
      const [value, end] = quoted(i)
      tokens.push({ kind: 'string', text: value })
      i = end
      continue
    }
    const op = /^(?:!=|<=|>=|=|<|>)/.exec(pattern.slice(i, i + 2))
    if (op) {
      tokens.push({ kind: 'op', text: op[0] })
      i += op[0].length
      continue
    }
    let word = ''
    while (i < pattern.length && !/[\s()=!<>\]]/.test(pattern[i])) {
      if (pattern[i] === "'") {
        // A quoted path step (`hashes.'SHA-256'`); before anything else, a typed constant (b'…', t'…') ends here.
        if (!word.endsWith('.')) break
        const [step, end] = quoted(i)
        word += `'${step}'`
        i = end
      } else if (pattern[i] === '[') {
        const index = /^\[(?:\*|\d+)\]/.exec(pattern.slice(i))
        if (!index || !word) break
        word += index[0]
        i += index[0].length
      } else word += pattern[i++]
    }
    if (!word) throw new Error(`the pattern has an unexpected '${pattern[i]}'`)
    tokens.push({ kind: 'word', text: word })
  }
  return tokens
}

interface Comparison {
  path: string
  op: string
  value: string
}

/**
 * The comparisons of a pattern as a disjunction of conjunctions, for the forms an Indicator
 * can hold: observations joined by OR, each a comparison expression of AND, OR and
 * parentheses. Qualifiers, FOLLOWEDBY, AND between observations and NOT are refused.
 */
function readComparisons(pattern: string): Comparison[][] {
  const tokens = tokenize(pattern)
  let at = 0
  const peek = () => tokens[at]
  const is = (text: string) => peek()?.text.toUpperCase() === text && peek()?.kind !== 'string'
  const expect = (text: string) => {
    if (!is(text))
      throw new Error(`expected '${text}' ${peek() ? `before '${peek()!.text}'` : 'at the end of the pattern'}`)
    at++
  }
  const or = <T>(read: () => T[][]): T[][] => {
    const terms = read()
    while (is('OR')) {
      at++
      terms.push(...read())
    }
    return terms
  }
  const comparison = (): Comparison[][] => {
    if (is('(')) {
      at++
      const inner = or(conjunction)
      expect(')')
      return inner
    }
    const path = peek()
    if (path?.kind !== 'word' || !path.text.includes(':'))
      throw new Error(`expected an object path ${path ? `before '${path.text}'` : 'at the end'}`)
    at++
    if (is('NOT')) throw new Error('NOT comparisons are not supported')
    const op = peek()
    if (!op || (op.kind !== 'op' && op.kind !== 'word')) throw new Error(`expected an operator after ${path.text}`)
    at++
    const value = peek()
    if (!value || (value.kind !== 'string' && !(value.kind === 'word' && /^-?\d+$/.test(value.text)))) {
      throw new Error(`only a string or integer constant is supported after ${path.text} ${op.text}`)
    }
    at++
    return [[{ path: path.text, op: op.text.toUpperCase(), value: value.text }]]
  }
  // AND distributes over OR: (a OR b) AND c → a AND c, b AND c.
  const conjunction = (): Comparison[][] => {
    let terms = comparison()
    while (is('AND')) {
      at++
      const right = comparison()
      terms = terms.flatMap((l) => right.map((r) => [...l, ...r]))
    }
    return terms
  }
  const observation = (): Comparison[][] => {
    expect('[')
    const terms = or(conjunction)
    expect(']')
    if (peek() && !is('OR'))
      throw new Error(`'${peek()!.text}' after an observation is not supported (only OR of observations)`)
    return terms
  }
  const terms = or(observation)
  if (at < tokens.length) throw new Error(`unexpected '${peek()!.text}'`)
  return terms
}

const SIMPLE_PATHS: Record<string, string> = {
  'ipv4-addr:value': 'Address',
  'ipv6-addr:value': 'Address',
  'email-addr:value': 'EmailAddress',
  'domain-name:value': 'Host',
  'url:value': 'URL',
  'mutex:name': 'Mutex',
  "network-traffic:extensions.'http-request-ext'.request_header.'User-Agent'": 'User Agent',
}

/** file:hashes.<name> → the File value slot (MD5, SHA-1, SHA-256); the hash names of §10.7, quoted or not. */
function fileHashSlot(path: string): number | undefined {
  const name = /^file:hashes\.(?:'([^']+)'|(\w+))$/.exec(path)
  if (!name) return undefined
  return { MD5: 0, 'SHA-1': 1, SHA1: 1, 'SHA-256': 2, SHA256: 2 }[(name[1] ?? name[2]).toUpperCase()]
}

const REGISTRY_PATHS = [
  'windows-registry-key:key',
  'windows-registry-key:values[*].name',
  'windows-registry-key:values[*].data_type',
]

const describe = (term: Comparison[]) => term.map((c) => `${c.path} ${c.op}`).join(' AND ')

function indicatorOfTerm(term: Comparison[]): PatternIndicator {
  if (term.every((c) => REGISTRY_PATHS.includes(c.path) && c.op === '=')) {
    const values: PatternIndicator['values'] = [null, null, null]
    for (const c of term) {
      const slot = REGISTRY_PATHS.indexOf(c.path)
      if (values[slot] !== null) throw new Error(`${c.path} appears twice in one comparison`)
      values[slot] = c.value
    }
    if (values[0] === null) throw new Error('a Registry Key needs windows-registry-key:key')
    return { type: 'Registry Key', values }
  }
  if (term.length > 1) throw new Error(`AND of ${describe(term)} is not an Indicator Bulwark can hold`)
  const [{ path, op, value }] = term
  const cidr = value.includes('/')
  if ((path === 'ipv4-addr:value' || path === 'ipv6-addr:value') && (op === 'ISSUBSET' || (op === '=' && cidr))) {
    return { type: 'CIDR', values: [value, null, null] }
  }
  if (op !== '=') throw new Error(`the operator ${op} is not supported on ${path} (only =)`)
  if (path === 'autonomous-system:number' && /^\d+$/.test(value))
    return { type: 'ASN', values: [`ASN${value}`, null, null] }
  const simple = SIMPLE_PATHS[path]
  if (simple) return { type: simple, values: [value, null, null] }
  throw new Error(`${path} is not an observable Bulwark holds as an Indicator`)
}

/** A File's part of a pattern: the hashes it has columns for, the other comparisons as text. */
interface FilePart {
  values: PatternIndicator['values']
  extras: string[]
}

/** The comparisons of one alternative on `file:` only (an AND of them, or one). */
function filePart(term: Comparison[]): FilePart {
  const part: FilePart = { values: [null, null, null], extras: [] }
  for (const c of term) {
    const slot = c.op === '=' ? fileHashSlot(c.path) : undefined
    if (slot !== undefined && part.values[slot] === null) part.values[slot] = c.value
    else
      part.extras.push(
        `${c.path} ${c.op} ${/^-?\d+$/.test(c.value) && !c.path.includes('hashes') ? c.value : stixString(c.value)}`,
      )
  }
  return part
}

/** What a pattern gives: its Indicators, and each comparison left out with the reason. */
export interface PatternReading {
  indicators: PatternIndicator[]
  skipped: string[]
}

const NO_FILE_HASH = 'a File needs an MD5, SHA-1 or SHA-256 hash'

/**
 * The Indicators a STIX pattern describes: each alternative of an OR one Indicator, except that
 * the comparisons on one File (at most one of each hash Bulwark holds) are one File, its other
 * hashes and properties kept as its `extras`. An alternative Bulwark has no Indicator for (an
 * object type it does not hold, an operator other than =) is `skipped`, saying why, and the rest
 * is read. Throws, saying why, for a pattern it cannot read at all: qualifiers, FOLLOWEDBY, AND
 * between observations, NOT.
 */
export function readPattern(pattern: string): PatternReading {
  const inOrder: (PatternIndicator | FilePart)[] = []
  const skipped: string[] = []
  const files: FilePart[] = []
  for (const term of readComparisons(pattern)) {
    if (term.every((c) => c.path.startsWith('file:'))) {
      const part = filePart(term)
      files.push(part)
      inOrder.push(part)
      continue
    }
    try {
      inOrder.push(indicatorOfTerm(term))
    } catch (error) {
      skipped.push((error as Error).message)
    }
  }
  const oneFile =
    files.length > 1 && [0, 1, 2].every((slot) => files.filter((f) => f.values[slot] !== null).length <= 1)
  const asFile = (part: FilePart): PatternIndicator[] => {
    if (part.values.every((v) => v === null)) {
      skipped.push(`${part.extras.join(' OR ')}: ${NO_FILE_HASH}`)
      return []
    }
    const file: PatternIndicator = { type: 'File', values: part.values }
    if (part.extras.length) file.extras = part.extras
    return [file]
  }
  const others = (entry: PatternIndicator | FilePart): entry is PatternIndicator => 'type' in entry
  const indicators = oneFile
    ? [...asFile(mergeFileParts(files)), ...inOrder.filter(others)]
    : inOrder.flatMap((entry) => (others(entry) ? [entry] : asFile(entry)))
  return { indicators, skipped }
}

function mergeFileParts(files: FilePart[]): FilePart {
  return {
    values: [0, 1, 2].map(
      (slot) => files.find((f) => f.values[slot] !== null)?.values[slot] ?? null,
    ) as PatternIndicator['values'],
    extras: files.flatMap((f) => f.extras),
  }
}

/** readPattern for a pattern that must be read whole: throws, saying why, for the first comparison left out. */
export function indicatorsOfPattern(pattern: string): PatternIndicator[] {
  const { indicators, skipped } = readPattern(pattern)
  if (skipped.length) throw new Error(skipped[0])
  return indicators
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
    type: 'marking-definition',
    spec_version: '2.1',
    id: `marking-definition--${uuid}`,
    created: '2017-01-20T00:00:00.000Z',
    definition_type: 'tlp',
    name: `TLP:${level.toUpperCase()}`,
    definition: { tlp: level },
  }
}

function tlp2(level: string, name: string, uuid: string): StixMarking {
  return {
    type: 'marking-definition',
    spec_version: '2.1',
    id: `marking-definition--${uuid}`,
    created: '2022-10-01T00:00:00.000Z',
    name,
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
export const OPTIONAL_MARKING_LABELS = Object.keys(LABEL_MARKING).filter(
  (name) => MARKINGS.indexOf(LABEL_MARKING[name].marking) >= ALWAYS_MARKINGS,
)

/** The one TLP marking of an Indicator's Security Labels (the strictest), or undefined. */
export function markingOf(labels: readonly string[]): StixMarking | undefined {
  let best: { marking: StixMarking; rank: number } | undefined
  for (const label of labels) {
    const m = LABEL_MARKING[label.toUpperCase()]
    if (m && (!best || m.rank > best.rank)) best = m
  }
  return best?.marking
}

/** A Security Label a TLP marking stands for, defined fully so an import may create it where it is missing. */
export interface TlpLabel {
  name: string
  color: string
  description: string
}

/** The colors FIRST gives each TLP level (TLP 2.0 definitions; WHITE as CLEAR). */
const TLP_COLORS: Record<string, string> = {
  'TLP:WHITE': 'FFFFFF',
  'TLP:CLEAR': 'FFFFFF',
  'TLP:GREEN': '33FF00',
  'TLP:AMBER': 'FFC000',
  'TLP:AMBER+STRICT': 'FFC000',
  'TLP:RED': 'FF2B2B',
}

/** The Security Label a TLP level names (`TLP:AMBER`, any case), defined fully; undefined for no level. */
export function tlpLabel(name: string): TlpLabel | undefined {
  const upper = name.toUpperCase()
  if (!LABEL_MARKING[upper]) return undefined
  return { name: upper, color: TLP_COLORS[upper], description: `Traffic Light Protocol ${upper.slice(4)}` }
}

/** The Security Label of a standard TLP marking id (the reverse of markingOf), or undefined. */
export function labelOfMarkingId(id: string): TlpLabel | undefined {
  const marking = MARKINGS.find((m) => m.id === id)
  return marking && tlpLabel(marking.name)
}

/** The Security Label a marking-definition object defines as TLP (1.0 `definition`, or the TLP 2.0 extension), whatever its id. */
export function labelOfMarkingDefinition(object: Record<string, unknown>): TlpLabel | undefined {
  const definition = object.definition as { tlp?: unknown } | undefined
  if (object.definition_type === 'tlp' && typeof definition?.tlp === 'string') return tlpLabel(`TLP:${definition.tlp}`)
  const extension = (object.extensions as Record<string, { tlp_2_0?: unknown }> | undefined)?.[TLP2_EXTENSION]
  return typeof extension?.tlp_2_0 === 'string' ? tlpLabel(`TLP:${extension.tlp_2_0}`) : undefined
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

  /** The first 32 bits of the Indicator's UUID, as stix-id-index.ts keys it, without building the id. */
  indicatorKey(ownerId: number, indicatorId: number): number {
    return this.namespace.prefix(`indicator|${ownerId}|${indicatorId}`)
  }

  /** A Group's derived id, for a Group whose xid is no STIX id of its type (from its database id, as an Indicator's). */
  group(ownerId: number, stixType: string, groupId: number): string {
    return `${stixType}--${this.namespace.uuid(`group|${ownerId}|${groupId}`)}`
  }

  /** An association's relationship: from its two ends, the Group first (`group:<id>` and `group:<id>` or `indicator:<id>`). */
  relationship(ownerId: number, from: string, to: string): string {
    return `relationship--${this.namespace.uuid(`relationship|${ownerId}|${from}|${to}`)}`
  }

  /** A TAXII 2.1 collection's id: an `identifier` is a version 4 UUID (TAXII 2.1 §2.1), derived here, not drawn. */
  collection(ownerId: number): string {
    return this.namespace.uuidVersion4Form(`collection|${ownerId}`)
  }

  /** The id collections had before they took the version 4 form (UUIDv5 of the same name); still answered. */
  formerCollection(ownerId: number): string {
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
  kill_chain_phases?: { kill_chain_name: string; phase_name: string }[]
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
 * The id an Indicator is served under: its source's (an imported indicator object that made it
 * alone, migration 0139), else derived from its database id.
 */
export function stixIndicatorId(ids: StixIds, indicator: FeedIndicator): string {
  return indicator.stixId ?? ids.indicator(indicator.ownerId, indicator.id)
}

/**
 * An Indicator's STIX `created`: its creation, or under its source's id the source's `created`
 * (externalDateAdded), as every version of one STIX object has the same `created`.
 */
export function stixCreated(indicator: FeedIndicator, modified: string): string {
  const source = indicator.externalAdded
  return indicator.stixId && source !== null && source <= modified ? source : indicator.dateAdded
}

/**
 * An Indicator's `valid_from` and `valid_until` (when it has one): valid from its creation, or
 * from its source's (externalDateAdded) when that is earlier; until its expiry, else (inactive)
 * its last change. An expiry not after that start still ends its validity, from a millisecond
 * before: STIX wants valid_until after valid_from, and an expired Indicator must never read as valid.
 */
export function stixValidity(indicator: FeedIndicator, modified: string): [from: string, until: string | null] {
  const created = indicator.dateAdded
  const added = indicator.externalAdded
  const from = added !== null && added < created ? added : created
  const until = indicator.expires ?? (indicator.active ? null : modified)
  if (until === null || until > from) return [from, until]
  return [new Date(Date.parse(until) - 1).toISOString(), until]
}

/**
 * One Indicator as the STIX indicator object of an application version, or undefined when its
 * value has no pattern. Timestamps are the stored ones (UTC, milliseconds, `Z`).
 */
export function toStixIndicator(
  ids: StixIds,
  indicator: FeedIndicator,
  ownerName: string,
  version: StixProfile,
): StixIndicator | undefined {
  const pattern = stixPattern(indicator.type, indicator.values)
  if (pattern === undefined) return undefined
  const modified = stixModified(indicator)
  const created = stixCreated(indicator, modified)
  const [validFrom, until] = stixValidity(indicator, modified)
  const object: StixIndicator = {
    type: 'indicator',
    spec_version: '2.1',
    id: stixIndicatorId(ids, indicator),
    created,
    modified,
    name: indicator.summary,
    pattern,
    pattern_type: 'stix',
    valid_from: validFrom,
    revoked: false,
    indicator_types: indicatorTypes(indicator.rating),
    lang: 'en',
  }
  const marking = markingOf(indicator.securityLabels)
  if (marking) object.object_marking_refs = [marking.id]
  if (version !== '2.0') {
    if (indicator.tags.length) object.labels = indicator.tags
    if (indicator.confidence !== null) object.confidence = indicator.confidence
    if (indicator.description) object.description = indicator.description
    if (version === '1.0') return object
  }
  if (until !== null) object.valid_until = until
  if (indicator.rating !== null) object.x_threat_rating = Math.round(indicator.rating)
  object.x_svc_id = indicator.id
  object.x_svc_owner = ownerName
  object.x_svc_type = indicator.type
  return object
}

/** Where an import keeps what a STIX object says that Bulwark has no column for (model/reference-data.ts types). */
export const STIX_ID_ATTRIBUTE = 'External ID'
export const STIX_EXTRA_ATTRIBUTE = 'Additional Analysis and Context'

/**
 * The Security Label of an object's TLP marking (`markings`: marking-definition ids seen in the
 * same input, beside the standard ones): one per object, as markingOf emits, the strictest
 * should a producer give more.
 */
export function tlpOfObject(object: Record<string, unknown>, markings: ReadonlyMap<string, TlpLabel>) {
  const refs = Array.isArray(object.object_marking_refs) ? object.object_marking_refs : []
  const tlp = refs
    .map((ref) => (typeof ref === 'string' ? (markings.get(ref) ?? labelOfMarkingId(ref)) : undefined))
    .filter((l) => l !== undefined)
  return tlp.sort((a, b) => LABEL_MARKING[b.name].rank - LABEL_MARKING[a.name].rank)[0]
}

/** The Indicator fields an import sets from an object's properties (model/indicator.ts `stixImport`), read once. */
const IMPORTED_FIELDS: readonly { name: string; properties: readonly string[] }[] = (
  INDICATOR as KindDeclaration
).fields.flatMap((f) => (f.stixImport ? [{ name: f.name, properties: f.stixImport }] : []))

/** What an imported indicator object says about the Indicators of its pattern (toStixIndicator read backwards). */
export interface ImportedIndicator {
  indicators: PatternIndicator[]
  /** The pattern's comparisons left out, each with the reason. */
  skipped: string[]
  tags: string[]
  securityLabels: TlpLabel[]
  /** The object's id (`indicator--…`), kept with each Indicator as its source identity. */
  stixId?: string
  /** Indicator fields by name, from the properties the model declares for them (dates, confidence…). */
  fields: Record<string, string | number>
  /** False when the object's `valid_until` has passed: it is imported inactive. */
  active?: false
}

/**
 * A STIX 2.0 or 2.1 indicator object as Bulwark Indicators: its pattern (readPattern; a 2.0
 * indicator, which has no `pattern_type`, is STIX patterning), `labels` as tags, its TLP markings
 * as Security Labels (`markings`: marking-definition ids seen in the same input, beside the
 * standard ones), the properties model/indicator.ts declares (`stixImport`). Throws, saying why,
 * for an object that is not an indicator Bulwark can hold.
 */
export function fromStixIndicator(
  object: Record<string, unknown>,
  markings: ReadonlyMap<string, TlpLabel> = new Map(),
  now: number = Date.now(),
): ImportedIndicator {
  if (object.type !== 'indicator')
    throw new Error(`a ${String(object.type ?? 'typeless')} object is not imported (only indicator objects are)`)
  if (object.spec_version !== undefined && object.spec_version !== '2.1' && object.spec_version !== '2.0')
    throw new Error(`spec_version ${String(object.spec_version)} is not 2.0 or 2.1`)
  if (object.pattern_type !== undefined && object.pattern_type !== 'stix')
    throw new Error(`pattern_type ${String(object.pattern_type)} is not supported (only stix)`)
  if (typeof object.pattern !== 'string') throw new Error('the indicator has no pattern')
  if (object.revoked === true) throw new Error('the indicator is revoked')
  let read: PatternReading
  try {
    read = readPattern(object.pattern)
  } catch (error) {
    throw new Error(`pattern ${object.pattern}: ${(error as Error).message}`)
  }
  if (!read.indicators.length) throw new Error(`pattern ${object.pattern}: ${read.skipped.join('; ')}`)
  const strictest = tlpOfObject(object, markings)
  const fields: Record<string, string | number> = {}
  for (const { name, properties } of IMPORTED_FIELDS) {
    for (const property of properties) {
      const value = object[property]
      if ((typeof value === 'string' && value !== '') || typeof value === 'number') {
        fields[name] = value
        break
      }
    }
  }
  const out: ImportedIndicator = {
    indicators: read.indicators,
    skipped: read.skipped,
    tags: Array.isArray(object.labels)
      ? [...new Set(object.labels.filter((l): l is string => typeof l === 'string' && l.trim() !== ''))]
      : [],
    securityLabels: strictest ? [strictest] : [],
    fields,
  }
  if (typeof object.id === 'string' && object.id !== '') out.stixId = object.id
  const until = typeof object.valid_until === 'string' ? Date.parse(object.valid_until) : Number.NaN
  if (until <= now) out.active = false
  return out
}
