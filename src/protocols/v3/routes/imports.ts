/**
 * /v3/imports (beyond the interface specification): a file in any format Bulwark reads, uploaded raw
 * and imported as a job with its status, counts and refusals (domain/imports/import-jobs.ts), for the
 * console and for scripts. The body streams into the job's stored parts; nothing holds it whole.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { invalid } from '../../../core/errors.js'
import {
  IMPORT_JOB_MAX_ERRORS,
  createImportJob,
  getImportJob,
  listImportJobErrors,
  listOwnImportJobs,
} from '../../../domain/imports/import-jobs.js'
import { sendV3Body, sendV3Created, sendV3Data } from '../present.js'
import { IMPORT_CREATE, IMPORT_ERRORS, IMPORT_GET, IMPORT_LIST } from '../schemas.js'

function importId(req: FastifyRequest): number {
  const raw = (req.params as { id: string }).id
  if (!/^\d+$/.test(raw)) throw invalid(`The import id must be a number, not '${raw}'`)
  return Number(raw)
}

function whole(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback
  if (!/^\d+$/.test(value) || Number(value) > max) throw invalid(`${name} must be a whole number up to ${max}`)
  return Number(value)
}

async function uploadRoute(scope: FastifyInstance) {
  // The body is read here as it streams, whatever its Content-Type.
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload))
  scope.post('/imports', { schema: IMPORT_CREATE }, async (req, reply) => {
    const q = req.query as Record<string, string | undefined>
    // Without a Content-Type nothing parsed the body: it is still the request's own stream.
    const body = (req.body ?? req.raw) as IncomingMessage
    const job = await createImportJob(
      req.ctx,
      { owner: q.owner ?? '', name: q.fileName || 'upload', format: q.format || undefined, type: q.type, map: q.map },
      body as AsyncIterable<Buffer>,
    )
    return sendV3Created(reply, job)
  })
}

export async function importRoutes(app: FastifyInstance) {
  await app.register(uploadRoute)

  app.get('/imports', { schema: IMPORT_LIST }, async (req, reply) => {
    const jobs = await listOwnImportJobs(req.ctx)
    return sendV3Body(reply, 200, { data: jobs, count: jobs.length, status: 'Success' })
  })

  app.get('/imports/:id', { schema: IMPORT_GET }, async (req, reply) =>
    sendV3Data(reply, await getImportJob(req.ctx, importId(req))),
  )

  app.get('/imports/:id/errors', { schema: IMPORT_ERRORS }, async (req, reply) => {
    const q = req.query as Record<string, string | undefined>
    const id = importId(req)
    const job = await getImportJob(req.ctx, id)
    const start = whole(q.resultStart, 'resultStart', 0, Number.MAX_SAFE_INTEGER)
    const limit = Math.max(1, whole(q.resultLimit, 'resultLimit', 100, IMPORT_JOB_MAX_ERRORS))
    const data = await listImportJobErrors(req.ctx, id, start, limit)
    return sendV3Body(reply, 200, { data, count: job.errorsListed, status: 'Success' })
  })
}
