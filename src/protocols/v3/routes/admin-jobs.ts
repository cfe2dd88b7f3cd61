/**
 * /v3/admin/jobs (beyond the interface specification): batch jobs and import jobs of every account,
 * newest first, and each one's errors, for system administrators (domain/batch/every-job.ts,
 * domain/imports/every-import.ts). Registered inside administration.ts, so a refusal is its 403.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalid } from '../../../core/errors.js'
import { JOB_KINDS, type JobKind } from '../../../domain/batch/every-job-view.js'
import { type PageRequest, listAnyBatchJobErrors, listEveryBatchJob } from '../../../domain/batch/every-job.js'
import { listAnyImportJobErrors, listEveryImportJob } from '../../../domain/imports/every-import.js'
import {
  type JsonSchema,
  type RouteSchema,
  arrayOf,
  integer,
  jsonResponse,
  object,
  pathParams,
  string,
} from '../../http/route-schema.js'
import { sendV3Body } from '../present.js'
import { V3_ERROR } from '../schemas.js'

const BEYOND = ' — beyond the interface specification'
const REFUSED = { '4XX': jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR) }
const SUCCESS = { const: 'Success' }
const PAGE = {
  resultStart: string('First record, from 0'),
  resultLimit: string('Records per page (1–100, default 20)'),
}
const optionalText = (description: string): JsonSchema => ({ type: 'string', description })

const BATCH_JOB = object(
  {
    id: integer(),
    owner: string('The owner written into (absent when deleted since)'),
    userName: string('The account that made the job (absent when deleted since)'),
    status: { type: 'string', enum: ['Created', 'Queued', 'Running', 'Completed'] },
    action: string('Create or Delete'),
    successCount: integer(),
    errorCount: integer(),
    unprocessCount: integer(),
    dateAdded: string(),
    startedAt: string(),
    completedAt: string(),
  },
  ['id', 'status', 'successCount', 'errorCount', 'unprocessCount', 'dateAdded'],
)

const IMPORT_JOB = object(
  {
    id: integer(),
    owner: string('The owner imported into'),
    userName: string('The account that uploaded the file (absent when deleted since)'),
    status: { type: 'string', enum: ['Receiving', 'Queued', 'Running', 'Completed', 'Failed'] },
    fileName: string(),
    format: { type: ['string', 'null'], description: 'The format read (stix, misp, csv, list, batch)' },
    bytes: integer(),
    items: integer('Elements read'),
    jobs: integer('Batch jobs run'),
    successCount: integer(),
    errorCount: integer(),
    errorsListed: integer('Refusals the errors page lists (the first 10,000)'),
    message: optionalText('Why the import failed'),
    dateAdded: string(),
    startedAt: string(),
    completedAt: string(),
  },
  ['id', 'owner', 'status', 'fileName', 'bytes', 'items', 'successCount', 'errorCount', 'errorsListed', 'dateAdded'],
)

const BATCH_ERROR = object(
  {
    code: string('The platform error code, e.g. 0x1005'),
    severity: string('Error or Warning'),
    errorReason: string(),
    errorMessage: string('With the item'),
    errorSource: string('The input item, e.g. indicator[3]'),
  },
  ['code', 'severity', 'errorReason', 'errorMessage'],
)
const IMPORT_ERROR = object({ item: string('Where in the file'), message: string('Why') }, ['item', 'message'])

const JOBS: RouteSchema = {
  summary: `Batch or import jobs of every account, newest first (system administrators)${BEYOND}`,
  querystring: object({ kind: { type: 'string', enum: [...JOB_KINDS] }, ...PAGE }, ['kind']),
  response: {
    200: jsonResponse(
      'A page of jobs, of the kind asked',
      object(
        { data: arrayOf({ oneOf: [BATCH_JOB, IMPORT_JOB] }), count: integer('Jobs of that kind'), status: SUCCESS },
        ['data', 'count', 'status'],
      ),
    ),
    ...REFUSED,
  },
}

const JOB_ERRORS: RouteSchema = {
  summary: `A page of any batch job's errors or any import's refusals (system administrators)${BEYOND}`,
  params: pathParams({ kind: 'batch or import', id: 'The job id' }),
  querystring: object(PAGE),
  response: {
    200: jsonResponse(
      'A page of errors: error-file lines of a batch job, refusals of an import',
      object(
        { data: arrayOf({ oneOf: [BATCH_ERROR, IMPORT_ERROR] }), count: integer('Errors listed'), status: SUCCESS },
        ['data', 'count', 'status'],
      ),
    ),
    ...REFUSED,
  },
}

/** Ids are PostgreSQL integers: a larger number names no job. */
const MAX_ID = 2_147_483_647

function kindOf(value: unknown): JobKind {
  if (typeof value === 'string' && (JOB_KINDS as readonly string[]).includes(value)) return value as JobKind
  throw invalid(`kind must be ${JOB_KINDS.join(' or ')}, not '${String(value ?? '')}'`)
}

function whole(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined
  if (!/^\d{1,15}$/.test(value)) throw invalid(`${name} must be a whole number`)
  return Number(value)
}

function pageOf(req: FastifyRequest): PageRequest {
  const q = req.query as Record<string, string | undefined>
  return { offset: whole(q.resultStart, 'resultStart'), limit: whole(q.resultLimit, 'resultLimit') }
}

function jobId(req: FastifyRequest): number {
  const raw = (req.params as { id: string }).id
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > MAX_ID) throw invalid(`The job id must be a number, not '${raw}'`)
  return Number(raw)
}

export async function adminJobRoutes(app: FastifyInstance) {
  app.get('/admin/jobs', { schema: JOBS }, async (req, reply) => {
    const kind = kindOf((req.query as Record<string, unknown>).kind)
    const { jobs, count } =
      kind === 'batch' ? await listEveryBatchJob(req.ctx, pageOf(req)) : await listEveryImportJob(req.ctx, pageOf(req))
    return sendV3Body(reply, 200, { data: jobs, count, status: 'Success' })
  })

  app.get('/admin/jobs/:kind/:id/errors', { schema: JOB_ERRORS }, async (req, reply) => {
    const kind = kindOf((req.params as { kind: string }).kind)
    const id = jobId(req)
    const { errors, count } =
      kind === 'batch'
        ? await listAnyBatchJobErrors(req.ctx, id, pageOf(req))
        : await listAnyImportJobErrors(req.ctx, id, pageOf(req))
    return sendV3Body(reply, 200, { data: errors, count, status: 'Success' })
  })
}
