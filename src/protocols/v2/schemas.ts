/**
 * The v2 route schemas: its envelopes (present.ts writes them), the records its presenters
 * write, the query strings params.ts reads and the bodies the domain reads. Request bodies of
 * Indicators and Groups are built from the model's type tables, so a new type's fields appear
 * here without an edit. Every v2 route passes one of these as its `schema` (route-schema.ts).
 */
import {
  ACTIONS,
  ATTRIBUTE_WRITE_TYPES,
  FILE_MERGE_MODES,
  HASH_COLLISION_MODES,
  LABEL_WRITE_TYPES,
  TAG_WRITE_TYPES,
} from '../../domain/batch/definition.js'
import {
  COMMON_GROUP_DATES,
  CUSTOM_METRIC_DATA_TYPES,
  CUSTOM_METRIC_INTERVALS,
  GROUP_TYPES,
  PLAYBOOK_STATUSES,
} from '../../model/group-types.js'
import { ATTRIBUTE as ATTRIBUTE_KIND } from '../../model/attribute.js'
import { INDICATOR as INDICATOR_KIND } from '../../model/indicator.js'
import { INDICATOR_TYPES } from '../../model/indicator-types.js'
import { OWNER as OWNER_KIND } from '../../model/owner.js'
import { SECURITY_LABEL } from '../../model/security-label.js'
import { TAG as TAG_KIND } from '../../model/tag.js'
import { TASK as TASK_KIND } from '../../model/task.js'
import { USER as USER_KIND } from '../../model/user.js'
import { VICTIM as VICTIM_KIND } from '../../model/victim.js'
import {
  type JsonSchema,
  type ResponseDoc,
  type RouteSchema,
  anyObject,
  arrayOf,
  boolean,
  dateTime,
  integer,
  jsonResponse,
  number,
  object,
  string,
} from '../http/route-schema.js'
import { declaredV2Body, declaredV2BodyFields, declaredV2Properties, declaredV2Record } from './declared-schemas.js'

const ERROR = object({ status: { const: 'Error' }, message: string('What was refused, and why') }, [
  'status',
  'message',
])
const SUCCESS = { const: 'Success' }

const REFUSED: Record<string, ResponseDoc> = {
  '4XX': jsonResponse('Refused: `{status: "Error", message}` (in XML with `Accept: application/xml`)', ERROR),
}

const OWNER_REF = declaredV2Record(OWNER_KIND, { required: false })

export const OWNER = declaredV2Record(OWNER_KIND)

const ITEM_BASE = {
  id: integer(),
  ownerName: string(),
  owner: OWNER_REF,
  dateAdded: dateTime(),
  lastModified: dateTime(),
  webLink: string(),
}

export const INDICATOR = object(
  {
    ...ITEM_BASE,
    type: string('Indicator type name (Address, Host, File…)'),
    summary: string('The value fields joined by " : "'),
    rating: number('0-5'),
    confidence: integer('0-100'),
    threatAssessRating: number(),
    threatAssessConfidence: number(),
    threatAssessScore: integer(),
    calScore: integer(),
    description: string(),
    source: string(),
    observationCount: integer(),
    falsePositiveCount: integer(),
    privateFlag: boolean(),
    active: boolean(),
    activeLocked: boolean(),
  },
  ['id'],
)

export const GROUP = object(
  { ...ITEM_BASE, name: string(), type: string('Group type name (Adversary, Incident…)'), xid: string() },
  ['id', 'name', 'type'],
)

export const TASK_USER = object({ id: integer(), userName: string(), firstName: string(), lastName: string() })

export const TASK = object(
  {
    ...ITEM_BASE,
    ...declaredV2Properties(TASK_KIND),
    assignee: arrayOf(TASK_USER),
    escalatee: arrayOf(TASK_USER),
  },
  ['id', 'name'],
)

export const VICTIM = object(
  { ...ITEM_BASE, ...declaredV2Properties(VICTIM_KIND, { only: (f) => f.type === 'text' && !!f.column }) },
  ['id', 'name'],
)

/** An Indicator, Group, Task or Victim in the short form lists of labelled or tagged items use. */
export const ANY_ITEM = object({ ...ITEM_BASE, name: string(), type: string(), summary: string() }, ['id'])

export const ASSET = object({ id: integer(), name: string(), type: string(), webLink: string() }, ['id'])

export const ATTRIBUTE = declaredV2Record(ATTRIBUTE_KIND)

export const LABEL = declaredV2Record(SECURITY_LABEL)

export const TAG = declaredV2Record(TAG_KIND)

export const USER = declaredV2Record(USER_KIND)

export const OBSERVATION_COUNT = object({
  count: integer(),
  lastObserved: dateTime(),
  yourCount: integer(),
  yourLastObserved: dateTime(),
})

// ---- query strings

const OWNER_PARAM = {
  owner: string("Owner (Organization, Community or Source) by name; the caller's Organization when absent"),
}

const INCLUDES = {
  includeAdditional: boolean("Adds the type's additional fields"),
  includeTags: boolean("Adds each item's Tags"),
  includeAttributes: boolean("Adds each item's Attributes"),
  includes: string('Comma-separated: additional, tags, attributes, labels'),
}

export const OWNER_QUERY = object(OWNER_PARAM)

export const ONE_QUERY = object({ ...OWNER_PARAM, ...INCLUDES })

export const LIST_QUERY = object({
  ...OWNER_PARAM,
  ...INCLUDES,
  resultStart: {
    type: 'integer',
    minimum: 0,
    description: 'Index of the first result (resultCount is given only when 0)',
  },
  resultLimit: { type: 'integer', minimum: 1, maximum: 10000, description: 'Page size (default 100)' },
  filters: string('Comma-separated `<field><op><value>` with op one of = ^ < > ! (URL-encoded)'),
  orParams: boolean('Any filter may match instead of every one'),
})

export const INDICATOR_LIST_QUERY = object({
  ...(LIST_QUERY.properties as Record<string, JsonSchema>),
  modifiedSince: dateTime('Only Indicators changed since then'),
})

// ---- request bodies

function ruleSchema(kind: string, values?: readonly string[]): JsonSchema {
  if (values) return { type: 'string', enum: [...values] }
  return kind === 'date' ? dateTime() : kind === 'boolean' ? boolean() : kind === 'integer' ? integer() : string()
}

const INDICATOR_VALUE_FIELDS: Record<string, JsonSchema> = Object.fromEntries(
  INDICATOR_TYPES.flatMap((t) =>
    t.fields.map((f) => [
      f.name,
      { ...string(`A value field (${t.name}: ${f.label})`), ...(f.options ? { enum: [...f.options] } : {}) },
    ]),
  ),
)

export const INDICATOR_BODY = object({
  ...INDICATOR_VALUE_FIELDS,
  ...declaredV2BodyFields(INDICATOR_KIND),
  attribute: arrayOf(object({ type: string(), value: string(), displayed: boolean() })),
  tag: arrayOf(object({ name: string() })),
  securityLabel: arrayOf(object({ name: string() })),
})

export const GROUP_BODY = object(
  Object.fromEntries(
    [...GROUP_TYPES.flatMap((t) => t.fields), ...COMMON_GROUP_DATES].map((rule) => [
      rule.name,
      ruleSchema(rule.kind, rule.values),
    ]),
  ),
)

export const TASK_BODY = object({
  ...declaredV2Properties(TASK_KIND, { body: true }),
  assignee: arrayOf(object({ userName: string() })),
  escalatee: arrayOf(object({ userName: string() })),
})

export const VICTIM_BODY = object(declaredV2Properties(VICTIM_KIND, { body: true }))

export const ATTRIBUTE_BODY = declaredV2Body(ATTRIBUTE_KIND)

// ---- envelopes

/** Media types a v2 body may come in: JSON, or XML giving the same object. */
const V2_BODY_TYPES = ['application/json', 'application/xml']

interface Options {
  summary: string
  query?: JsonSchema
  body?: JsonSchema
  /** Status of success (200 unless it creates; a create-or-describe gives either). */
  status?: number | number[]
}

function route(options: Options, success: ResponseDoc): RouteSchema {
  return {
    summary: options.summary,
    querystring: options.query ?? OWNER_QUERY,
    ...(options.body ? { body: options.body, consumes: V2_BODY_TYPES } : {}),
    response: {
      ...Object.fromEntries([options.status ?? 200].flat().map((status) => [String(status), success])),
      ...REFUSED,
    },
  }
}

/** `{status, data: {<entity>: record}}` — the entity is named after the kind or type. */
export function v2Item(record: JsonSchema, options: Options): RouteSchema {
  const data = {
    type: 'object',
    properties: { resultCount: integer() },
    additionalProperties: record,
    minProperties: 1,
  }
  return route(
    options,
    jsonResponse(
      '`data` holds the record under its entity name (indicator, address, incident…)',
      object({ status: SUCCESS, data }, ['status', 'data']),
    ),
  )
}

/** `{status, data: {resultCount?, <entity>: [record…]}}`; lists take paging, filters and includes unless told otherwise. */
export function v2List(record: JsonSchema, options: Options): RouteSchema {
  const data = {
    type: 'object',
    properties: { resultCount: integer('Given when resultStart is 0') },
    additionalProperties: arrayOf(record),
  }
  return route(
    { query: LIST_QUERY, ...options },
    jsonResponse(
      '`data` holds the page under the entity name, and resultCount',
      object({ status: SUCCESS, data }, ['status', 'data']),
    ),
  )
}

/** `{apiCalls, resultCount, status}`: a write without a record to return. */
export function v2NoBody(options: Options): RouteSchema {
  return route(
    options,
    jsonResponse('Done', object({ apiCalls: integer(), resultCount: integer(), status: SUCCESS }, ['status'])),
  )
}

/** A response of its own shape (files, bulk downloads, the batch's reports). */
export function v2Other(options: Options, success: ResponseDoc): RouteSchema {
  return route(options, success)
}

// ---- the smaller resources

export { anyObject, integer }

export const TYPE = object({ name: string() }, ['name'])

export const OWNER_METRIC = object({ metricDate: dateTime(), totalIndicator: integer(), totalGroup: integer() })

export const LABEL_BODY = declaredV2Body(SECURITY_LABEL)

export const TAG_BODY = declaredV2Body(TAG_KIND)

export const CUSTOM_METRIC = object(
  {
    id: integer(),
    name: string(),
    dataType: { type: 'string', enum: [...CUSTOM_METRIC_DATA_TYPES] },
    interval: { type: 'string', enum: [...CUSTOM_METRIC_INTERVALS] },
    keyedValues: boolean(),
    description: string(),
  },
  ['id', 'name'],
)

export const CUSTOM_METRIC_BODY = object(
  {
    name: string(),
    dataType: { type: 'string', enum: [...CUSTOM_METRIC_DATA_TYPES] },
    interval: { type: 'string', enum: [...CUSTOM_METRIC_INTERVALS] },
    keyedValues: boolean(),
    description: string(),
  },
  ['name', 'dataType', 'interval'],
)

export const CUSTOM_METRIC_VALUE = object({
  name: string(),
  value: number(),
  date: dateTime(),
  count: integer(),
  weight: number(),
})

export const CUSTOM_METRIC_QUERY = object({
  ...(LIST_QUERY.properties as Record<string, JsonSchema>),
  name: string('Key of a keyed metric'),
  from: dateTime(),
  to: dateTime(),
})

const METRIC_POINT = object(
  { name: string('Key, for keyed metrics'), value: number(), weight: number('Average metrics'), date: dateTime() },
  ['value'],
)

export const CUSTOM_METRIC_DATA: RouteSchema = {
  summary: 'Add data to a custom metric',
  querystring: object({
    ...OWNER_PARAM,
    returnValue: boolean('Answer with the aggregate of the period instead of 204'),
  }),
  body: { oneOf: [METRIC_POINT, arrayOf(METRIC_POINT)] },
  consumes: V2_BODY_TYPES,
  response: {
    204: { description: 'Added' },
    200: jsonResponse(
      'With returnValue: the bare aggregate `{value, date}` (an array for an array body), no envelope',
      {
        oneOf: [object({ value: number(), date: dateTime() }), arrayOf(object({ value: number(), date: dateTime() }))],
      },
    ),
    ...REFUSED,
  },
}

export const PLAYBOOK = object(
  {
    id: integer(),
    xid: string(),
    name: string(),
    description: string(),
    triggerType: string(),
    status: { type: 'string', enum: [...PLAYBOOK_STATUSES] },
    labels: arrayOf(string()),
    version: string(),
    ownerName: string(),
    dateAdded: dateTime(),
    lastModified: dateTime(),
  },
  ['id', 'name'],
)

export const PLAYBOOK_SEARCH_QUERY = object({
  ...(LIST_QUERY.properties as Record<string, JsonSchema>),
  name: string(),
  triggerType: string(),
  status: string(),
  labels: string(),
  sortOn: string(),
  sortAscending: boolean(),
})

export const DELETED_INDICATOR = object(
  { ownerName: string(), type: string(), summary: string(), dateAdded: dateTime(), dateDeleted: dateTime() },
  ['summary'],
)

export const DELETED_QUERY = object({
  ...(LIST_QUERY.properties as Record<string, JsonSchema>),
  deletedSince: dateTime('Only those deleted since then'),
})

export const OBSERVED_INDICATOR = object({
  summary: string(),
  type: string(),
  ownerName: string(),
  userObservedList: arrayOf(anyObject),
})

export const OBSERVED_QUERY = object({
  ...(LIST_QUERY.properties as Record<string, JsonSchema>),
  dateObserved: dateTime('Observed since then'),
})

export const OBSERVATION = object({ count: integer(), dateObserved: dateTime() })

export const OBSERVATION_BODY = object({ count: integer(), dateObserved: dateTime() })

export const FALSE_POSITIVE = object({ count: integer(), lastReported: dateTime() })

export const DNS_RESOLUTION = object({ resolutionDate: dateTime(), addresses: arrayOf(anyObject) })

export const BULK_STATUS = object(
  {
    bulkStatus: object({
      name: string(),
      csvEnabled: boolean(),
      jsonEnabled: boolean(),
      nextRun: dateTime(),
      lastRun: dateTime(),
      status: string(),
    }),
  },
  ['bulkStatus'],
)

export const BULK_REPORT: ResponseDoc = {
  description: '`json`: `{indicator: [...]}` with Attributes and Tags; `csv`: Type,Value,Rating,Confidence',
  content: {
    'application/json': { schema: object({ indicator: arrayOf(INDICATOR) }, ['indicator']) },
    'text/csv': { schema: string() },
  },
}

export const FILE_OCCURRENCE = object({ id: integer(), fileName: string(), path: string(), date: dateTime() }, ['id'])

export const FILE_OCCURRENCE_BODY = object({ fileName: string(), path: string(), date: dateTime() })

export const ASSET_BODY = object(
  {
    address: string(),
    addressType: string(),
    accountName: string(),
    networkType: string(),
    phoneNumber: string(),
    socialNetwork: string(),
    url: string(),
    handle: string(),
    networkHandle: string(),
  },
  [],
)

export const FILE_DOWNLOAD: ResponseDoc = {
  description: 'The file (a Signature as text)',
  content: {
    'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
    'text/plain': { schema: string() },
  },
}

export const PDF: ResponseDoc = {
  description: 'A PDF of the Group',
  content: { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } },
}

export const PUBLISH_BODY = object({ securityLabelList: arrayOf(string()), excludeUnlabeled: boolean() })

export const DOCUMENT_UPLOAD: RouteSchema = {
  summary: 'Upload the file of a Document or Report (PUT, or POST with updateIfExists, replaces it)',
  querystring: object({ ...OWNER_PARAM, updateIfExists: boolean() }),
  body: { type: 'string', contentMediaType: 'application/octet-stream' },
  consumes: ['application/octet-stream'],
  response: {
    200: jsonResponse('Stored', object({ apiCalls: integer(), resultCount: integer(), status: SUCCESS }, ['status'])),
    ...REFUSED,
  },
}

// ---- the batch

/** The batch's own refusal of a bad job or input file (the platform's shape, not the error envelope). */
const BATCH_INVALID = {
  400: jsonResponse(
    'The platform\'s batch refusal `{status: "Invalid", description}`',
    object({ status: { const: 'Invalid' }, description: string() }, ['status', 'description']),
  ),
}

const oneOf = (values: readonly string[], description?: string): JsonSchema => ({
  type: 'string',
  enum: [...values],
  ...(description ? { description } : {}),
})

/** The job definition, from the batch's own tables of values (domain/batch/definition.ts). */
export const BATCH_JOB_BODY = object(
  {
    version: oneOf(['V2']),
    owner: string('Organization, Community or Source to write to'),
    haltOnError: boolean(),
    action: oneOf(ACTIONS),
    attributeWriteType: oneOf(ATTRIBUTE_WRITE_TYPES),
    tagWriteType: oneOf(TAG_WRITE_TYPES, 'Default Replace'),
    securityLabelWriteType: oneOf(LABEL_WRITE_TYPES, 'Default Replace'),
    fileMergeMode: oneOf(FILE_MERGE_MODES, 'Default Merge'),
    hashCollisionMode: oneOf(HASH_COLLISION_MODES, 'Default FavorIncoming'),
  },
  ['owner', 'haltOnError', 'action', 'attributeWriteType'],
)

export const BATCH_STATUS = object(
  {
    id: integer(),
    status: string(),
    errorCount: integer(),
    successCount: integer(),
    unprocessCount: integer(),
    errorGroupCount: integer(),
    errorIndicatorCount: integer(),
    successGroupCount: integer(),
    successIndicatorCount: integer(),
  },
  ['id', 'status'],
)

export const BATCH_UPLOAD: RouteSchema = {
  summary: 'Upload the input file of a batch job',
  querystring: OWNER_QUERY,
  body: {
    description: 'The V2 batch file: `{indicator: [...], group: [...]}` or an array of Indicators',
    type: ['object', 'array'],
  },
  consumes: ['application/json', 'application/octet-stream'],
  response: {
    202: jsonResponse('Queued', object({ status: { const: 'Queued' } }, ['status'])),
    ...BATCH_INVALID,
    ...REFUSED,
  },
}

export const BATCH_CREATE_AND_UPLOAD: RouteSchema = {
  summary: 'Create a batch job and upload its input in one multipart request (parts config and content)',
  querystring: OWNER_QUERY,
  body: object(
    {
      config: string('The job definition, JSON'),
      content: { type: 'string', contentMediaType: 'application/octet-stream' },
    },
    ['config', 'content'],
  ),
  consumes: ['multipart/form-data'],
  response: { 201: v2Item(BATCH_STATUS, { summary: '', status: 201 }).response![201], ...BATCH_INVALID, ...REFUSED },
}

export const BATCH_ERRORS: RouteSchema = {
  summary: 'The errors of a finished job, gzip-compressed JSON',
  querystring: OWNER_QUERY,
  response: {
    200: {
      description: 'gzip (Content-Encoding) JSON array of errors',
      content: { 'application/octet-stream': { schema: { type: 'string' } } },
    },
    ...BATCH_INVALID,
    ...REFUSED,
  },
}
