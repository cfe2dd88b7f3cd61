/**
 * The v3 route schemas, derived from the endpoint declaration (endpoint.ts): the body of POST
 * and PUT from the fields OPTIONS /v3/<type> lists, the record from every field, fields= from
 * the endpoint's options. routes.ts gives each route its schema; nothing is written twice.
 */
import {
  type JsonSchema,
  type ResponseDoc,
  type RouteSchema,
  anyObject,
  arrayOf,
  boolean,
  integer,
  jsonResponse,
  object,
  string,
} from '../http/route-schema.js'
import type { AnyEndpoint, FieldSpec } from './endpoint.js'

export const V3_ERROR = object(
  {
    errCode: string('Stable code of the refusal'),
    message: string('What was refused, and why'),
    status: { const: 'Error' },
  },
  ['errCode', 'message', 'status'],
)

const REFUSED: Record<string, ResponseDoc> = {
  '4XX': jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR),
}

const SUCCESS = { const: 'Success' }

const TYPES: Record<string, JsonSchema> = {
  String: { type: 'string' },
  Integer: { type: 'integer' },
  Long: { type: 'integer' },
  Double: { type: 'number' },
  BigDecimal: { type: 'number' },
  Boolean: { type: 'boolean' },
  Date: { type: 'string', format: 'date-time' },
  Array: { type: 'array' },
  Object: { type: 'object' },
}

function fieldSchema(field: FieldSpec): JsonSchema {
  const base: JsonSchema = field.values
    ? { type: 'string', enum: [...field.values] }
    : { ...(TYPES[field.type] ?? { type: 'object', title: field.type }) }
  base.description = field.description
  if (field.readOnly) base.readOnly = true
  if (!field.list) return base
  return {
    type: 'object',
    description: field.description,
    properties: {
      data: arrayOf({ type: 'object', title: field.type }),
      mode: { type: 'string', enum: ['append', 'replace', 'delete'] },
    },
  }
}

/** The request body of POST (create: required fields required) or PUT (update: what may change). */
export function bodySchema(endpoint: AnyEndpoint, action: 'create' | 'update'): JsonSchema {
  const fields = endpoint.fields.filter((f) => !f.readOnly && (action === 'create' || f.updatable !== false))
  const required = action === 'create' ? fields.filter((f) => f.required).map((f) => f.name) : []
  return object(Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])), required)
}

/** A presented record: every declared field may appear, fields= adds the options it names. */
function recordSchema(endpoint: AnyEndpoint): JsonSchema {
  const fields = Object.fromEntries(endpoint.fields.map((f) => [f.name, fieldSchema(f)]))
  return object({ id: integer(), ...fields }, ['id'])
}

const OWNER = { owner: string("Owner by name (or id); the caller's Organization when absent") }

function fieldsParam(endpoint: AnyEndpoint): JsonSchema {
  const names = endpoint.options.map((o) => o.name)
  const one = names.length ? { type: 'string', enum: names } : string()
  return {
    description: 'More to include in each record (repeat, or separate by commas)',
    anyOf: [one, arrayOf(one), string()],
  }
}

function oneQuery(endpoint: AnyEndpoint): JsonSchema {
  return object({ ...OWNER, fields: fieldsParam(endpoint) })
}

function listQuery(endpoint: AnyEndpoint): JsonSchema {
  return object({
    ...OWNER,
    fields: fieldsParam(endpoint),
    ...(endpoint.tqlType
      ? { tql: string('A TQL filter (OPTIONS /v3/' + endpoint.path + '/tql lists its keywords)') }
      : {}),
    sorting: string('`<field> ASC|DESC`, repeatable'),
    resultStart: { type: 'integer', minimum: 0 },
    resultLimit: { type: 'integer', minimum: 1, maximum: 10000, description: 'Page size (default 100)' },
    count: boolean('Adds the total count (first page)'),
  })
}

const DELETED = object({ count: integer(), message: { const: 'Deleted' }, status: SUCCESS }, ['status'])

const data = (record: JsonSchema, message?: string) =>
  object({ data: record, ...(message ? { message: { const: message } } : {}), status: SUCCESS }, ['data', 'status'])

function refusedOnly(summary: string): RouteSchema {
  return { summary, response: { ...REFUSED } }
}

/** Every route of one endpoint, by what it does. */
export function endpointSchemas(endpoint: AnyEndpoint) {
  const record = recordSchema(endpoint)
  const word = endpoint.word
  const optionsList = object({ data: arrayOf(anyObject), count: integer(), status: SUCCESS }, ['data', 'status'])
  return {
    descriptor: {
      summary: `${word} body fields (usable as a body template)`,
      querystring: object({ show: string('`readOnly` adds read-only fields') }),
      response: {
        200: jsonResponse('Field name → {type, description, required, …}', {
          type: 'object',
          additionalProperties: anyObject,
        }),
        ...REFUSED,
      },
    } satisfies RouteSchema,
    fieldOptions: {
      summary: `What fields= takes on /v3/${endpoint.path}`,
      response: { 200: jsonResponse('The fields= options', optionsList), ...REFUSED },
    } satisfies RouteSchema,
    tqlOptions: {
      summary: `TQL keywords of /v3/${endpoint.path}`,
      response: { 200: jsonResponse('The TQL keywords', optionsList), ...REFUSED },
    } satisfies RouteSchema,
    list: {
      summary: `${word} list`,
      querystring: listQuery(endpoint),
      response: {
        200: jsonResponse(
          'A page; `next`/`prev` link the neighbouring pages',
          object(
            {
              next: string(),
              prev: string(),
              data: arrayOf(record),
              count: integer(),
              status: SUCCESS,
            },
            ['data', 'status'],
          ),
        ),
        ...REFUSED,
      },
    } satisfies RouteSchema,
    one: {
      summary: `One ${word}`,
      querystring: oneQuery(endpoint),
      response: { 200: jsonResponse('The record', data(record)), ...REFUSED },
    } satisfies RouteSchema,
    create: endpoint.create
      ? ({
          summary: `Create a ${word}`,
          querystring: oneQuery(endpoint),
          body: bodySchema(endpoint, 'create'),
          response: { 201: jsonResponse('Created', data(record, 'Created')), ...REFUSED },
        } satisfies RouteSchema)
      : refusedOnly(`Not supported: /v3/${endpoint.path} is read-only`),
    update: endpoint.update
      ? ({
          summary: `Update a ${word}`,
          querystring: oneQuery(endpoint),
          body: bodySchema(endpoint, 'update'),
          response: { 200: jsonResponse('Updated', data(record, 'Updated')), ...REFUSED },
        } satisfies RouteSchema)
      : refusedOnly(`Not supported: /v3/${endpoint.path} is read-only`),
    remove: endpoint.remove
      ? ({
          summary: `Delete a ${word}`,
          querystring: object(OWNER),
          response: { 200: jsonResponse('Deleted', DELETED), ...REFUSED },
        } satisfies RouteSchema)
      : refusedOnly(`Not supported: /v3/${endpoint.path} is read-only`),
    removeMatching: endpoint.removeMatching
      ? ({
          summary: `Delete every ${word} a TQL filter matches (when bulk delete is enabled)`,
          querystring: object({ ...OWNER, tql: string('Required: what to delete') }, ['tql']),
          response: { 200: jsonResponse('Deleted, with how many', DELETED), ...REFUSED },
        } satisfies RouteSchema)
      : refusedOnly(`Not supported: bulk delete of /v3/${endpoint.path}`),
  }
}

export { REFUSED as V3_REFUSED, SUCCESS as V3_SUCCESS }

export const DELETED_INDICATORS: RouteSchema = {
  summary: 'Indicators deleted recently',
  querystring: object({
    ...OWNER,
    type: string('Indicator type name'),
    deletedSince: { type: 'string', format: 'date-time' },
    resultStart: { type: 'integer', minimum: 0 },
    resultLimit: { type: 'integer', minimum: 1, maximum: 10000 },
  }),
  response: {
    200: jsonResponse(
      'A page of deleted Indicators',
      object(
        {
          data: arrayOf(
            object({
              ownerName: string(),
              dateAdded: { type: 'string', format: 'date-time' },
              dateDeleted: { type: 'string', format: 'date-time' },
              type: string(),
              summary: string(),
            }),
          ),
          count: integer(),
          status: SUCCESS,
        },
        ['data', 'status'],
      ),
    ),
    ...REFUSED,
  },
}

export const GROUP_UPLOAD: RouteSchema = {
  summary: 'Upload (replace) the file of a Document or Report',
  body: { type: 'string', contentMediaType: 'application/octet-stream' },
  consumes: ['application/octet-stream'],
  response: {
    200: jsonResponse('Stored', object({ message: { const: 'Uploaded' }, status: SUCCESS }, ['status'])),
    ...REFUSED,
  },
}

export const GROUP_DOWNLOAD: RouteSchema = {
  summary: 'The file of a Document or Report (a Signature as text)',
  response: {
    200: {
      description: 'The file',
      content: {
        'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
        'text/plain': { schema: string() },
      },
    },
    ...REFUSED,
  },
}

export const GROUP_PDF: RouteSchema = {
  summary: 'The Group as a PDF',
  response: {
    200: {
      description: 'A PDF',
      content: { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } },
    },
    ...REFUSED,
  },
}

const IMPORT_JOB = object(
  {
    id: integer(),
    owner: string('The owner the file is imported into'),
    status: { type: 'string', enum: ['Queued', 'Running', 'Completed', 'Failed'] },
    fileName: string(),
    format: { type: ['string', 'null'], description: 'The format read (stix, misp, csv, list, batch)' },
    bytes: integer(),
    items: integer('Elements read so far (objects, events, rows, lines)'),
    jobs: integer('Batch jobs run so far'),
    successCount: integer(),
    errorCount: integer(),
    errorsListed: integer('Refusals GET …/errors lists (the first 10,000)'),
    message: string('Why the import failed'),
    dateAdded: string(),
    startedAt: string(),
    completedAt: string(),
  },
  ['id', 'owner', 'status', 'fileName', 'bytes', 'items', 'successCount', 'errorCount'],
)

const IMPORT_ID = object({ id: string('The import id') }, ['id'])

export const IMPORT_CREATE: RouteSchema = {
  summary:
    'Import a file (STIX 2.0/2.1, MISP, CSV, a plain list or free text, a V2 batch file) as a job — beyond the interface specification',
  querystring: object(
    {
      owner: string('The owner to import into (default: your Organization)'),
      fileName: string('The file name, for format detection and refusals (default: upload)'),
      format: string('The format, when neither the name nor the content tells it'),
      type: string('The Indicator type of every value of a plain list'),
      map: string('For a CSV: field=column pairs (see docs/import.md)'),
    },
    [],
  ),
  body: { type: 'string', contentMediaType: 'application/octet-stream' },
  consumes: ['application/octet-stream'],
  response: {
    201: jsonResponse(
      'Stored and queued',
      object({ data: IMPORT_JOB, message: { const: 'Created' }, status: SUCCESS }, ['data', 'status']),
    ),
    ...REFUSED,
  },
}

export const IMPORT_LIST: RouteSchema = {
  summary: 'Your imports, newest first (the last 100) — beyond the interface specification',
  response: {
    200: jsonResponse(
      'The imports',
      object({ data: arrayOf(IMPORT_JOB), count: integer(), status: SUCCESS }, ['data', 'status']),
    ),
    ...REFUSED,
  },
}

export const IMPORT_GET: RouteSchema = {
  summary: "An import's status and counts — beyond the interface specification",
  params: IMPORT_ID,
  response: {
    200: jsonResponse('The import', object({ data: IMPORT_JOB, status: SUCCESS }, ['data', 'status'])),
    ...REFUSED,
  },
}

export const IMPORT_ERRORS: RouteSchema = {
  summary: "An import's refusals, each with its place in the file and its reason — beyond the interface specification",
  params: IMPORT_ID,
  querystring: object(
    { resultStart: string('First refusal, from 0'), resultLimit: string('Refusals per page (1–10,000, default 100)') },
    [],
  ),
  response: {
    200: jsonResponse(
      'A page of refusals',
      object(
        {
          data: arrayOf(object({ item: string('Where in the file'), message: string('Why') }, ['item', 'message'])),
          count: integer('Refusals in all'),
          status: SUCCESS,
        },
        ['data', 'status'],
      ),
    ),
    ...REFUSED,
  },
}
