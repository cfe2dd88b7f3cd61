/**
 * Free text and plain lists as published: comments and blank lines skipped, the value of
 * `value;comment` lines taken and the comment kept as the description, each value's type detected
 * (or forced by --type), errors named by line; and the reading itself: line breaks of every kind,
 * a byte order mark, lines cut across chunks, a line too long to hold, a million lines in flat memory.
 */
import { describe, expect, it } from 'vitest'
import type { ReadEvent, ReadOptions } from '../format.js'
import { MAX_LINE_CHARS, readLines } from '../text-lines.js'
import { plainList } from './text.js'

async function* chunksOf(text: string, size = text.length || 1) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
}

async function readList(text: string, options: Partial<ReadOptions> = {}, size?: number): Promise<ReadEvent[]> {
  const events: ReadEvent[] = []
  for await (const event of plainList.reader!.read(chunksOf(text, size), { name: 'list.txt', ...options }))
    events.push(event)
  return events
}

/** Each element as `where: type summary [description]` or `where: error`. */
const described = (events: ReadEvent[]) =>
  events.map((e) => {
    if (e.kind === 'input') return `(file): ${e.error}`
    if (e.error !== undefined) return `${e.where}: ${e.error}`
    const i = e.indicators[0].indicator as { type: string; summary: string; description?: string }
    return `${e.where}: ${i.type} ${i.summary}${i.description === undefined ? '' : ` [${i.description}]`}`
  })

const C2_LIST = `# Public C2 list, generated 2026-11-01
# type: mixed
// also comments
; and these

91.215.85.188
bad.example
hxxp://bad[.]example/gate.php
185.242.87.149;65
185.242.87.150,C2 server
185.242.87.151\tport scan
evil(.)example # phishing kit
198.51.100.0/24
2001:db8::7
AS174
evil[at]bad[.]example
nss3.dll
IP;65
`

describe('a plain list without --type', () => {
  it('skips comments and blank lines, takes each value and its comment, detects each type, and names bad lines', async () => {
    expect(described(await readList(C2_LIST))).toEqual([
      'line 6: Address 91.215.85.188',
      'line 7: Host bad.example',
      'line 8: URL http://bad.example/gate.php',
      'line 9: Address 185.242.87.149 [65]',
      'line 10: Address 185.242.87.150 [C2 server]',
      'line 11: Address 185.242.87.151 [port scan]',
      'line 12: Host evil.example [phishing kit]',
      'line 13: CIDR 198.51.100.0/24',
      'line 14: Address 2001:db8::7',
      'line 15: ASN ASN174',
      'line 16: EmailAddress evil@bad.example',
      "line 17: 'nss3.dll' is a file name (.dll is no top-level domain), not a host",
      "line 18: 'IP' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)",
    ])
  })

  it('reads a hash;comment list, and a line of one file’s hashes as one File', async () => {
    const md5 = 'd41d8cd98f00b204e9800998ecf8427e'
    const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    const text = `${md5};Emotet\n${sha256};AgentTesla loader\n${md5};${sha256}\n`
    expect(described(await readList(text))).toEqual([
      `line 1: File ${md5.toUpperCase()} [Emotet]`,
      `line 2: File ${sha256.toUpperCase()} [AgentTesla loader]`,
      `line 3: File ${md5.toUpperCase()} : ${sha256.toUpperCase()}`,
    ])
  })

  it('keeps a URL with commas and semicolons whole, and the port of an address in its description', async () => {
    expect(described(await readList('http://bad.example/a,b;c\n198.51.100.7:8080 # panel\nbad.example:443\n'))).toEqual(
      [
        'line 1: URL http://bad.example/a,b;c',
        'line 2: Address 198.51.100.7 [port 8080; panel]',
        'line 3: Host bad.example [port 443]',
      ],
    )
  })

  it('keeps XSS payloads and control characters verbatim as text: in a description, or quoted in an error', async () => {
    const payload = '<img src=x onerror=alert(1)>'
    const events = await readList(
      `bad.example;${payload}\n<script>alert("x")</script>\nbad.example;a\u0001b\u0007c\u200bd\nbad.example;a\u0000b\n`,
    )
    expect(described(events)).toEqual([
      `line 1: Host bad.example [${payload}]`,
      `line 2: '<script>alert("x")</script>' is not a value of a known type (IPv4, IPv6, CIDR, host, URL, email, MD5/SHA-1/SHA-256, ASN)`,
      'line 3: Host bad.example [a\u0001b\u0007c\u200bd]',
      'line 4: the line holds a NUL character (U+0000), which no Indicator field can hold',
    ])
  })

  it('reports a 10 MB line by its length without holding it, and reads the lines around it', async () => {
    const text = `bad.example\n${'x'.repeat(10 * 1024 * 1024)}\n198.51.100.7\n`
    expect(described(await readList(text, {}, 65_536))).toEqual([
      'line 1: Host bad.example',
      'line 2: a line of 10485760 characters, over the 1000000 a line may have: not read',
      'line 3: Address 198.51.100.7',
    ])
  })
})

describe('a plain list with --type', () => {
  it('takes every value as that type (the batch job judges it), comments and separators as without', async () => {
    const text = '# hosts\nbad[.]example;C2\n198.51.100.7\nnot a host!!\n'
    expect(described(await readList(text, { type: 'Host' }))).toEqual([
      'line 2: Host bad.example [C2]',
      'line 3: Host 198.51.100.7',
      'line 4: Host not a host!!',
    ])
  })

  it('takes a line of a type that may hold anything (Mutex, User Agent) as written', async () => {
    expect(described(await readList('Global\\evil, "quoted"; [.]\n', { type: 'Mutex' }))).toEqual([
      'line 1: Mutex Global\\evil, "quoted"; [.]',
    ])
    expect(described(await readList('Mozilla/5.0 (evil; x)\n', { type: 'useragent' }))).toEqual([
      'line 1: User Agent Mozilla/5.0 (evil; x)',
    ])
  })

  it('refuses a --type that is no Indicator type before reading', () => {
    expect(() => plainList.reader!.check!({ name: 'x', type: 'Domain Name' })).toThrow(
      "--type 'Domain Name' is not an Indicator type (Host, Address, URL, File, …)",
    )
    expect(() => plainList.reader!.check!({ name: 'x' })).not.toThrow()
  })
})

describe('readLines', () => {
  const lines = async (text: string, size?: number, max?: number) => {
    const out: unknown[] = []
    for await (const line of readLines(chunksOf(text, size), max)) out.push(line)
    return out
  }

  it.each([1, 2, 3, 7, 1000])(
    'numbers lines ended by LF, CRLF or a lone CR, across chunks of %d characters',
    async (size) => {
      expect(await lines('\ufeffa\r\nb\rc\n\nd\r\n\r\ne', size)).toEqual([
        { number: 1, text: 'a' },
        { number: 2, text: 'b' },
        { number: 3, text: 'c' },
        { number: 4, text: '' },
        { number: 5, text: 'd' },
        { number: 6, text: '' },
        { number: 7, text: 'e' },
      ])
    },
  )

  it('reports a line over the limit by its length', async () => {
    expect(await lines('ab\nabcdef\nabc\n', 2, 3)).toEqual([
      { number: 1, text: 'ab' },
      { number: 2, length: 6 },
      { number: 3, text: 'abc' },
    ])
    expect(MAX_LINE_CHARS).toBe(1_000_000)
  })
})

describe('a million-line list', () => {
  it('streams in flat memory: nothing is held past its line', async () => {
    const LINES = 1_000_000
    async function* generated() {
      // 16,384 lines a chunk, as a file read in 64 KB pieces would come.
      for (let start = 0; start < LINES; start += 16_384) {
        let chunk = ''
        for (let i = start; i < Math.min(LINES, start + 16_384); i++)
          chunk += `${i % 50 === 0 ? '# comment\n' : ''}10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255};seen\n`
        yield chunk
      }
    }
    const before = process.memoryUsage().heapUsed
    let peak = 0
    let count = 0
    let last = ''
    for await (const event of plainList.reader!.read(generated(), { name: 'million.txt' })) {
      if (event.kind === 'element' && event.error === undefined) count++
      if (count % 100_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - before)
      if (event.kind === 'element') last = (event.indicators[0].indicator as { summary: string }).summary
    }
    expect(count).toBe(LINES)
    expect(last).toBe('10.15.66.63')
    // Held events would take hundreds of MB; one chunk and one line take well under 64 MB.
    expect(peak).toBeLessThan(64 * 1024 * 1024)
  }, 60_000)
})
