/**
 * The realistic benchmark dataset (issue 28, point 2): shaped like the feeds a TIP ingests, so that a
 * benchmark meets the look-ups, NULL hash columns and owner skew a real store has.
 *
 * - All ten Indicator types in these shares: Address 28 %, Host 24, URL 20, File 16, EmailAddress 5, CIDR 2.5,
 *   User Agent 1.5, ASN, Mutex and Registry Key 1 each (a cycle of 200 slots, interleaved).
 * - Files with every hash combination: MD5 only 40 %, SHA-1 only 10 %, SHA-256 only 30 %, all three 20 %.
 * - Owners of 92 / 4 / 4 % (an Organization, a Community, a Source), their jobs interleaved by share as
 *   several feeds arriving side by side would be.
 * - Each Indicator has one of 100 tags of its owner and one Description attribute; one in fourteen is
 *   associated with a Group of its owner (inline `associatedGroups`), each Group holding about a hundred.
 * - From each owner's second job on, every tenth item re-sends an Indicator already stored (a new rating and
 *   confidence, the same tag, a new Description): the update path of `Create`, with attributeWriteType Replace.
 *
 * Everything is a function of (owner, index): the same dataset every run, and the raw baseline inserts the same
 * rows. Values are unique per owner and type, and across owners.
 */
import { createHash } from 'node:crypto'

/** Type of each of 200 slots; slot k of Indicator i is (i * 37) mod 200, which visits every slot once per 200. */
const TYPE_SHARES: [string, number][] = [
  ['Address', 56],
  ['Host', 48],
  ['URL', 40],
  ['File', 32],
  ['EmailAddress', 10],
  ['CIDR', 5],
  ['User Agent', 3],
  ['ASN', 2],
  ['Mutex', 2],
  ['Registry Key', 2],
]
const SLOTS: string[] = TYPE_SHARES.flatMap(([type, n]) => Array.from({ length: n }, () => type))
const slotOf = (i: number) => SLOTS[(i * 37) % SLOTS.length]!

/** Of every ten Files: four MD5 only, one SHA-1 only, three SHA-256 only, two with all three hashes. */
const FILE_COMBOS: ('md5' | 'sha1' | 'sha256' | 'all')[] = [
  'md5',
  'sha256',
  'all',
  'md5',
  'sha1',
  'sha256',
  'md5',
  'all',
  'sha256',
  'md5',
]

export const REALISTIC_OWNER_SHARES = [0.92, 0.04, 0.04]
export const REALISTIC_TAGS = 100
/** One Indicator in this many is associated with a Group. */
export const GROUP_EVERY = 14
/** Associations per Group: the owner's Groups are sized so each holds about this many. */
export const PER_GROUP = 100
/** From an owner's second job on, one item in this many re-sends a stored Indicator. */
export const UPDATE_EVERY = 10
export const GROUP_TYPES = ['Adversary', 'Campaign', 'Intrusion Set', 'Threat', 'Malware'] as const

export interface RealisticIndicator {
  type: string
  summary: string
  /** value1..value3 as stored (Files: MD5, SHA-1, SHA-256), for the raw baseline. */
  values: [string | null, string | null, string | null]
  rating: number
  confidence: number
  tag: { name: string }[]
  attribute: { type: string; value: string }[]
  associatedGroups?: { groupXid: string }[]
}

const digest = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('hex').toUpperCase()

/** A short pseudo-random word from n, so hosts and paths are not all prefixes of each other. */
function word(n: number, length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
  let x = (n * 2654435761) >>> 0
  let out = ''
  for (let k = 0; k < length; k++) {
    out += alphabet[x % 36]
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
  }
  return out
}

/** Description sentences, so the attribute is as long as a feed's usually is (a file of 2 MB holds about 6,000 items). */
const CONTEXTS = [
  'Observed in phishing infrastructure delivering credential harvesting pages to finance staff.',
  'Command and control endpoint contacted by a loader after initial access through a malicious attachment.',
  'Seen in sandbox detonation of a dropper; network beacon every sixty seconds over HTTPS.',
  'Scanning source hitting exposed VPN appliances; brute force of administrator accounts.',
  'Hosting a payload staged for a ransomware affiliate; removed by the provider after report.',
]

const TLDS = ['com', 'net', 'org', 'ru', 'cn', 'info', 'xyz', 'top', 'io', 'de']
const UA_PRODUCTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64)',
  'Mozilla/5.0 (X11; Linux x86_64)',
  'curl',
  'python-requests',
]

/** The Groups of an owner holding `indicators`: enough that each gets about PER_GROUP associations. */
export function realisticGroupCount(indicators: number): number {
  return Math.max(1, Math.ceil(indicators / GROUP_EVERY / PER_GROUP))
}

export const realisticGroupXid = (o: number, g: number) => `realistic-group-${o}-${g}`

export function realisticGroup(o: number, g: number) {
  return { type: GROUP_TYPES[g % GROUP_TYPES.length], name: `Feed group ${o}-${g}`, xid: realisticGroupXid(o, g) }
}

/**
 * Indicator i of owner o. `version` > 0 is a later sending of the same Indicator (an update): same type,
 * summary and tag, another rating, confidence and Description.
 */
export function realisticIndicator(o: number, i: number, groups = 1, version = 0): RealisticIndicator {
  const n = o * 100_000_000 + i
  const type = slotOf(i)
  let summary: string
  let values: RealisticIndicator['values']
  const one = (s: string): RealisticIndicator['values'] => [s, null, null]
  switch (type) {
    case 'Address': {
      // Unique per owner: owner in the first octet, i in the other three (16.7M per owner).
      summary = `${20 + o * 40 + ((i >> 24) & 31)}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
      values = one(summary)
      break
    }
    case 'Host':
      summary = `${word(n, 6 + (i % 7))}.${word(n + 7, 4)}-${n}.${TLDS[i % TLDS.length]}`
      values = one(summary)
      break
    case 'URL':
      summary = `http://${word(n, 8)}-${n}.${TLDS[(i >> 3) % TLDS.length]}/${word(n + 3, 5)}/${word(n + 5, 9)}.php?id=${i % 997}`
      values = one(summary)
      break
    case 'File': {
      const combo = FILE_COMBOS[Math.floor(i / SLOTS.length) % FILE_COMBOS.length]!
      const md5 = combo === 'md5' || combo === 'all' ? digest('md5', String(n)) : null
      const sha1 = combo === 'sha1' || combo === 'all' ? digest('sha1', String(n)) : null
      const sha256 = combo === 'sha256' || combo === 'all' ? digest('sha256', String(n)) : null
      values = [md5, sha1, sha256]
      summary = values.filter((v): v is string => !!v).join(' : ')
      break
    }
    case 'EmailAddress':
      summary = `${word(n, 7)}.${n}@${word(n + 1, 6)}.${TLDS[i % TLDS.length]}`
      values = one(summary)
      break
    case 'CIDR': {
      // The CIDR slots of a cycle of 200 lie 27 apart, so i / 8 numbers the blocks without a collision.
      const c = Math.floor(i / 8)
      summary = `${100 + o * 30 + (c >> 16)}.${(c >> 8) & 255}.${c & 255}.0/24`
      values = one(summary)
      break
    }
    case 'User Agent':
      summary = `${UA_PRODUCTS[i % UA_PRODUCTS.length]} AppleWebKit/537.36 (KHTML, like Gecko) Bot/${n}`
      values = one(summary)
      break
    case 'ASN':
      summary = `ASN${n}`
      values = one(summary)
      break
    case 'Mutex':
      summary = `Global\\${word(n, 12)}-${n}`
      values = one(summary)
      break
    default:
      summary = `HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Run\\${word(n, 8)}${n}`
      values = one(summary)
  }
  const item: RealisticIndicator = {
    type,
    summary,
    values,
    rating: ((i + version) % 5) + 1,
    confidence: (i * 7 + version * 13) % 101,
    tag: [{ name: `tag-${o}-${(i * 31) % REALISTIC_TAGS}` }],
    attribute: [
      {
        type: 'Description',
        value: `Reported by feed ${o} (${version ? `update ${version}` : 'first sighting'}): ${type} ${i}. ${CONTEXTS[i % CONTEXTS.length]} Sensor ${i % 61}, campaign cluster ${(i * 13) % 257}.`,
      },
    ],
  }
  if (i % GROUP_EVERY === 0) item.associatedGroups = [{ groupXid: realisticGroupXid(o, (i / GROUP_EVERY) % groups) }]
  return item
}

/** The JSON a batch file carries for the Indicator (the raw baseline's `values` stay out). */
export function realisticItemJson(it: RealisticIndicator): string {
  const { values: _values, ...item } = it
  return JSON.stringify(item)
}

export interface RealisticJob {
  owner: number
  file: string
  /** Items in the file: new Indicators plus re-sent ones. */
  items: number
  updates: number
  /** The new Indicators of the file are the owner's `first` … `first + created - 1` (the raw baselines' job chunks). */
  first: number
  created: number
}

/**
 * The batch files of a realistic load, interleaved over the owners by share (the owner furthest behind its
 * share sends next). Each file stays within `maxBytes`; an owner's first file carries its Groups.
 */
export function* realisticJobs(
  ownerIndicators: readonly number[],
  maxBytes: number,
  perJob: number,
): Generator<RealisticJob> {
  const next = ownerIndicators.map(() => 0)
  const jobsOf = ownerIndicators.map(() => 0)
  const groups = ownerIndicators.map((n) => realisticGroupCount(n))
  for (;;) {
    let o = -1
    let behind = Number.POSITIVE_INFINITY
    for (let k = 0; k < ownerIndicators.length; k++) {
      if (next[k]! >= ownerIndicators[k]!) continue
      const done = next[k]! / ownerIndicators[k]!
      if (done < behind) {
        behind = done
        o = k
      }
    }
    if (o < 0) return
    const stored = next[o]!
    const later = jobsOf[o]! > 0
    const head = later
      ? '{"indicator":['
      : `{"group":[${Array.from({ length: groups[o]! }, (_, g) => JSON.stringify(realisticGroup(o, g))).join(',')}],"indicator":[`
    const items: string[] = []
    let bytes = head.length + 2
    let updates = 0
    for (let k = 0; ; k++) {
      let json: string
      const update = later && k % UPDATE_EVERY === UPDATE_EVERY - 1
      if (update) {
        // A stored Indicator, spread over all that were stored before this job.
        const i = (Math.imul(k + jobsOf[o]! * 7919, 2654435761) >>> 0) % stored
        json = realisticItemJson(realisticIndicator(o, i, groups[o], jobsOf[o]!))
      } else {
        if (next[o]! >= ownerIndicators[o]!) break
        json = realisticItemJson(realisticIndicator(o, next[o]!, groups[o]))
      }
      if (items.length >= perJob || bytes + json.length + 1 > maxBytes) break
      items.push(json)
      bytes += json.length + 1
      if (update) updates++
      else next[o]!++
    }
    jobsOf[o]!++
    yield {
      owner: o,
      file: `${head}${items.join(',')}]}`,
      items: items.length,
      updates,
      first: stored,
      created: items.length - updates,
    }
  }
}
