/**
 * The TAXII 1.1 identifiers Bulwark speaks (TAXII 1.1.1 Parts 2–4; ../shared/research/taxii-stix.md §3.1).
 * Every string a client compares byte for byte lives here, once.
 */
export const TAXII_NS = 'http://taxii.mitre.org/messages/taxii_xml_binding-1.1'
export const MESSAGE_BINDING = 'urn:taxii.mitre.org:message:xml:1.1'
export const SERVICES_VERSION = 'urn:taxii.mitre.org:services:1.1'
export const PROTOCOL_HTTPS = 'urn:taxii.mitre.org:protocol:https:1.0'
export const PROTOCOL_HTTP = 'urn:taxii.mitre.org:protocol:http:1.0'
export const CONTENT_BINDING_STIX_111 = 'urn:stix.mitre.org:xml:1.1.1'

export const STATUS_TYPES = [
  'SUCCESS',
  'BAD_MESSAGE',
  'DENIED',
  'FAILURE',
  'NOT_FOUND',
  'POLLING_UNSUPPORTED',
  'RETRY',
  'UNAUTHORIZED',
  'UNSUPPORTED_MESSAGE',
  'UNSUPPORTED_CONTENT',
  'UNSUPPORTED_PROTOCOL',
  'UNSUPPORTED_QUERY',
  'ASYNCHRONOUS_POLL_ERROR',
  'DESTINATION_COLLECTION_ERROR',
  'INVALID_RESPONSE_PART',
  'NETWORK_ERROR',
  'PENDING',
] as const
export type StatusType = (typeof STATUS_TYPES)[number]

/** The three services, their paths under /api/taxii and the message types each accepts. */
export const SERVICES = {
  DISCOVERY: { path: 'discovery', accepts: ['Discovery_Request'] },
  COLLECTION_MANAGEMENT: { path: 'collection-management', accepts: ['Collection_Information_Request'] },
  POLL: { path: 'poll', accepts: ['Poll_Request', 'Poll_Fulfillment'] },
} as const
export type ServiceType = keyof typeof SERVICES

/** The poll window of the spec's Limits table. */
export const MAX_WINDOW_MS = 24 * 3_600_000
