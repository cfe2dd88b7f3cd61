/**
 * The STIX 1.x reader: what Bulwark's own STIX 1.1.1 writer (stix.ts, the TAXII 1.1 server's
 * output) writes comes back as the same Indicators; packages as other servers write them (their
 * own prefixes, lists, several hashes, markings) are read as docs/import.md says; a stream of
 * packages is read one item at a time, the same in 7-character chunks as whole; what is not STIX
 * 1 (a DTD, XML cut short) is refused after what was read before it.
 */
import { describe, expect, it } from 'vitest'
import { DomainError } from '../../core/errors.js'
import { readIndicatorKey } from '../../domain/batch/input.js'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { findIndicatorType } from '../../model/indicator-types.js'
import type { ReadEvent } from '../format.js'
import { detectFormat, findFormat } from '../index.js'
import { MAX_ITEM_CHARS, stix1Packages } from './read.js'
import { renderPackage } from './stix.js'

const MD5 = 'D41D8CD98F00B204E9800998ECF8427E'
const SHA1 = 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709'
const SHA256 = 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'
const NOW = '2026-06-01T00:00:00.000Z'

async function* chunks(text: string, size = Infinity) {
  if (size === Infinity) {
    if (text) yield text
    return
  }
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
}

async function readEvents(text: string, size = Infinity): Promise<ReadEvent[]> {
  const events: ReadEvent[] = []
  for await (const event of stix1Packages.reader!.read(chunks(text, size), { name: 'feed.xml', now: NOW }))
    events.push(event)
  return events
}

const indicatorsOf = (events: ReadEvent[]) =>
  events.flatMap((e) => (e.kind === 'element' ? e.indicators.map((i) => i.indicator as Record<string, unknown>) : []))

/** What the batch job takes an item to be. */
const keyOf = (item: Record<string, unknown>) => {
  const key = readIndicatorKey(item)
  return { type: key.def.name, values: key.values }
}

function feedIndicator(id: number, type: string, values: (string | null)[], extra: Partial<FeedIndicator> = {}) {
  return {
    id,
    ownerId: 1,
    type,
    summary: values.filter(Boolean).join(' : '),
    values: [values[0] ?? null, values[1] ?? null, values[2] ?? null],
    rating: 3,
    confidence: null,
    description: null,
    active: true,
    dateAdded: '2026-03-01T00:00:00.000Z',
    lastModified: '2026-03-01T01:02:03.456Z',
    externalAdded: null,
    expires: null,
    tags: [],
    securityLabels: [],
    ...extra,
  } satisfies FeedIndicator
}

/** Every type, with the shapes a reader could lose (both families, a File of one hash, a key without value name). */
const WRITTEN: FeedIndicator[] = [
  feedIndicator(1, 'Address', ['198.51.100.7'], { confidence: 85, description: 'scanner\n"line" <2> & more' }),
  feedIndicator(2, 'Address', ['2001:db8::7'], { confidence: 50, securityLabels: ['TLP:AMBER'] }),
  feedIndicator(3, 'EmailAddress', ["o'brien@bad.example"], { confidence: 15 }),
  feedIndicator(4, 'File', [MD5, SHA1, SHA256], { expires: '2027-01-01T00:00:00.000Z' }),
  feedIndicator(5, 'File', [null, SHA1, null]),
  feedIndicator(6, 'Host', ['bad.example'], { securityLabels: ['TLP:RED'] }),
  feedIndicator(7, 'URL', ['http://bad.example/a\'b\\c?q="1",2&x=<y>']),
  feedIndicator(8, 'ASN', ['ASN64500']),
  feedIndicator(9, 'CIDR', ['10.10.1.0/24']),
  feedIndicator(10, 'CIDR', ['2001:db8::/32']),
  feedIndicator(11, 'Mutex', ['Global\\evil, "quoted"']),
  feedIndicator(12, 'Registry Key', ['HKEY_LOCAL_MACHINE\\Software\\Run', 'evil', 'REG_SZ']),
  feedIndicator(13, 'Registry Key', ['HKEY_CURRENT_USER\\Console', null, 'REG_QWORD']),
  feedIndicator(14, 'User Agent', ['Mozilla/5.0 (evil "bot"; it\'s)']),
  feedIndicator(15, 'Host', ['expired.example'], { expires: '2026-04-01T00:00:00.000Z' }),
]

describe('STIX 1.1.1 as Bulwark writes it, read back', () => {
  it('gives every Indicator of the ten types with its values, dates, confidence, description and TLP', async () => {
    const events = await readEvents(renderPackage('https://bulwark.example', 'Owner', WRITTEN))
    expect(events.map((e) => e.kind === 'element' && e.where)).toEqual(
      WRITTEN.map((_, i) => `packages[0] Indicators[${i}]`),
    )
    expect(events.every((e) => e.kind === 'element' && !e.error && !e.skipped)).toBe(true)
    const items = indicatorsOf(events)
    expect(items.map(keyOf)).toEqual(
      WRITTEN.map((w) => ({ type: w.type, values: w.values.slice(0, findIndicatorType(w.type)!.fields.length) })),
    )
    expect(new Set(WRITTEN.map((w) => w.type)).size).toBe(10)
    items.forEach((item, i) => {
      const w = WRITTEN[i]
      expect(item.summary).toBe(w.summary)
      expect(item.externalLastModified).toBe(w.lastModified)
      expect(item.firstSeen).toBe(w.dateAdded)
      expect(item.externalDateExpires).toBe(w.expires ?? undefined)
      expect(item.active).toBe(w.id !== 15)
      expect(item.confidence).toBe(w.confidence ?? undefined)
      expect(item.description).toBe(w.description ?? undefined)
      expect(item.source).toBe('Owner')
      expect(item.securityLabel).toEqual(
        w.securityLabels.length ? [expect.objectContaining({ name: w.securityLabels[0] })] : undefined,
      )
      expect(item.attribute).toEqual([{ type: 'External ID', value: `bulwark:indicator-${w.id}` }])
    })
  })

  it('reads several packages one after another, each item named by its package', async () => {
    const a = renderPackage('https://a.example', 'A', WRITTEN.slice(0, 2))
    const b = renderPackage('https://b.example', 'B', WRITTEN.slice(2, 3))
    const events = await readEvents(`${a}\n${b}${a}`)
    expect(events.map((e) => e.kind === 'element' && e.where)).toEqual([
      'packages[0] Indicators[0]',
      'packages[0] Indicators[1]',
      'packages[1] Indicators[0]',
      'packages[2] Indicators[0]',
      'packages[2] Indicators[1]',
    ])
    expect(indicatorsOf(events).map((i) => [i.summary, i.source])).toEqual([
      ['198.51.100.7', 'A'],
      ['2001:db8::7', 'A'],
      ["o'brien@bad.example", 'B'],
      ['198.51.100.7', 'A'],
      ['2001:db8::7', 'A'],
    ])
  })
})

/** A package as other servers send it: their own prefixes, declared on the root, CybOX 2.1 and STIX 1.2. */
const FOREIGN = `<?xml version="1.0" encoding="UTF-8"?>
<!-- exported by some platform -->
<stix:STIX_Package
  xmlns:stix="http://stix.mitre.org/stix-1"
  xmlns:indicator="http://stix.mitre.org/Indicator-2"
  xmlns:stixCommon="http://stix.mitre.org/common-1"
  xmlns:marking="http://data-marking.mitre.org/Marking-1"
  xmlns:tlp="http://data-marking.mitre.org/extensions/MarkingStructure#TLP-1"
  xmlns:cybox="http://cybox.mitre.org/cybox-2"
  xmlns:cyboxCommon="http://cybox.mitre.org/common-2"
  xmlns:AddressObject="http://cybox.mitre.org/objects#AddressObject-2"
  xmlns:FileObject="http://cybox.mitre.org/objects#FileObject-2"
  xmlns:URIObject="http://cybox.mitre.org/objects#URIObject-2"
  xmlns:EmailMessageObj="http://cybox.mitre.org/objects#EmailMessageObject-2"
  xmlns:ttp="http://stix.mitre.org/TTP-1"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:acme="http://acme.example"
  id="acme:Package-1" version="1.2" timestamp="2026-05-01T12:00:00+02:00">
  <stix:STIX_Header>
    <stix:Title>Weekly</stix:Title>
    <stix:Handling>
      <marking:Marking>
        <marking:Controlled_Structure>//node() | //@*</marking:Controlled_Structure>
        <marking:Marking_Structure xsi:type="tlp:TLPMarkingStructureType" color="GREEN"/>
      </marking:Marking>
    </stix:Handling>
  </stix:STIX_Header>
  <stix:Observables cybox_major_version="2" cybox_minor_version="1">
    <cybox:Observable id="acme:Observable-list">
      <cybox:Object id="acme:Object-list">
        <cybox:Properties xsi:type="AddressObject:AddressObjectType" category="ipv4-addr">
          <AddressObject:Address_Value condition="Equals" apply_condition="ANY">192.0.2.1##comma##192.0.2.2##comma##192.0.2.3</AddressObject:Address_Value>
        </cybox:Properties>
      </cybox:Object>
    </cybox:Observable>
    <cybox:Observable id="acme:Observable-mail">
      <cybox:Object>
        <cybox:Properties xsi:type="EmailMessageObj:EmailMessageObjectType">
          <EmailMessageObj:Header>
            <EmailMessageObj:From category="e-mail"><AddressObject:Address_Value condition="Equals">phish@bad.example</AddressObject:Address_Value></EmailMessageObj:From>
            <EmailMessageObj:Subject condition="Equals">Invoice</EmailMessageObj:Subject>
          </EmailMessageObj:Header>
        </cybox:Properties>
      </cybox:Object>
    </cybox:Observable>
  </stix:Observables>
  <stix:Indicators>
    <stix:Indicator xsi:type="indicator:IndicatorType" id="acme:indicator-file" timestamp="2026-05-01T09:00:00Z">
      <indicator:Title>Dropper</indicator:Title>
      <indicator:Description>Seen in <![CDATA[<phishing>]]> &amp; drive-by</indicator:Description>
      <indicator:Valid_Time_Position>
        <indicator:Start_Time>2026-04-01T00:00:00Z</indicator:Start_Time>
        <indicator:End_Time>2026-12-31T00:00:00Z</indicator:End_Time>
      </indicator:Valid_Time_Position>
      <indicator:Observable id="acme:Observable-file">
        <cybox:Object id="acme:File-1">
          <cybox:Properties xsi:type="FileObject:FileObjectType">
            <FileObject:File_Name>dropper.exe</FileObject:File_Name>
            <FileObject:Hashes>
              <cyboxCommon:Hash><cyboxCommon:Type>MD5</cyboxCommon:Type><cyboxCommon:Simple_Hash_Value condition="Equals">${MD5.toLowerCase()}</cyboxCommon:Simple_Hash_Value></cyboxCommon:Hash>
              <cyboxCommon:Hash><cyboxCommon:Type>SHA1</cyboxCommon:Type><cyboxCommon:Simple_Hash_Value condition="Equals">${SHA1}</cyboxCommon:Simple_Hash_Value></cyboxCommon:Hash>
              <cyboxCommon:Hash><cyboxCommon:Type>SHA256</cyboxCommon:Type><cyboxCommon:Simple_Hash_Value condition="Equals">${SHA256}</cyboxCommon:Simple_Hash_Value></cyboxCommon:Hash>
            </FileObject:Hashes>
          </cybox:Properties>
        </cybox:Object>
      </indicator:Observable>
      <indicator:Handling>
        <marking:Marking>
          <marking:Marking_Structure xsi:type="tlp:TLPMarkingStructureType" color="AMBER"/>
        </marking:Marking>
      </indicator:Handling>
      <indicator:Confidence><stixCommon:Value>Medium</stixCommon:Value></indicator:Confidence>
    </stix:Indicator>
    <stix:Indicator xsi:type="indicator:IndicatorType" id="acme:indicator-contains">
      <indicator:Observable>
        <cybox:Object>
          <cybox:Properties xsi:type="URIObject:URIObjectType" type="URL">
            <URIObject:Value condition="Contains">/wp-admin/</URIObject:Value>
          </cybox:Properties>
        </cybox:Object>
      </indicator:Observable>
    </stix:Indicator>
    <stix:Indicator xsi:type="indicator:IndicatorType" id="acme:indicator-ref">
      <indicator:Title>Phisher</indicator:Title>
      <indicator:Observable idref="acme:Observable-mail"/>
      <indicator:Confidence><stixCommon:Value>High</stixCommon:Value></indicator:Confidence>
    </stix:Indicator>
  </stix:Indicators>
  <stix:TTPs>
    <stix:TTP xsi:type="ttp:TTPType" id="acme:ttp-1"><ttp:Title>Phishing</ttp:Title></stix:TTP>
  </stix:TTPs>
</stix:STIX_Package>
`

describe('STIX 1.x as other servers write it', () => {
  it('reads lists, a File of three hashes, validity, markings and observables named by idref; refuses Contains; skips a TTP', async () => {
    const events = await readEvents(FOREIGN)
    expect(
      events.map((e) =>
        e.kind === 'element'
          ? [e.where, e.indicators.map((i) => i.where), e.error ?? null, e.skipped ?? null]
          : ['input', e.error],
      ),
    ).toEqual([
      [
        'packages[0] Observables[0]',
        ['packages[0] Observables[0]', 'packages[0] Observables[0] (value 2)', 'packages[0] Observables[0] (value 3)'],
        null,
        null,
      ],
      ['packages[0] Observables[1]', ['packages[0] Observables[1]'], null, null],
      ['packages[0] Indicators[0]', ['packages[0] Indicators[0]'], null, null],
      [
        'packages[0] Indicators[1]',
        [],
        'acme:indicator-contains: URIObject:Value condition="Contains" is not read (only Equals makes an Indicator)',
        null,
      ],
      ['packages[0] Indicators[2]', ['packages[0] Indicators[2]'], null, null],
      ['packages[0] TTPs[0]', [], null, 'TTP'],
    ])
    const [ip1, ip2, ip3, mail, file, phisher] = indicatorsOf(events)
    const green = [expect.objectContaining({ name: 'TLP:GREEN' })]
    // Bare observables: their value, id and the package's TLP; no dates or validity of their own.
    expect([ip1, ip2, ip3].map((i) => i.summary)).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3'])
    expect(ip2).toEqual({
      type: 'Address',
      summary: '192.0.2.2',
      securityLabel: green,
      attribute: [{ type: 'External ID', value: 'acme:Observable-list' }],
    })
    expect(mail).toMatchObject({ type: 'EmailAddress', summary: 'phish@bad.example', securityLabel: green })
    expect(mail.attribute).toEqual([
      { type: 'External ID', value: 'acme:Observable-mail' },
      { type: 'Additional Analysis and Context', value: 'Subject = Invoice' },
    ])
    expect(keyOf(file)).toEqual({ type: 'File', values: [MD5, SHA1, SHA256] })
    expect(file).toMatchObject({
      summary: `${MD5.toLowerCase()} : ${SHA1} : ${SHA256}`,
      value1: MD5.toLowerCase(),
      value2: SHA1,
      value3: SHA256,
      description: 'Dropper\nSeen in <phishing> & drive-by',
      confidence: 50,
      firstSeen: '2026-04-01T00:00:00.000Z',
      externalDateExpires: '2026-12-31T00:00:00.000Z',
      externalLastModified: '2026-05-01T09:00:00.000Z',
      active: true,
      securityLabel: [{ name: 'TLP:AMBER', color: 'FFC000', description: 'Traffic Light Protocol AMBER' }],
      attribute: [
        { type: 'External ID', value: 'acme:indicator-file' },
        { type: 'Additional Analysis and Context', value: 'File_Name = dropper.exe' },
      ],
    })
    // An indicator naming an observable read before it: that observable's value, the indicator's fields, the package's timestamp and TLP.
    expect(phisher).toMatchObject({
      type: 'EmailAddress',
      summary: 'phish@bad.example',
      description: 'Phisher',
      confidence: 85,
      active: true,
      externalLastModified: '2026-05-01T10:00:00.000Z',
      securityLabel: green,
    })
    expect(phisher.attribute).toContainEqual({ type: 'External ID', value: 'acme:indicator-ref' })
  })

  it('never invents a TLP: a package without markings gives no Security Label', async () => {
    const text = FOREIGN.replace(/<stix:Handling>[\s\S]*?<\/stix:Handling>/, '').replace(
      /<indicator:Handling>[\s\S]*?<\/indicator:Handling>/,
      '',
    )
    expect(indicatorsOf(await readEvents(text)).filter((i) => i.securityLabel)).toEqual([])
  })

  it('reads the same in 7-character chunks as whole: nothing is lost on a chunk boundary', async () => {
    const text = `${FOREIGN.replace(/^<\?xml[^>]*\?>/, '')}${renderPackage('https://bulwark.example', 'Owner', WRITTEN)}`
    const whole = await readEvents(text)
    expect(indicatorsOf(whole)).toHaveLength(6 + WRITTEN.length)
    expect(await readEvents(text, 7)).toEqual(whole)
    expect(await readEvents(text, 1)).toEqual(whole)
  })
})

/** STIX 1.0 with CybOX 2.0, its elements in a default namespace, the objects Bulwark does not write itself. */
const OLDER = `<STIX_Package xmlns="http://stix.mitre.org/stix-1" xmlns:indicator="http://stix.mitre.org/Indicator-2"
  xmlns:cybox="http://cybox.mitre.org/cybox-2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:URIObj="http://cybox.mitre.org/objects#URIObject-2" xmlns:WinRegistryKeyObj="http://cybox.mitre.org/objects#WinRegistryKeyObject-2"
  xmlns:WinMutexObj="http://cybox.mitre.org/objects#WinMutexObject-2" xmlns:HTTPSessionObj="http://cybox.mitre.org/objects#HTTPSessionObject-2"
  xmlns:ASObj="http://cybox.mitre.org/objects#ASObject-1" xmlns:AddressObj="http://cybox.mitre.org/objects#AddressObject-2"
  xmlns:SocketObj="http://cybox.mitre.org/objects#SocketAddressObject-1" xmlns:cyboxCommon="http://cybox.mitre.org/common-2"
  xmlns:FileObj="http://cybox.mitre.org/objects#FileObject-2"
  xmlns:WinExecutableFileObj="http://cybox.mitre.org/objects#WinExecutableFileObject-2" version="1.0">
  <Indicators>
    <Indicator xsi:type="indicator:IndicatorType" id="old:1">
      <indicator:Observable>
        <cybox:Observable_Composition operator="OR">
          <cybox:Observable><cybox:Object><cybox:Properties xsi:type="URIObj:URIObjectType" type="Domain Name"><URIObj:Value>old.example</URIObj:Value></cybox:Properties></cybox:Object></cybox:Observable>
          <cybox:Observable><cybox:Object><cybox:Properties xsi:type="WinRegistryKeyObj:WindowsRegistryKeyObjectType"><WinRegistryKeyObj:Key>Software\\Run</WinRegistryKeyObj:Key><WinRegistryKeyObj:Hive>HKLM</WinRegistryKeyObj:Hive></cybox:Properties></cybox:Object></cybox:Observable>
          <cybox:Observable><cybox:Object><cybox:Properties xsi:type="WinMutexObj:WindowsMutexObjectType"><WinMutexObj:Name>evil-mutex</WinMutexObj:Name></cybox:Properties></cybox:Object></cybox:Observable>
          <cybox:Observable><cybox:Object><cybox:Properties xsi:type="SocketObj:SocketAddressObjectType"/></cybox:Object></cybox:Observable>
        </cybox:Observable_Composition>
      </indicator:Observable>
      <indicator:Confidence><Value>Unknown</Value></indicator:Confidence>
    </Indicator>
    <Indicator xsi:type="indicator:IndicatorType" id="old:2">
      <indicator:Observable><cybox:Object><cybox:Properties xsi:type="HTTPSessionObj:HTTPSessionObjectType">
        <HTTPSessionObj:HTTP_Request_Response><HTTPSessionObj:HTTP_Client_Request><HTTPSessionObj:HTTP_Request_Header><HTTPSessionObj:Parsed_Header>
          <HTTPSessionObj:User_Agent condition="Equals">EvilBot/1.0</HTTPSessionObj:User_Agent>
        </HTTPSessionObj:Parsed_Header></HTTPSessionObj:HTTP_Request_Header></HTTPSessionObj:HTTP_Client_Request></HTTPSessionObj:HTTP_Request_Response>
      </cybox:Properties></cybox:Object></indicator:Observable>
    </Indicator>
    <Indicator xsi:type="indicator:IndicatorType" id="old:3">
      <indicator:Observable><cybox:Object><cybox:Properties xsi:type="ASObj:ASObjectType"><ASObj:Number>64500</ASObj:Number></cybox:Properties></cybox:Object></indicator:Observable>
      <indicator:Observable><cybox:Object><cybox:Properties xsi:type="AddressObj:AddressObjectType" category="mac"><AddressObj:Address_Value>00:11:22:33:44:55</AddressObj:Address_Value></cybox:Properties></cybox:Object></indicator:Observable>
    </Indicator>
    <Indicator xsi:type="indicator:IndicatorType" id="old:4">
      <indicator:Observable><cybox:Observable_Composition operator="AND">
        <cybox:Observable><cybox:Object><cybox:Properties xsi:type="ASObj:ASObjectType"><ASObj:Number>1</ASObj:Number></cybox:Properties></cybox:Object></cybox:Observable>
      </cybox:Observable_Composition></indicator:Observable>
    </Indicator>
    <Indicator xsi:type="indicator:IndicatorType" id="old:5">
      <indicator:Observable><cybox:Object><cybox:Properties xsi:type="WinExecutableFileObj:WindowsExecutableFileObjectType">
        <FileObj:Size_In_Bytes>1024</FileObj:Size_In_Bytes>
        <FileObj:Hashes>
          <cyboxCommon:Hash><cyboxCommon:Type>MD5</cyboxCommon:Type><cyboxCommon:Simple_Hash_Value condition="Equals">${MD5}##comma##${MD5.replace('D', 'E')}</cyboxCommon:Simple_Hash_Value></cyboxCommon:Hash>
          <cyboxCommon:Hash><cyboxCommon:Type>SSDEEP</cyboxCommon:Type><cyboxCommon:Fuzzy_Hash_Value>3:abc:def</cyboxCommon:Fuzzy_Hash_Value></cyboxCommon:Hash>
        </FileObj:Hashes>
      </cybox:Properties></cybox:Object></indicator:Observable>
    </Indicator>
  </Indicators>
</STIX_Package>`

describe('STIX 1.0, unprefixed, and the objects Bulwark does not write', () => {
  it('reads OR compositions, URIs of domains, registry hives written short, Windows mutexes, user agents and ASNs; refuses the rest by name', async () => {
    const events = await readEvents(OLDER)
    expect(events.map((e) => (e.kind === 'element' ? [e.where, e.indicators.length, e.error ?? null] : e))).toEqual([
      ['packages[0] Indicators[0]', 3, 'old:1: a CybOX SocketAddressObjectType is not an Indicator Bulwark holds'],
      ['packages[0] Indicators[1]', 1, null],
      ['packages[0] Indicators[2]', 1, 'old:3: an address of category mac is not an Indicator Bulwark holds'],
      ['packages[0] Indicators[3]', 0, 'old:4: an Observable_Composition with operator AND is not read (only OR)'],
      ['packages[0] Indicators[4]', 2, null],
    ])
    const items = indicatorsOf(events)
    expect(items.map(keyOf)).toEqual([
      { type: 'Host', values: ['old.example'] },
      { type: 'Registry Key', values: ['HKEY_LOCAL_MACHINE\\Software\\Run', null, null] },
      { type: 'Mutex', values: ['evil-mutex'] },
      { type: 'User Agent', values: ['EvilBot/1.0'] },
      { type: 'ASN', values: ['ASN64500'] },
      { type: 'File', values: [MD5, null, null] },
      { type: 'File', values: [MD5.replace('D', 'E'), null, null] },
    ])
    // A list of one hash is one File each, and what the file says beside it goes with each.
    expect(items[5].attribute).toEqual([
      { type: 'External ID', value: 'old:5' },
      { type: 'Additional Analysis and Context', value: 'SSDEEP = 3:abc:def' },
      { type: 'Additional Analysis and Context', value: 'Size_In_Bytes = 1024' },
    ])
    expect(items[6].attribute).toEqual(items[5].attribute)
    expect(items[0]).not.toHaveProperty('confidence')
    expect(items[0].active).toBe(true)
  })
})

describe('what is no STIX 1 to read', () => {
  it('an empty input (a page of no packages) gives no elements and no error', async () => {
    expect(await readEvents('')).toEqual([])
    expect(await readEvents('  \n\t')).toEqual([])
  })

  it('refuses a DTD before anything is read, and after what was', async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><stix:STIX_Package xmlns:stix="http://stix.mitre.org/stix-1">&xxe;</stix:STIX_Package>`
    const refused = await readEvents(xxe).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(DomainError)
    expect((refused as DomainError).message).toMatch(/^feed\.xml: "<!D.*is a DTD or entity declaration.*not accepted/)
    const pkg = renderPackage('https://bulwark.example', 'Owner', WRITTEN.slice(0, 1))
    const events = await readEvents(`${pkg}<!ENTITY a "b">${pkg}`)
    expect(events).toHaveLength(2)
    expect(events[1]).toEqual({ kind: 'input', error: expect.stringMatching(/DTD or entity declaration/) })
  })

  it('malformed XML: an input error after the elements before it', async () => {
    const pkg = renderPackage('https://bulwark.example', 'Owner', WRITTEN.slice(0, 2))
    const broken = `${pkg}<stix:STIX_Package xmlns:stix="http://stix.mitre.org/stix-1"><stix:Indicators><stix:Indicator></stix:Indicators>`
    const events = await readEvents(broken, 7)
    expect(events.map((e) => e.kind)).toEqual(['element', 'element', 'input'])
    expect(events[2]).toEqual({ kind: 'input', error: '</stix:Indicators> closes <stix:Indicator>' })
    const cut = await readEvents(pkg.slice(0, pkg.indexOf('</stix:Indicators>')))
    expect(cut.at(-1)).toEqual({ kind: 'input', error: 'the input ends inside <stix:Indicators>' })
  })

  it('an item that is not well-formed inside is its own error; the next is read', async () => {
    const text = FOREIGN.replace(
      '<indicator:Title>Dropper</indicator:Title>',
      '<indicator:Title a=1>Dropper</indicator:Title>',
    )
    const events = await readEvents(text)
    const bad = events.find((e) => e.kind === 'element' && e.where === 'packages[0] Indicators[0]')
    expect(bad).toMatchObject({ indicators: [], error: expect.stringMatching(/^not well-formed XML/) })
    expect(indicatorsOf(events)).toHaveLength(5)
  })

  it('refuses XML that is not STIX 1, before anything is read', async () => {
    await expect(readEvents('<rss version="2.0"><channel/></rss>')).rejects.toThrow(
      'feed.xml: a <rss> element where a STIX_Package should be: this is not STIX 1',
    )
    await expect(readEvents('192.0.2.1\n')).rejects.toThrow('feed.xml: text outside an element: "192.0.2.1"')
  })

  it(`reports an item longer than ${MAX_ITEM_CHARS} characters instead of holding it`, async () => {
    const long = FOREIGN.replace(
      '<indicator:Title>Phisher</indicator:Title>',
      `<indicator:Title>${'x'.repeat(MAX_ITEM_CHARS)}</indicator:Title>`,
    )
    const events = await readEvents(long, 65_536)
    expect(events.find((e) => e.kind === 'element' && e.where === 'packages[0] Indicators[2]')).toEqual({
      kind: 'element',
      where: 'packages[0] Indicators[2]',
      indicators: [],
      error: `longer than ${MAX_ITEM_CHARS} characters`,
    })
    expect(events.at(-1)).toMatchObject({ where: 'packages[0] TTPs[0]', skipped: 'TTP' })
  })
})

describe('the stix1 format', () => {
  it('is `--format stix1`, any .xml file, and a file without extension whose head is a STIX_Package', () => {
    expect(findFormat('stix1')).toBe(stix1Packages)
    expect(detectFormat('feed.xml', () => '').name).toBe('stix1')
    expect(detectFormat('feed', () => FOREIGN.slice(0, 4096)).name).toBe('stix1')
    expect(detectFormat('feed', () => '<stix:STIX_Package xmlns:stix="x">').name).toBe('stix1')
    expect(detectFormat('feed', () => '<rss>').name).toBe('list')
  })
})
