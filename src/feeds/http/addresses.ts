/**
 * Which addresses a feed may reach: the one decision every hop of every feed request goes through
 * (index.ts), kept pure so its table is tested without a single connection. A feed's URL is typed by
 * an administrator or handed on by a remote server (redirects, TAXII discovery), so without this rule
 * a feed is a way to make the server read its own loopback services, the internal network or the
 * cloud's metadata service (and the credentials the latter hands out). docs/feeds.md, "Network safety".
 */
import { isIP } from 'node:net'

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string }

/**
 * What an address is. The first four are places an administrator may mean (a feed server on the
 * internal network) and are allowed by feedsAllowPrivateNetworks; the rest never hold a feed server.
 */
export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'unspecified'
  | 'link-local'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'invalid'

const PRIVATE_KINDS: ReadonlySet<AddressKind> = new Set(['loopback', 'private', 'shared', 'unspecified'])

const DESCRIPTIONS: Record<Exclude<AddressKind, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private network address',
  shared: 'a carrier-grade NAT (shared) address',
  unspecified: 'the unspecified address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata service address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved or documentation address',
  invalid: 'not an IP address',
}

/**
 * Host names of cloud metadata services, refused before any resolution: they resolve to link-local
 * addresses anyway, but a resolver (or a hosts file) may answer otherwise.
 */
const METADATA_HOST_NAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
])

/** Whether a host name may be resolved at all; IP literals are judged by addressVerdict. */
export function hostNameVerdict(hostName: string): AddressVerdict {
  const name = hostName.toLowerCase().replace(/\.+$/, '')
  if (METADATA_HOST_NAMES.has(name))
    return { allowed: false, reason: `${name} is the host name of a cloud metadata service` }
  return { allowed: true }
}

/**
 * Whether a feed may connect to this IP address (either family, with or without brackets or a zone).
 * `allowPrivate` is the feedsAllowPrivateNetworks setting: it opens loopback, private, shared (CGNAT)
 * and unspecified addresses, never link-local, metadata, multicast, broadcast or reserved ones.
 */
export function addressVerdict(ip: string, allowPrivate: boolean): AddressVerdict {
  const { kind, via } = classifyAddress(ip)
  if (kind === 'public' || (allowPrivate && PRIVATE_KINDS.has(kind))) return { allowed: true }
  const what = DESCRIPTIONS[kind]
  const shown = via ? `${ip} (${via})` : ip
  const hint = PRIVATE_KINDS.has(kind) ? '; feeds reach it only when the setting feedsAllowPrivateNetworks is on' : ''
  return { allowed: false, reason: `${shown} is ${what}${hint}` }
}

/** The kind of an address and, for an IPv6 form that carries an IPv4 address, which form and which address. */
export function classifyAddress(ip: string): { kind: AddressKind; via?: string } {
  const text = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  const family = isIP(text)
  if (family === 4) return { kind: classifyV4(parseV4(text)) }
  if (family === 6) return classifyV6(parseV6(text))
  return { kind: 'invalid' }
}

type Rule<K> = [network: number[], bits: number, kind: K]

const V4_METADATA: number[][] = [
  [169, 254, 169, 254], // AWS, Azure, GCP, OpenStack …
  [100, 100, 100, 200], // Alibaba Cloud
  [192, 0, 0, 192], // Oracle Cloud
  [168, 63, 129, 16], // Azure WireServer: a public address that answers only inside Azure
]

/** First match wins, so the narrower rules come first. */
const V4_RULES: Rule<AddressKind>[] = [
  [[0, 0, 0, 0], 32, 'unspecified'],
  [[0, 0, 0, 0], 8, 'reserved'], // "this network": not a destination
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'shared'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved'], // IETF protocol assignments
  [[192, 0, 2, 0], 24, 'reserved'], // documentation
  [[192, 88, 99, 0], 24, 'reserved'], // former 6to4 relays
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'private'], // benchmarking, used by labs and fake-IP resolvers as a private range
  [[198, 51, 100, 0], 24, 'reserved'], // documentation
  [[203, 0, 113, 0], 24, 'reserved'], // documentation
  [[224, 0, 0, 0], 4, 'multicast'],
  [[255, 255, 255, 255], 32, 'broadcast'],
  [[240, 0, 0, 0], 4, 'reserved'],
]

type V6Kind = AddressKind | 'embedded'

const V6_METADATA: number[][] = [hexBytes('fd00:0ec2:0000:0000:0000:0000:0000:0254')]

/** IPv6 rules; `embedded` ranges carry an IPv4 address that decides (see EMBEDDED). */
const V6_RULES: Rule<V6Kind>[] = [
  [hexBytes('0000:0000:0000:0000:0000:0000:0000:0000'), 128, 'unspecified'],
  [hexBytes('0000:0000:0000:0000:0000:0000:0000:0001'), 128, 'loopback'],
  [hexBytes('0000:0000:0000:0000:0000:ffff:0000:0000'), 96, 'embedded'], // IPv4-mapped
  [hexBytes('0000:0000:0000:0000:ffff:0000:0000:0000'), 96, 'embedded'], // IPv4-translated (SIIT)
  [hexBytes('0000:0000:0000:0000:0000:0000:0000:0000'), 96, 'embedded'], // IPv4-compatible (deprecated)
  [hexBytes('0064:ff9b:0000:0000:0000:0000:0000:0000'), 96, 'embedded'], // NAT64 well-known prefix
  [hexBytes('0064:ff9b:0001:0000:0000:0000:0000:0000'), 48, 'private'], // local-use NAT64
  [hexBytes('0100:0000:0000:0000:0000:0000:0000:0000'), 64, 'reserved'], // discard-only
  [hexBytes('2001:0000:0000:0000:0000:0000:0000:0000'), 32, 'reserved'], // Teredo: a tunnel hides the address
  [hexBytes('2001:0db8:0000:0000:0000:0000:0000:0000'), 32, 'reserved'], // documentation
  [hexBytes('2002:0000:0000:0000:0000:0000:0000:0000'), 16, 'embedded'], // 6to4
  [hexBytes('3fff:0000:0000:0000:0000:0000:0000:0000'), 20, 'reserved'], // documentation
  [hexBytes('fc00:0000:0000:0000:0000:0000:0000:0000'), 7, 'private'], // unique local
  [hexBytes('fe80:0000:0000:0000:0000:0000:0000:0000'), 10, 'link-local'],
  [hexBytes('fec0:0000:0000:0000:0000:0000:0000:0000'), 10, 'private'], // site-local (deprecated)
  [hexBytes('ff00:0000:0000:0000:0000:0000:0000:0000'), 8, 'multicast'],
]

const EMBEDDED_FORMS: [prefix: number[], bits: number, name: string, at: number][] = [
  [hexBytes('0000:0000:0000:0000:0000:ffff:0000:0000'), 96, 'IPv4-mapped', 12],
  [hexBytes('0000:0000:0000:0000:ffff:0000:0000:0000'), 96, 'IPv4-translated', 12],
  [hexBytes('0000:0000:0000:0000:0000:0000:0000:0000'), 96, 'IPv4-compatible', 12],
  [hexBytes('0064:ff9b:0000:0000:0000:0000:0000:0000'), 96, 'NAT64', 12],
  [hexBytes('2002:0000:0000:0000:0000:0000:0000:0000'), 16, '6to4', 2],
]

const GLOBAL_UNICAST = hexBytes('2000:0000:0000:0000:0000:0000:0000:0000')

function classifyV4(bytes: number[]): AddressKind {
  if (V4_METADATA.some((m) => inPrefix(bytes, m, 32))) return 'metadata'
  return V4_RULES.find(([network, bits]) => inPrefix(bytes, network, bits))?.[2] ?? 'public'
}

function classifyV6(bytes: number[]): { kind: AddressKind; via?: string } {
  if (V6_METADATA.some((m) => inPrefix(bytes, m, 128))) return { kind: 'metadata' }
  const kind = V6_RULES.find(([network, bits]) => inPrefix(bytes, network, bits))?.[2]
  if (kind === 'embedded') {
    const [, , form, at] = EMBEDDED_FORMS.find(([prefix, bits]) => inPrefix(bytes, prefix, bits)) ?? []
    const v4 = bytes.slice(at as number, (at as number) + 4)
    return { kind: classifyV4(v4), via: `the ${form} form of ${v4.join('.')}` }
  }
  if (kind) return { kind }
  // Only 2000::/3 is allocated for global unicast; the rest of the space is reserved by the IETF.
  return { kind: inPrefix(bytes, GLOBAL_UNICAST, 3) ? 'public' : 'reserved' }
}

function inPrefix(bytes: number[], network: number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i)
    const mask = (0xff << (8 - take)) & 0xff
    if ((bytes[i / 8] & mask) !== (network[i / 8] & mask)) return false
  }
  return true
}

function parseV4(text: string): number[] {
  return text.split('.').map(Number)
}

/** Sixteen bytes of an IPv6 address node:net already accepted (`::` and a dotted IPv4 tail included). */
function parseV6(text: string): number[] {
  let s = text.toLowerCase()
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number)
    s = `${s.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [left, right] = s.split('::')
  const head = left ? left.split(':') : []
  const tail = right === undefined ? [] : right ? right.split(':') : []
  const groups = right === undefined ? head : [...head, ...Array(8 - head.length - tail.length).fill('0'), ...tail]
  return groups.flatMap((g) => {
    const n = Number.parseInt(g, 16)
    return [n >> 8, n & 0xff]
  })
}

function hexBytes(full: string): number[] {
  return parseV6(full)
}
