/**
 * /v3/indicators: Indicators of every type, addressed by id or by summary
 * (`/v3/indicators/evil.example`, URL Indicators URL-encoded), and /v3/indicators/deleted.
 */
import type { FastifyInstance } from 'fastify'
import { listDeletedIndicators } from '../../../domain/indicators/activity.js'
import type { IndicatorRecord } from '../../../domain/indicators/indicators.js'
import {
  createIndicatorObject, deleteIndicatorObject, deleteIndicatorsMatching, listIndicatorObjects, loadIndicatorRecords, resolveIndicatorRef,
  updateIndicatorObject,
} from '../../../domain/indicators/objects.js'
import { toApiTime } from '../../../domain/time.js'
import { INDICATOR_TYPES } from '../../../model/indicator-types.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { parseListQuery, query, single } from '../params.js'
import { presentIndicatorV3 } from '../present-indicator.js'
import { sendV3Body } from '../present.js'
import { INDICATOR_OPTIONS } from './v3-indicator-options.js'
import { DELETED_INDICATORS } from '../schemas.js'

const list = (name: string, type: string, what: string): FieldSpec => ({ name, type, description: what, list: true })
const readOnly = (name: string, type: string, what: string): FieldSpec => ({ name, type, description: what, readOnly: true })

export const INDICATOR_FIELDS: FieldSpec[] = [
  { name: 'type', type: 'String', description: 'The Indicator type', required: true, updatable: false, values: INDICATOR_TYPES.map((t) => t.name) },
  { name: 'ip', type: 'String', description: 'The IP address (Address)', updatable: false },
  { name: 'address', type: 'String', description: 'The email address (EmailAddress)', updatable: false },
  { name: 'hostName', type: 'String', description: 'The host name (Host)', updatable: false },
  { name: 'text', type: 'String', description: 'The URL (URL)', updatable: false },
  { name: 'md5', type: 'String', description: 'The MD5 hash (File; a File may gain hashes it lacks on update)' },
  { name: 'sha1', type: 'String', description: 'The SHA-1 hash (File)' },
  { name: 'sha256', type: 'String', description: 'The SHA-256 hash (File)' },
  { name: 'value1', type: 'String', description: 'The first value of a custom Indicator type', updatable: false },
  { name: 'value2', type: 'String', description: 'The second value of a custom Indicator type', updatable: false },
  { name: 'value3', type: 'String', description: 'The third value of a custom Indicator type', updatable: false },
  { name: 'size', type: 'Integer', description: 'The size of a File' },
  { name: 'rating', type: 'BigDecimal', description: 'The threat rating, 0 to 5' },
  { name: 'confidence', type: 'Integer', description: 'The confidence, 0 to 100' },
  { name: 'description', type: 'String', description: 'A description of the Indicator' },
  { name: 'source', type: 'String', description: 'Where the Indicator came from' },
  { name: 'privateFlag', type: 'Boolean', description: 'Whether the Indicator is private' },
  { name: 'active', type: 'Boolean', description: 'Whether the Indicator is active' },
  { name: 'activeLocked', type: 'Boolean', description: 'Whether the active flag is locked' },
  { name: 'dnsActive', type: 'Boolean', description: 'Whether DNS tracking is on (Host)' },
  { name: 'whoisActive', type: 'Boolean', description: 'Whether WHOIS tracking is on (Host)' },
  { name: 'firstSeen', type: 'Date', description: 'When the Indicator was first seen' },
  { name: 'lastSeen', type: 'Date', description: 'When the Indicator was last seen' },
  { name: 'externalDateAdded', type: 'Date', description: 'When the Indicator was added in its external source' },
  { name: 'externalLastModified', type: 'Date', description: 'When the Indicator was last changed in its external source' },
  { name: 'externalDateExpires', type: 'Date', description: 'When the Indicator expires in its external source' },
  { name: 'falsePositiveFlag', type: 'Boolean', description: 'true reports the Indicator as a false positive (once per user and day)' },
  { name: 'observations', type: 'Integer', description: 'Records this many observations of the Indicator by you' },
  { name: 'ownerId', type: 'Integer', description: 'The owner to create the Indicator in (default: the owner= parameter, else your Organization)', updatable: false },
  { name: 'ownerName', type: 'String', description: 'The owner to create the Indicator in, by name', updatable: false },
  list('tags', 'Tag', 'Tags applied to the Indicator ({data: [{name}], mode: append|replace|delete})'),
  list('securityLabels', 'SecurityLabel', 'Security labels applied to the Indicator'),
  list('attributes', 'IndicatorAttribute', 'Attributes of the Indicator'),
  list('associatedArtifacts', 'Artifact', 'Artifacts associated with the Indicator'),
  list('associatedCases', 'Case', 'Cases associated with the Indicator'),
  list('associatedGroups', 'Group', 'Groups associated with the Indicator (new ones need name and type)'),
  list('associatedIndicators', 'Indicator', 'Indicators associated with the Indicator (existing ones by id, or by type and value)'),
  readOnly('id', 'Integer', 'The ID of the Indicator'),
  readOnly('summary', 'String', 'The Indicator value as one string'),
  readOnly('dateAdded', 'Date', 'When the Indicator was created'),
  readOnly('lastModified', 'Date', 'When the Indicator was last changed'),
  readOnly('webLink', 'String', "Link to the Indicator's details page"),
  readOnly('legacyLink', 'String', "Link to the Indicator's page in the legacy form"),
]

export const INDICATORS: V3Endpoint<IndicatorRecord> = {
  path: 'indicators', kind: 'indicator', tqlType: 'indicators', word: 'Indicator', fields: INDICATOR_FIELDS, options: INDICATOR_OPTIONS,
  present: presentIndicatorV3, list: listIndicatorObjects, load: loadIndicatorRecords, resolveId: resolveIndicatorRef,
  create: createIndicatorObject, update: updateIndicatorObject, remove: deleteIndicatorObject, removeMatching: deleteIndicatorsMatching,
}

/** GET /v3/indicators/deleted, beside the endpoint's routes (a static path wins over `/:id`). */
export async function deletedIndicatorRoutes(app: FastifyInstance) {
  app.get('/indicators/deleted', { schema: DELETED_INDICATORS }, async (req, reply) => {
    const q = query(req)
    const page = parseListQuery(q)
    const deleted = await listDeletedIndicators(req.ctx, {
      type: single(q, 'type'), deletedSince: single(q, 'deletedSince'), resultStart: page.resultStart, resultLimit: page.resultLimit,
    })
    const data = deleted.items.map((d) => ({ ownerName: d.ownerName, dateAdded: toApiTime(d.dateAdded), dateDeleted: toApiTime(d.dateDeleted), type: d.type, summary: d.summary }))
    return sendV3Body(reply, 200, { data, count: deleted.total, status: 'Success' })
  })
}
