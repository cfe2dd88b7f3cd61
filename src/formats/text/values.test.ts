/**
 * What a value is, as detectValue tells it from the value alone, and what a defanged value stands
 * for: one table each, read as the specification of the list and CSV readers (and of the coming
 * search and feeds).
 */
import { describe, expect, it } from 'vitest'
import { findIndicatorType } from '../../model/indicator-types.js'
import { detectValue, indicatorTypeNamed, refang, valuesOfType } from './values.js'

const MD5 = 'd41d8cd98f00b204e9800998ecf8427e'
const SHA1 = 'da39a3ee5e6b4b0d3255bfef95601890afd80709'
const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'

describe('refang', () => {
  it.each([
    ['hxxp://bad.example/a', 'http://bad.example/a'],
    ['hxxps://bad.example/a', 'https://bad.example/a'],
    ['hXXp://bad.example', 'http://bad.example'],
    ['HXXPS://bad.example', 'https://bad.example'],
    ['hxxp[:]//bad[.]example', 'http://bad.example'],
    ['hxxps[://]bad.example', 'https://bad.example'],
    ['91.215.85[.]188', '91.215.85.188'],
    ['bad(.)example', 'bad.example'],
    ['bad{.}example', 'bad.example'],
    ['bad[dot]example[DOT]com', 'bad.example.com'],
    ['2001[:]db8::1', '2001:db8::1'],
    ['evil[@]bad.example', 'evil@bad.example'],
    ['evil[at]bad[.]example', 'evil@bad.example'],
    ['http://bad.example[/]x', 'http://bad.example/x'],
    ['http://[2001:db8::1]/a', 'http://[2001:db8::1]/a'],
    ['plain.example', 'plain.example'],
  ])('%s → %s', (defanged, value) => {
    expect(refang(defanged)).toBe(value)
  })
})

describe('detectValue', () => {
  it.each([
    ['198.51.100.7', 'Address', ['198.51.100.7']],
    ['  198.51.100.7  ', 'Address', ['198.51.100.7']],
    ['91.215.85[.]188', 'Address', ['91.215.85.188']],
    ['2001:DB8:0:0::7', 'Address', ['2001:db8::7']],
    ['2001[:]db8::7', 'Address', ['2001:db8::7']],
    ['10.10.1.0/24', 'CIDR', ['10.10.1.0/24']],
    ['2001:db8::/32', 'CIDR', ['2001:db8::/32']],
    ['Bad.Example', 'Host', ['bad.example']],
    ['bad.example.', 'Host', ['bad.example']],
    ['777palm[.]com', 'Host', ['777palm.com']],
    ['xn--80ak6aa92e.com', 'Host', ['xn--80ak6aa92e.com']],
    ['update.zip', 'Host', ['update.zip']],
    ['hxxp://777palm.com/2ccaf544c0cf7de7/nss3.dll', 'URL', ['http://777palm.com/2ccaf544c0cf7de7/nss3.dll']],
    ['http://bad.example/a,b;c', 'URL', ['http://bad.example/a,b;c']],
    ['ftp://bad.example/x', 'URL', ['ftp://bad.example/x']],
    ['Evil@Bad.Example', 'EmailAddress', ['evil@bad.example']],
    ['evil[@]bad[.]example', 'EmailAddress', ['evil@bad.example']],
    ['mailto:evil@bad.example', 'EmailAddress', ['evil@bad.example']],
    [MD5, 'File', [MD5.toUpperCase(), null, null]],
    [SHA1, 'File', [null, SHA1.toUpperCase(), null]],
    [SHA256, 'File', [null, null, SHA256.toUpperCase()]],
    [`${MD5};${SHA1};${SHA256}`, 'File', [MD5, SHA1, SHA256].map((h) => h.toUpperCase())],
    [`${SHA256.toUpperCase()} : ${MD5}`, 'File', [MD5.toUpperCase(), null, SHA256.toUpperCase()]],
    ['AS174', 'ASN', ['ASN174']],
    ['ASN174', 'ASN', ['ASN174']],
    ['as 64500', 'ASN', ['ASN64500']],
  ])('%s is %s %j', (text, type, values) => {
    expect(detectValue(text)).toEqual({ type, values, summary: values.filter(Boolean).join(' : ') })
  })

  it.each([
    ['198.51.100.7:8080', 'Address', '198.51.100.7', 8080],
    ['[2001:db8::7]:443', 'Address', '2001:db8::7', 443],
    ['bad[.]example:8443', 'Host', 'bad.example', 8443],
  ])('%s is %s %s on port %d, the port apart', (text, type, value, port) => {
    expect(detectValue(text)).toEqual({ type, values: [value], summary: value, port })
  })

  it.each([
    ['', 'the value is empty'],
    ['IP', "'IP' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)"],
    [
      '# a comment',
      "'# a comment' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)",
    ],
    [
      '999.1.1.1',
      "'999.1.1.1' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)",
    ],
    [
      'localhost',
      "'localhost' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)",
    ],
    ['nss3.dll', "'nss3.dll' is a file name (.dll is no top-level domain), not a host"],
    ['bad.example/gate.php', "'bad.example/gate.php' is a host and path without a scheme: a URL needs one (http://…)"],
    [
      '10.0.0.0/33',
      "'10.0.0.0/33' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)",
    ],
    ['http://bad example', "'http://bad example' is not a URL: a URL has no spaces"],
    ['a@b', "'a@b' is not an email address"],
    [
      `${MD5}${MD5}${MD5}${MD5}`,
      `'${`${MD5}${MD5}${MD5}${MD5}`.slice(0, 120)}…' is a SHA-512 hash: a File holds MD5, SHA-1 and SHA-256`,
    ],
    [`${MD5};${MD5.toUpperCase()}`, `'${MD5};${MD5.toUpperCase()}' holds two MD5 hashes: one File has one`],
    ['0123456789abcdef0', "'0123456789abcdef0' is 17 hex digits: no MD5 (32), SHA-1 (40) or SHA-256 (64)"],
    [
      '<script>alert(1)</script>',
      "'<script>alert(1)</script>' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)",
    ],
  ])('%j is no value: %s', (text, reason) => {
    expect(detectValue(text)).toEqual({ reason })
  })

  it('quotes a long value cut short, and reads a 10 MB one in linear time', () => {
    const long = 'a'.repeat(10 * 1024 * 1024)
    const started = Date.now()
    for (const text of [long, `${long}@`, `x@${long}`, `${long}.example`, `http://${long} x`])
      expect((detectValue(text) as { reason: string }).reason.length).toBeLessThan(300)
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})

describe('valuesOfType: a type the caller names', () => {
  const type = (name: string) => findIndicatorType(name)!
  it.each([
    ['Host', 'bad[.]example', ['bad.example']],
    ['Host', '198.51.100.7', ['198.51.100.7']],
    ['URL', 'hxxps://bad.example/x', ['https://bad.example/x']],
    ['File', `${MD5};${SHA256}`, [MD5.toUpperCase(), null, SHA256.toUpperCase()]],
    ['ASN', 'AS174', ['ASN174']],
    ['ASN', 'asn 64500', ['ASN64500']],
    ['Mutex', 'Global\\evil[.]x', ['Global\\evil[.]x']],
    ['User Agent', 'Mozilla/5.0 (x; y)', ['Mozilla/5.0 (x; y)']],
    ['Address', 'bad.example', null],
    ['File', 'not a hash', null],
  ])('%s %s → %j', (name, text, values) => {
    expect(valuesOfType(type(name), text)).toEqual(values)
  })
})

describe('indicatorTypeNamed', () => {
  it.each([
    ['Address', 'Address'],
    ['ip', 'Address'],
    ['IPv4', 'Address'],
    ['ip-dst', 'Address'],
    ['domain', 'Host'],
    ['hostname', 'Host'],
    ['url', 'URL'],
    ['email', 'EmailAddress'],
    ['sha256', 'File'],
    ['md5_hash', 'File'],
    ['asn', 'ASN'],
    ['cidrBlocks', 'CIDR'],
    ['user-agent', 'User Agent'],
  ])('%s is %s', (name, type) => {
    expect(indicatorTypeNamed(name)?.name).toBe(type)
  })

  it('knows no other name', () => {
    expect(indicatorTypeNamed('btc')).toBeUndefined()
  })
})
