/**
 * Test support for the TAXII 1.1 tests: requests with the binding headers and Basic
 * credentials through app.inject, and responses read back with namespace prefixes removed.
 */
import { XMLParser } from 'fast-xml-parser'
import type { LightMyRequestResponse } from 'fastify'
import type { TestApp } from './harness.js'
import { xmlAttr } from '../formats/xml-text.js'
import { MESSAGE_BINDING, PROTOCOL_HTTPS, SERVICES_VERSION, TAXII_NS } from '../protocols/taxii11/constants.js'

export interface Credentials {
  userName: string
  password: string
}

export const BINDING_REQUEST_HEADERS: Record<string, string> = {
  'content-type': 'application/xml',
  accept: 'application/xml',
  'x-taxii-content-type': MESSAGE_BINDING,
  'x-taxii-accept': MESSAGE_BINDING,
  'x-taxii-services': SERVICES_VERSION,
  'x-taxii-protocol': PROTOCOL_HTTPS,
}

export function basic(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.userName}:${c.password}`).toString('base64')}`
}

export function taxiiRequest(
  t: TestApp,
  path: string,
  body: string,
  as: Credentials | null,
  headers: Record<string, string | undefined> = {},
): Promise<LightMyRequestResponse> {
  const all: Record<string, string> = { ...BINDING_REQUEST_HEADERS, 'x-forwarded-proto': 'https' }
  if (as) all.authorization = basic(as)
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete all[k]
    else all[k] = v
  }
  return t.app.inject({ method: 'POST', url: path, payload: body, headers: all })
}

export const message = (name: string, attrs: Record<string, string>, inner = '') =>
  `<?xml version="1.0" encoding="UTF-8"?><taxii_11:${name} xmlns:taxii_11="${TAXII_NS}"${Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${xmlAttr(v)}"`)
    .join('')}>${inner}</taxii_11:${name}>`

export function pollRequest(
  id: string,
  collection: string,
  begin?: string,
  end?: string,
  params = '<taxii_11:Response_Type>FULL</taxii_11:Response_Type>',
): string {
  return message(
    'Poll_Request',
    { message_id: id, collection_name: collection },
    `${begin ? `<taxii_11:Exclusive_Begin_Timestamp>${begin}</taxii_11:Exclusive_Begin_Timestamp>` : ''}${end ? `<taxii_11:Inclusive_End_Timestamp>${end}</taxii_11:Inclusive_End_Timestamp>` : ''}<taxii_11:Poll_Parameters allow_asynch="false">${params}</taxii_11:Poll_Parameters>`,
  )
}

export function fulfillment(id: string, collection: string, resultId: string, part: number): string {
  return message('Poll_Fulfillment', {
    message_id: id,
    collection_name: collection,
    result_id: resultId,
    result_part_number: String(part),
  })
}

const reader = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) =>
    ['Service_Instance', 'Collection', 'Content_Block', 'Indicator', 'Detail', 'Hash', 'Marking_Structure'].includes(
      name,
    ),
})

// biome-ignore lint: test reader returns loosely typed trees
export function readXml(xml: string): any {
  return reader.parse(xml)
}

/** The Status_Message of a response, or undefined when the response is another message. */
export function statusOf(
  res: LightMyRequestResponse,
): { type: string; inResponseTo: string; message: string; details: Record<string, string> } | undefined {
  const doc = readXml(res.body).Status_Message
  if (!doc) return undefined
  const details = Object.fromEntries(
    ((doc.Status_Detail?.Detail ?? []) as { '@name': string; '#text'?: string }[]).map((d) => [
      d['@name'],
      d['#text'] ?? '',
    ]),
  )
  return { type: doc['@status_type'], inResponseTo: doc['@in_response_to'], message: doc.Message, details }
}
