/**
 * `bulwark import` of a STIX 1.x file (`.xml`, format stix1) run in process over a test app's
 * database: what the reader gives (src/formats/stix1/read.test.ts) is what the batch job stores —
 * values, dates, TLP labels, ids — and a second import of the same versions writes nothing
 * (sourceVersions).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestAccount, type TestApp, createTestApp } from '../../test/harness.js'
import { importCommand } from './import.js'

const MD5 = 'D41D8CD98F00B204E9800998ECF8427E'
const SHA1 = 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709'
const SHA256 = 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'

/** As other servers write it: a header TLP, bare observables (one a list), an indicator with its own TLP, a Contains. */
const FOREIGN = `<?xml version="1.0" encoding="UTF-8"?>
<stix:STIX_Package xmlns:stix="http://stix.mitre.org/stix-1" xmlns:indicator="http://stix.mitre.org/Indicator-2"
  xmlns:stixCommon="http://stix.mitre.org/common-1" xmlns:marking="http://data-marking.mitre.org/Marking-1"
  xmlns:tlp="http://data-marking.mitre.org/extensions/MarkingStructure#TLP-1" xmlns:cybox="http://cybox.mitre.org/cybox-2"
  xmlns:cyboxCommon="http://cybox.mitre.org/common-2" xmlns:AddressObject="http://cybox.mitre.org/objects#AddressObject-2"
  xmlns:FileObject="http://cybox.mitre.org/objects#FileObject-2" xmlns:URIObject="http://cybox.mitre.org/objects#URIObject-2"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="acme:Package-1" version="1.2" timestamp="2026-05-01T12:00:00+02:00">
  <stix:STIX_Header><stix:Handling><marking:Marking>
    <marking:Marking_Structure xsi:type="tlp:TLPMarkingStructureType" color="GREEN"/>
  </marking:Marking></stix:Handling></stix:STIX_Header>
  <stix:Observables cybox_major_version="2" cybox_minor_version="1">
    <cybox:Observable id="acme:Observable-list"><cybox:Object>
      <cybox:Properties xsi:type="AddressObject:AddressObjectType" category="ipv4-addr">
        <AddressObject:Address_Value condition="Equals" apply_condition="ANY">192.0.2.1##comma##192.0.2.2</AddressObject:Address_Value>
      </cybox:Properties>
    </cybox:Object></cybox:Observable>
  </stix:Observables>
  <stix:Indicators>
    <stix:Indicator xsi:type="indicator:IndicatorType" id="acme:indicator-file" timestamp="2026-05-01T09:00:00Z">
      <indicator:Title>Dropper</indicator:Title>
      <indicator:Valid_Time_Position>
        <indicator:Start_Time>2026-04-01T00:00:00Z</indicator:Start_Time>
        <indicator:End_Time>2999-12-31T00:00:00Z</indicator:End_Time>
      </indicator:Valid_Time_Position>
      <indicator:Observable><cybox:Object><cybox:Properties xsi:type="FileObject:FileObjectType"><FileObject:Hashes>
        <cyboxCommon:Hash><cyboxCommon:Type>MD5</cyboxCommon:Type><cyboxCommon:Simple_Hash_Value>${MD5}</cyboxCommon:Simple_Hash_Value></cyboxCommon:Hash>
        <cyboxCommon:Hash><cyboxCommon:Type>SHA1</cyboxCommon:Type><cyboxCommon:Simple_Hash_Value>${SHA1}</cyboxCommon:Simple_Hash_Value></cyboxCommon:Hash>
        <cyboxCommon:Hash><cyboxCommon:Type>SHA256</cyboxCommon:Type><cyboxCommon:Simple_Hash_Value>${SHA256}</cyboxCommon:Simple_Hash_Value></cyboxCommon:Hash>
      </FileObject:Hashes></cybox:Properties></cybox:Object></indicator:Observable>
      <indicator:Handling><marking:Marking>
        <marking:Marking_Structure xsi:type="tlp:TLPMarkingStructureType" color="AMBER"/>
      </marking:Marking></indicator:Handling>
      <indicator:Confidence><stixCommon:Value>Medium</stixCommon:Value></indicator:Confidence>
    </stix:Indicator>
    <stix:Indicator xsi:type="indicator:IndicatorType" id="acme:indicator-contains">
      <indicator:Observable><cybox:Object><cybox:Properties xsi:type="URIObject:URIObjectType" type="URL">
        <URIObject:Value condition="Contains">/wp-admin/</URIObject:Value>
      </cybox:Properties></cybox:Object></indicator:Observable>
    </stix:Indicator>
  </stix:Indicators>
</stix:STIX_Package>
`

describe('bulwark import of a .xml file', () => {
  let t: TestApp
  let writer: TestAccount
  let dir: string
  let ownerId: number
  beforeAll(async () => {
    t = await createTestApp()
    dir = mkdtempSync(join(tmpdir(), 'bulwark-stix1-'))
    ownerId = await t.createOwner('STIX 1 feed', 'Source')
    writer = await t.createAccount({ role: 'Standard User', memberships: { 'STIX 1 feed': 'Editor' } })
  }, 120_000)
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await t?.close()
  })

  it('stores what the reader gives (values, dates, TLP, External ID) and writes nothing when imported again', async () => {
    const file = join(dir, 'feed.xml')
    writeFileSync(file, FOREIGN)
    const run = () => importCommand(t.store, t.services, { file, owner: 'STIX 1 feed', userName: writer.userName })
    const first = await run()
    expect(first.format).toBe('stix1')
    expect(first.errors).toEqual([
      {
        item: 'packages[0] Indicators[1]',
        message:
          'acme:indicator-contains: URIObject:Value condition="Contains" is not read (only Equals makes an Indicator)',
      },
    ])
    expect(first.indicators).toMatchObject({ created: 3, refused: 0 })
    const rows = await t.store.db
      .selectFrom('indicator')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .orderBy('id')
      .execute()
    expect(rows.map((r) => `${r.type} ${r.summary}`)).toEqual([
      'Address 192.0.2.1',
      'Address 192.0.2.2',
      `File ${MD5} : ${SHA1} : ${SHA256}`,
    ])
    const dropper = rows[2]
    expect(Boolean(dropper.active)).toBe(true)
    expect(dropper).toMatchObject({
      confidence: 50,
      description: 'Dropper',
      first_seen: '2026-04-01T00:00:00.000Z',
      external_date_expires: '2999-12-31T00:00:00.000Z',
      external_last_modified: '2026-05-01T09:00:00.000Z',
    })
    const attributes = await t.store.db
      .selectFrom('attribute')
      .innerJoin('attribute_type', 'attribute_type.id', 'attribute.type_id')
      .select(['attribute_type.name as type', 'attribute.value'])
      .where('attribute.item_kind', '=', 'indicator')
      .where('attribute.item_id', '=', dropper.id)
      .execute()
    expect(attributes).toEqual([{ type: 'External ID', value: 'acme:indicator-file' }])
    const labels = await t.store.db
      .selectFrom('item_security_label')
      .innerJoin('security_label', 'security_label.id', 'item_security_label.label_id')
      .select(['item_security_label.item_id', 'security_label.name'])
      .where('item_kind', '=', 'indicator')
      .where(
        'item_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('item_id')
      .execute()
    expect(labels.map((l) => l.name)).toEqual(['TLP:GREEN', 'TLP:GREEN', 'TLP:AMBER'])
    const again = await run()
    expect(again.indicators).toMatchObject({ created: 0, updated: 0, refused: 0 })
    const after = await t.store.db
      .selectFrom('indicator')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .orderBy('id')
      .execute()
    expect(after.map((r) => r.last_modified)).toEqual(rows.map((r) => r.last_modified))
  }, 120_000)
})
