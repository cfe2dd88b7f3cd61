/**
 * The address rule of feeds, as a table: decided without a connection, so link-local and metadata
 * addresses are proven refused without sending them a single packet.
 */
import { describe, expect, it } from 'vitest'
import { addressVerdict, classifyAddress, hostNameVerdict } from './addresses.js'

/** [address, kind, allowed by default, allowed with feedsAllowPrivateNetworks] */
const TABLE: [string, string, boolean, boolean][] = [
  // public
  ['8.8.8.8', 'public', true, true],
  ['1.1.1.1', 'public', true, true],
  ['100.63.255.255', 'public', true, true],
  ['100.128.0.0', 'public', true, true],
  ['172.15.255.255', 'public', true, true],
  ['172.32.0.0', 'public', true, true],
  ['192.169.0.1', 'public', true, true],
  ['169.253.255.255', 'public', true, true],
  ['2606:4700:4700::1111', 'public', true, true],
  ['2001:4860:4860::8888', 'public', true, true],
  ['::ffff:8.8.8.8', 'public', true, true],
  // loopback
  ['127.0.0.1', 'loopback', false, true],
  ['127.255.255.254', 'loopback', false, true],
  ['::1', 'loopback', false, true],
  ['[::1]', 'loopback', false, true],
  ['0:0:0:0:0:0:0:1', 'loopback', false, true],
  ['::ffff:127.0.0.1', 'loopback', false, true],
  ['::ffff:7f00:1', 'loopback', false, true],
  ['::FFFF:7F00:0001', 'loopback', false, true],
  ['::127.0.0.1', 'loopback', false, true],
  ['::7f00:1', 'loopback', false, true],
  ['::ffff:0:127.0.0.1', 'loopback', false, true],
  ['64:ff9b::127.0.0.1', 'loopback', false, true],
  ['2002:7f00:1::', 'loopback', false, true],
  // private
  ['10.0.0.1', 'private', false, true],
  ['10.255.255.255', 'private', false, true],
  ['172.16.0.1', 'private', false, true],
  ['172.31.255.255', 'private', false, true],
  ['192.168.1.1', 'private', false, true],
  ['198.18.0.1', 'private', false, true],
  ['fc00::1', 'private', false, true],
  ['fd12:3456:789a::1', 'private', false, true],
  ['fec0::1', 'private', false, true],
  ['::ffff:10.1.2.3', 'private', false, true],
  ['::ffff:a01:203', 'private', false, true],
  ['::ffff:192.168.0.1', 'private', false, true],
  // shared (CGNAT)
  ['100.64.0.1', 'shared', false, true],
  ['100.127.255.255', 'shared', false, true],
  ['::ffff:100.64.0.1', 'shared', false, true],
  // unspecified
  ['0.0.0.0', 'unspecified', false, true],
  ['::', 'unspecified', false, true],
  ['::ffff:0.0.0.0', 'unspecified', false, true],
  // link-local: never
  ['169.254.0.1', 'link-local', false, false],
  ['169.254.255.255', 'link-local', false, false],
  ['fe80::1', 'link-local', false, false],
  ['fe80::1%eth0', 'link-local', false, false],
  ['febf:ffff::1', 'link-local', false, false],
  ['::ffff:169.254.1.1', 'link-local', false, false],
  // cloud metadata: never
  ['169.254.169.254', 'metadata', false, false],
  ['::ffff:169.254.169.254', 'metadata', false, false],
  ['::ffff:a9fe:a9fe', 'metadata', false, false],
  ['64:ff9b::a9fe:a9fe', 'metadata', false, false],
  ['fd00:ec2::254', 'metadata', false, false],
  ['FD00:EC2:0:0:0:0:0:254', 'metadata', false, false],
  ['100.100.100.200', 'metadata', false, false],
  ['::ffff:100.100.100.200', 'metadata', false, false],
  ['192.0.0.192', 'metadata', false, false],
  ['168.63.129.16', 'metadata', false, false],
  // multicast, broadcast, reserved: never
  ['224.0.0.1', 'multicast', false, false],
  ['239.255.255.250', 'multicast', false, false],
  ['ff02::1', 'multicast', false, false],
  ['::ffff:224.0.0.251', 'multicast', false, false],
  ['255.255.255.255', 'broadcast', false, false],
  ['::ffff:255.255.255.255', 'broadcast', false, false],
  ['240.0.0.1', 'reserved', false, false],
  ['0.1.2.3', 'reserved', false, false],
  ['192.0.2.1', 'reserved', false, false],
  ['198.51.100.7', 'reserved', false, false],
  ['203.0.113.9', 'reserved', false, false],
  ['192.0.0.8', 'reserved', false, false],
  ['2001:db8::1', 'reserved', false, false],
  ['2001::1', 'reserved', false, false],
  ['100::1', 'reserved', false, false],
  ['3fff::1', 'reserved', false, false],
  ['4000::1', 'reserved', false, false],
  ['::2', 'reserved', false, false],
  // not addresses
  ['localhost', 'invalid', false, false],
  ['127.1', 'invalid', false, false],
  ['256.0.0.1', 'invalid', false, false],
  ['', 'invalid', false, false],
]

describe('addressVerdict', () => {
  it.each(TABLE)('%s is %s (allowed: %s by default, %s with private networks)', (ip, kind, byDefault, withPrivate) => {
    expect(classifyAddress(ip).kind).toBe(kind)
    expect(addressVerdict(ip, false).allowed).toBe(byDefault)
    expect(addressVerdict(ip, true).allowed).toBe(withPrivate)
  })

  it('says why, and which setting opens what can be opened', () => {
    expect(addressVerdict('127.0.0.1', false)).toEqual({
      allowed: false,
      reason: '127.0.0.1 is a loopback address; feeds reach it only when the setting feedsAllowPrivateNetworks is on',
    })
    expect(addressVerdict('::ffff:7f00:1', false)).toEqual({
      allowed: false,
      reason:
        '::ffff:7f00:1 (the IPv4-mapped form of 127.0.0.1) is a loopback address; feeds reach it only when the setting feedsAllowPrivateNetworks is on',
    })
    expect(addressVerdict('169.254.169.254', true)).toEqual({
      allowed: false,
      reason: '169.254.169.254 is a cloud metadata service address',
    })
    expect(addressVerdict('fe80::1', true)).toEqual({ allowed: false, reason: 'fe80::1 is a link-local address' })
  })
})

describe('hostNameVerdict', () => {
  it.each(['metadata.google.internal', 'METADATA.google.internal.', 'metadata', 'metadata.goog', 'instance-data'])(
    '%s is refused before any resolution',
    (name) => {
      const verdict = hostNameVerdict(name)
      expect(verdict.allowed).toBe(false)
      expect(verdict).toMatchObject({ reason: expect.stringContaining('cloud metadata service') })
    },
  )

  it.each(['feeds.example.org', 'metadata.example.org', 'google.internal', 'localhost'])(
    '%s is left to its addresses',
    (name) => {
      expect(hostNameVerdict(name)).toEqual({ allowed: true })
    },
  )
})
