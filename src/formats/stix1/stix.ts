/**
 * Indicators as STIX 1.1.1 packages with CybOX 2.1 observables (../shared/research/taxii-stix.md §3.4):
 * the CybOX object per Indicator type, the STIX Indicator Type vocabulary, confidence, valid
 * time, TLP and other Security Labels as Handling, the owner as Producer. Built as text, every
 * value escaped; nothing here reads the database.
 */
import { randomUUID } from 'node:crypto'
import type { FeedIndicator } from '../../domain/listing/feed.js'
import { xmlAttr, xmlText } from '../xml-text.js'

const NAMESPACES: Record<string, string> = {
  stix: 'http://stix.mitre.org/stix-1',
  indicator: 'http://stix.mitre.org/Indicator-2',
  stixCommon: 'http://stix.mitre.org/common-1',
  stixVocabs: 'http://stix.mitre.org/default_vocabularies-1',
  marking: 'http://data-marking.mitre.org/Marking-1',
  tlpMarking: 'http://data-marking.mitre.org/extensions/MarkingStructure#TLP-1',
  simpleMarking: 'http://data-marking.mitre.org/extensions/MarkingStructure#Simple-1',
  cybox: 'http://cybox.mitre.org/cybox-2',
  cyboxCommon: 'http://cybox.mitre.org/common-2',
  cyboxVocabs: 'http://cybox.mitre.org/default_vocabularies-2',
  AddressObj: 'http://cybox.mitre.org/objects#AddressObject-2',
  ASObj: 'http://cybox.mitre.org/objects#ASObject-1',
  DomainNameObj: 'http://cybox.mitre.org/objects#DomainNameObject-1',
  FileObj: 'http://cybox.mitre.org/objects#FileObject-2',
  HTTPSessionObj: 'http://cybox.mitre.org/objects#HTTPSessionObject-2',
  MutexObj: 'http://cybox.mitre.org/objects#MutexObject-2',
  URIObj: 'http://cybox.mitre.org/objects#URIObject-2',
  WinRegistryKeyObj: 'http://cybox.mitre.org/objects#WinRegistryKeyObject-2',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
}

/** The schema file of each CybOX object namespace (for validation in tests). */
export const CYBOX_OBJECT_SCHEMAS: Record<string, string> = {
  AddressObj: 'Address_Object.xsd',
  ASObj: 'AS_Object.xsd',
  DomainNameObj: 'Domain_Name_Object.xsd',
  FileObj: 'File_Object.xsd',
  HTTPSessionObj: 'HTTP_Session_Object.xsd',
  MutexObj: 'Mutex_Object.xsd',
  URIObj: 'URI_Object.xsd',
  WinRegistryKeyObj: 'Win_Registry_Key_Object.xsd',
}
export const STIX_NAMESPACES = NAMESPACES

/** STIX IndicatorTypeVocab-1.1 term per Indicator type. */
const INDICATOR_TYPE_TERM: Record<string, string> = {
  Address: 'IP Watchlist',
  CIDR: 'IP Watchlist',
  ASN: 'IP Watchlist',
  Host: 'Domain Watchlist',
  URL: 'URL Watchlist',
  File: 'File Hash Watchlist',
  EmailAddress: 'Malicious E-mail',
  Mutex: 'Malware Artifacts',
  'Registry Key': 'Malware Artifacts',
  'User Agent': 'Malware Artifacts',
}

const equals = (prefix: string, name: string, value: string) =>
  `<${prefix}:${name} condition="Equals">${xmlText(value)}</${prefix}:${name}>`
const properties = (type: string, inner: string, attrs = '') =>
  `<cybox:Properties xsi:type="${type}"${attrs}>${inner}</cybox:Properties>`

const HASH_NAMES = ['MD5', 'SHA1', 'SHA256'] as const

const HIVES = new Set([
  'HKEY_CLASSES_ROOT',
  'HKEY_CURRENT_CONFIG',
  'HKEY_CURRENT_USER',
  'HKEY_LOCAL_MACHINE',
  'HKEY_USERS',
  'HKEY_CURRENT_USER_LOCAL_SETTINGS',
  'HKEY_PERFORMANCE_DATA',
  'HKEY_PERFORMANCE_NLSTEXT',
  'HKEY_PERFORMANCE_TEXT',
])
const HIVE_ABBREVIATIONS: Record<string, string> = {
  HKCR: 'HKEY_CLASSES_ROOT',
  HKCC: 'HKEY_CURRENT_CONFIG',
  HKCU: 'HKEY_CURRENT_USER',
  HKLM: 'HKEY_LOCAL_MACHINE',
  HKU: 'HKEY_USERS',
}
/** CybOX's RegistryDatatypeEnum has no *_LITTLE_ENDIAN: those are the plain types (Windows is little-endian). */
const REGISTRY_DATATYPE: Record<string, string> = {
  REG_DWORD_LITTLE_ENDIAN: 'REG_DWORD',
  REG_QWORD_LITTLE_ENDIAN: 'REG_QWORD',
}

function registryKey(keyName: string, valueName: string | null, valueType: string | null): string {
  const slash = keyName.indexOf('\\')
  const head = (slash === -1 ? keyName : keyName.slice(0, slash)).toUpperCase()
  const hive = HIVES.has(head) ? head : HIVE_ABBREVIATIONS[head]
  const key = hive ? keyName.slice(slash === -1 ? keyName.length : slash + 1) : keyName
  let inner = key ? equals('WinRegistryKeyObj', 'Key', key) : ''
  if (hive) inner += `<WinRegistryKeyObj:Hive condition="Equals">${hive}</WinRegistryKeyObj:Hive>`
  if (valueName || valueType) {
    inner += '<WinRegistryKeyObj:Values><WinRegistryKeyObj:Value>'
    if (valueName) inner += equals('WinRegistryKeyObj', 'Name', valueName)
    if (valueType)
      inner += `<WinRegistryKeyObj:Datatype condition="Equals">${xmlText(REGISTRY_DATATYPE[valueType] ?? valueType)}</WinRegistryKeyObj:Datatype>`
    inner += '</WinRegistryKeyObj:Value></WinRegistryKeyObj:Values>'
  }
  return properties('WinRegistryKeyObj:WindowsRegistryKeyObjectType', inner)
}

/** The cybox:Properties of one Indicator, by its type. */
export function cyboxProperties(type: string, values: readonly (string | null)[], summary: string): string {
  const v = values[0] ?? summary
  switch (type) {
    case 'Address':
      return properties(
        'AddressObj:AddressObjectType',
        equals('AddressObj', 'Address_Value', v),
        ` category="${v.includes(':') ? 'ipv6-addr' : 'ipv4-addr'}"`,
      )
    case 'CIDR':
      return properties(
        'AddressObj:AddressObjectType',
        equals('AddressObj', 'Address_Value', v),
        ` category="${v.includes(':') ? 'ipv6-net' : 'ipv4-net'}"`,
      )
    case 'EmailAddress':
      return properties('AddressObj:AddressObjectType', equals('AddressObj', 'Address_Value', v), ' category="e-mail"')
    case 'Host':
      return properties('DomainNameObj:DomainNameObjectType', equals('DomainNameObj', 'Value', v), ' type="FQDN"')
    case 'URL':
      return properties('URIObj:URIObjectType', equals('URIObj', 'Value', v), ' type="URL"')
    case 'ASN':
      return properties('ASObj:ASObjectType', equals('ASObj', 'Number', v.replace(/^ASN?/i, '')))
    case 'Mutex':
      return properties('MutexObj:MutexObjectType', equals('MutexObj', 'Name', v), ' named="true"')
    case 'User Agent':
      return properties(
        'HTTPSessionObj:HTTPSessionObjectType',
        `<HTTPSessionObj:HTTP_Request_Response><HTTPSessionObj:HTTP_Client_Request><HTTPSessionObj:HTTP_Request_Header><HTTPSessionObj:Parsed_Header>${equals('HTTPSessionObj', 'User_Agent', v)}</HTTPSessionObj:Parsed_Header></HTTPSessionObj:HTTP_Request_Header></HTTPSessionObj:HTTP_Client_Request></HTTPSessionObj:HTTP_Request_Response>`,
      )
    case 'Registry Key':
      return registryKey(v, values[1] ?? null, values[2] ?? null)
    case 'File': {
      const hashes = values
        .slice(0, 3)
        .map((hash, i) =>
          hash
            ? `<cyboxCommon:Hash><cyboxCommon:Type xsi:type="cyboxVocabs:HashNameVocab-1.0">${HASH_NAMES[i]}</cyboxCommon:Type><cyboxCommon:Simple_Hash_Value condition="Equals">${xmlText(hash)}</cyboxCommon:Simple_Hash_Value></cyboxCommon:Hash>`
            : '',
        )
        .join('')
      return properties('FileObj:FileObjectType', `<FileObj:Hashes>${hashes}</FileObj:Hashes>`)
    }
    default:
      throw new Error(`No CybOX mapping for Indicator type ${type}`)
  }
}

function confidenceTerm(confidence: number): string {
  return confidence >= 67 ? 'High' : confidence >= 34 ? 'Medium' : 'Low'
}

const TLP_COLOR: Record<string, string> = {
  'TLP:RED': 'RED',
  'TLP:AMBER+STRICT': 'AMBER',
  'TLP:AMBER': 'AMBER',
  'TLP:GREEN': 'GREEN',
  'TLP:CLEAR': 'WHITE',
  'TLP:WHITE': 'WHITE',
}

function handling(labels: readonly string[]): string {
  if (!labels.length) return ''
  const structures = labels
    .map((label) => {
      const color = TLP_COLOR[label.toUpperCase()]
      return color
        ? `<marking:Marking_Structure xsi:type="tlpMarking:TLPMarkingStructureType" color="${color}"/>`
        : `<marking:Marking_Structure xsi:type="simpleMarking:SimpleMarkingStructureType"><simpleMarking:Statement>${xmlText(label)}</simpleMarking:Statement></marking:Marking_Structure>`
    })
    .join('')
  return `<indicator:Handling><marking:Marking>${structures}</marking:Marking></indicator:Handling>`
}

/** `2026-11-24T10:00:00.123Z` is already xs:dateTime; kept as stored so nothing is rounded. */
export function renderIndicator(i: FeedIndicator, ownerName: string): string {
  const parts = [
    `<stix:Indicator xsi:type="indicator:IndicatorType" id="bulwark:indicator-${i.id}" timestamp="${i.lastModified}">`,
    `<indicator:Title>${xmlText(i.summary)}</indicator:Title>`,
    `<indicator:Type xsi:type="stixVocabs:IndicatorTypeVocab-1.1">${INDICATOR_TYPE_TERM[i.type]}</indicator:Type>`,
  ]
  if (i.description) parts.push(`<indicator:Description>${xmlText(i.description)}</indicator:Description>`)
  parts.push(
    `<indicator:Valid_Time_Position><indicator:Start_Time precision="second">${i.dateAdded}</indicator:Start_Time>${i.expires ? `<indicator:End_Time precision="second">${i.expires}</indicator:End_Time>` : ''}</indicator:Valid_Time_Position>`,
  )
  parts.push(
    `<indicator:Observable id="bulwark:Observable-${i.id}"><cybox:Object id="bulwark:Object-${i.id}">${cyboxProperties(i.type, i.values, i.summary)}</cybox:Object></indicator:Observable>`,
  )
  parts.push(handling(i.securityLabels))
  if (i.confidence !== null) {
    parts.push(
      `<indicator:Confidence><stixCommon:Value xsi:type="stixVocabs:HighMediumLowVocab-1.0">${confidenceTerm(i.confidence)}</stixCommon:Value></indicator:Confidence>`,
    )
  }
  parts.push(
    `<indicator:Producer><stixCommon:Identity><stixCommon:Name>${xmlText(ownerName)}</stixCommon:Name></stixCommon:Identity></indicator:Producer>`,
  )
  parts.push('</stix:Indicator>')
  return parts.join('')
}

/** The opening of a package: namespaces, header. `idNamespace` is the producer namespace of every id. */
export function renderPackageHead(idNamespace: string, ownerName: string, timestamp: string): string {
  const xmlns = Object.entries(NAMESPACES)
    .map(([prefix, uri]) => ` xmlns:${prefix}="${xmlAttr(uri)}"`)
    .join('')
  return `<stix:STIX_Package${xmlns} xmlns:bulwark="${xmlAttr(idNamespace)}" id="bulwark:Package-${randomUUID()}" version="1.1.1" timestamp="${timestamp}"><stix:STIX_Header><stix:Title>${xmlText(`Indicators of ${ownerName}`)}</stix:Title><stix:Package_Intent xsi:type="stixVocabs:PackageIntentVocab-1.0">Indicators</stix:Package_Intent></stix:STIX_Header><stix:Indicators>`
}

export const PACKAGE_TAIL = '</stix:Indicators></stix:STIX_Package>'

export function renderPackage(idNamespace: string, ownerName: string, indicators: readonly FeedIndicator[]): string {
  const timestamp = indicators.at(-1)?.lastModified ?? new Date().toISOString()
  return (
    renderPackageHead(idNamespace, ownerName, timestamp) +
    indicators.map((i) => renderIndicator(i, ownerName)).join('') +
    PACKAGE_TAIL
  )
}
