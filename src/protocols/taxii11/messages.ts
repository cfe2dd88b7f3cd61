/**
 * TAXII 1.1 XML messages: the requests Bulwark reads (parsed with entity and DTD processing
 * refused up front by xml-guard.ts) and the responses it writes (built as text, every value
 * escaped). Shapes follow TAXII_XMLMessageBinding_Schema_11.xsd, element order included.
 */
import { randomUUID } from 'node:crypto'
import { XMLParser } from 'fast-xml-parser'
import { parseApiTime } from '../../core/time.js'
import {
  CONTENT_BINDING_STIX_111,
  MESSAGE_BINDING,
  PROTOCOL_HTTPS,
  SERVICES,
  SERVICES_VERSION,
  type ServiceType,
  type StatusType,
  TAXII_NS,
} from './constants.js'
import { Taxii11Error, badMessage } from './errors.js'
import { guardXml } from './xml-guard.js'
import { xmlAttr, xmlText } from '../../formats/xml-text.js'

export interface PollRequest {
  type: 'Poll_Request'
  messageId: string
  collectionName: string
  /** Stored-time form (UTC, milliseconds); absent when the element is absent. */
  begin?: string
  end?: string
  subscriptionId?: string
  responseType: 'FULL' | 'COUNT_ONLY'
  contentBindings: string[]
  hasQuery: boolean
  hasDeliveryParameters: boolean
}

export interface PollFulfillment {
  type: 'Poll_Fulfillment'
  messageId: string
  collectionName: string
  resultId: string
  partNumber: number
}

export type TaxiiRequest =
  | { type: 'Discovery_Request' | 'Collection_Information_Request'; messageId: string }
  | PollRequest
  | PollFulfillment
  | { type: 'Other'; name: string; messageId: string }

type Node = Record<string, unknown>

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name) => name === 'Content_Binding' || name === 'Subtype',
})

/** The root element's local name and namespace, read from the text (removeNSPrefix drops them). */
function rootOf(text: string): { name: string; namespace: string | undefined } {
  const match = /<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)([^>]*)>/.exec(
    text.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ''),
  )
  if (!match) throw badMessage('Malformed XML: no root element')
  const prefix = match[1] ? match[1].slice(0, -1) : ''
  const declaration = new RegExp(`xmlns${prefix ? `:${prefix}` : ''}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(match[3])
  return { name: match[2], namespace: declaration ? (declaration[2] ?? declaration[3]) : undefined }
}

/**
 * Reads a TAXII 1.1 request. The message id is returned as soon as it is known, so that a
 * later refusal can still name it in `in_response_to` (see `messageIdOf`).
 */
export function parseTaxiiMessage(text: string, onMessageId: (id: string) => void = () => {}): TaxiiRequest {
  guardXml(text)
  const root = rootOf(text)
  let doc: Node
  try {
    doc = parser.parse(text, true) as Node
  } catch (error) {
    throw badMessage(`Malformed XML: ${(error as Error).message.split('\n')[0]}`)
  }
  const body = doc[root.name]
  const node: Node = body && typeof body === 'object' ? (body as Node) : {}
  const messageId = attr(node, 'message_id')
  if (messageId) onMessageId(messageId)
  if (root.namespace !== TAXII_NS) {
    throw new Taxii11Error('UNSUPPORTED_MESSAGE', `The message is not in the TAXII 1.1 XML namespace (${TAXII_NS})`, {
      SUPPORTED_BINDING: [MESSAGE_BINDING],
    })
  }
  if (!messageId) throw badMessage(`${root.name} has no message_id`)
  switch (root.name) {
    case 'Discovery_Request':
    case 'Collection_Information_Request':
      return { type: root.name, messageId }
    case 'Poll_Request':
      return readPollRequest(node, messageId)
    case 'Poll_Fulfillment':
      return readPollFulfillment(node, messageId)
    default:
      return { type: 'Other', name: root.name, messageId }
  }
}

function attr(node: Node, name: string): string | undefined {
  const value = node[`@${name}`]
  return typeof value === 'string' ? value : undefined
}

function child(node: Node, name: string): unknown {
  return node[name]
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (value && typeof value === 'object' && typeof (value as Node)['#text'] === 'string')
    return (value as Node)['#text'] as string
  return undefined
}

function timestamp(node: Node, name: string): string | undefined {
  const raw = child(node, name)
  if (raw === undefined) return undefined
  const text = textOf(raw)
  const parsed = text && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(text) ? parseApiTime(text) : null
  if (!parsed) throw badMessage(`${name} is not an xs:dateTime: '${text ?? ''}'`)
  return parsed
}

function readPollRequest(node: Node, messageId: string): PollRequest {
  const collectionName = attr(node, 'collection_name')
  if (!collectionName) throw badMessage('Poll_Request has no collection_name')
  const params = child(node, 'Poll_Parameters') as Node | undefined
  const subscriptionId = textOf(child(node, 'Subscription_ID'))
  if (!params && subscriptionId === undefined) throw badMessage('Poll_Request needs Subscription_ID or Poll_Parameters')
  const p: Node = params && typeof params === 'object' ? params : {}
  const responseType = textOf(child(p, 'Response_Type')) ?? 'FULL'
  if (responseType !== 'FULL' && responseType !== 'COUNT_ONLY')
    throw badMessage(`Response_Type must be FULL or COUNT_ONLY, not '${responseType}'`)
  const bindings = (child(p, 'Content_Binding') as Node[] | undefined) ?? []
  return {
    type: 'Poll_Request',
    messageId,
    collectionName,
    subscriptionId,
    responseType,
    begin: timestamp(node, 'Exclusive_Begin_Timestamp'),
    end: timestamp(node, 'Inclusive_End_Timestamp'),
    contentBindings: bindings.map((b) => (b && typeof b === 'object' ? attr(b, 'binding_id') : undefined) ?? ''),
    hasQuery: child(p, 'Query') !== undefined,
    hasDeliveryParameters: child(p, 'Delivery_Parameters') !== undefined,
  }
}

function readPollFulfillment(node: Node, messageId: string): PollFulfillment {
  const collectionName = attr(node, 'collection_name')
  const resultId = attr(node, 'result_id')
  const part = attr(node, 'result_part_number')
  if (!collectionName || !resultId || !part)
    throw badMessage('Poll_Fulfillment needs collection_name, result_id and result_part_number')
  if (!/^\d{1,9}$/.test(part) || Number(part) < 1)
    throw badMessage(`result_part_number must be a positive integer, not '${part}'`)
  return { type: 'Poll_Fulfillment', messageId, collectionName, resultId, partNumber: Number(part) }
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'

function open(name: string, attrs: Record<string, string | undefined>, empty = false): string {
  let out = `<taxii_11:${name}`
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) out += ` ${k}="${xmlAttr(v)}"`
  return `${out}${empty ? '/>' : '>'}`
}

function el(name: string, text: string, attrs: Record<string, string | undefined> = {}): string {
  return `${open(name, attrs)}${xmlText(text)}</taxii_11:${name}>`
}

function rootAttrs(inResponseTo: string): Record<string, string> {
  return { 'xmlns:taxii_11': TAXII_NS, message_id: randomUUID(), in_response_to: inResponseTo }
}

export function renderStatusMessage(
  inResponseTo: string,
  statusType: StatusType,
  message: string,
  details: Record<string, string[]> = {},
): string {
  const entries = Object.entries(details)
  const detail = entries.length
    ? `<taxii_11:Status_Detail>${entries.map(([name, values]) => `${open('Detail', { name })}${values.map((v) => xmlText(v)).join(' ')}</taxii_11:Detail>`).join('')}</taxii_11:Status_Detail>`
    : ''
  return `${DECLARATION}${open('Status_Message', { ...rootAttrs(inResponseTo), status_type: statusType })}${detail}${el('Message', message)}</taxii_11:Status_Message>`
}

export function serviceAddress(publicUrl: string, service: ServiceType): string {
  return `${publicUrl}/api/taxii/${SERVICES[service].path}/`
}

const SERVICE_DESCRIPTIONS: Record<ServiceType, string> = {
  DISCOVERY: 'Lists the TAXII 1.1 services of this server.',
  COLLECTION_MANAGEMENT: 'Lists one DATA_FEED collection per owner your account may read.',
  POLL: "Serves a collection's Indicators as STIX 1.1.1, for a window of at most 24 hours, in result parts fetched with Poll_Fulfillment.",
}

export function renderDiscoveryResponse(inResponseTo: string, publicUrl: string): string {
  const instances = (Object.keys(SERVICES) as ServiceType[]).map((type) =>
    [
      open('Service_Instance', { service_type: type, service_version: SERVICES_VERSION, available: 'true' }),
      el('Protocol_Binding', PROTOCOL_HTTPS),
      el('Address', serviceAddress(publicUrl, type)),
      el('Message_Binding', MESSAGE_BINDING),
      type === 'POLL' ? open('Content_Binding', { binding_id: CONTENT_BINDING_STIX_111 }, true) : '',
      el('Message', SERVICE_DESCRIPTIONS[type]),
      '</taxii_11:Service_Instance>',
    ].join(''),
  )
  return `${DECLARATION}${open('Discovery_Response', rootAttrs(inResponseTo))}${instances.join('')}</taxii_11:Discovery_Response>`
}

export interface CollectionInfo {
  name: string
  description: string
}

export function renderCollectionInformationResponse(
  inResponseTo: string,
  publicUrl: string,
  collections: CollectionInfo[],
): string {
  const polling = [
    '<taxii_11:Polling_Service>',
    el('Protocol_Binding', PROTOCOL_HTTPS),
    el('Address', serviceAddress(publicUrl, 'POLL')),
    el('Message_Binding', MESSAGE_BINDING),
    '</taxii_11:Polling_Service>',
  ].join('')
  const items = collections.map((c) =>
    [
      open('Collection', { collection_name: c.name, collection_type: 'DATA_FEED', available: 'true' }),
      el('Description', c.description),
      open('Content_Binding', { binding_id: CONTENT_BINDING_STIX_111 }, true),
      polling,
      '</taxii_11:Collection>',
    ].join(''),
  )
  return `${DECLARATION}${open('Collection_Information_Response', rootAttrs(inResponseTo))}${items.join('')}</taxii_11:Collection_Information_Response>`
}

export interface PollResponseHead {
  inResponseTo: string
  collectionName: string
  more: boolean
  resultId?: string
  partNumber: number
  begin?: string
  end: string
  recordCount: number
}

/** Everything before the first Content_Block; the blocks and `pollResponseTail` follow. */
export function renderPollResponseHead(h: PollResponseHead): string {
  return [
    DECLARATION,
    open('Poll_Response', {
      ...rootAttrs(h.inResponseTo),
      collection_name: h.collectionName,
      more: String(h.more),
      result_id: h.resultId,
      result_part_number: String(h.partNumber),
    }),
    h.begin ? el('Exclusive_Begin_Timestamp', h.begin) : '',
    el('Inclusive_End_Timestamp', h.end),
    el('Record_Count', String(h.recordCount), { partial_count: 'false' }),
  ].join('')
}

export const POLL_RESPONSE_TAIL = '</taxii_11:Poll_Response>'

/** One Content_Block around an already rendered STIX package. */
export function renderContentBlock(stixPackage: string, timestampLabel: string): string {
  return `<taxii_11:Content_Block><taxii_11:Content_Binding binding_id="${CONTENT_BINDING_STIX_111}"/><taxii_11:Content>${stixPackage}</taxii_11:Content>${el('Timestamp_Label', timestampLabel)}</taxii_11:Content_Block>`
}
