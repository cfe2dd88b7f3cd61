/**
 * /v2/batch: define a job, upload its input file, read its status, error file and results.
 * Size and still-running refusals use the platform's {status: 'Invalid', description} body;
 * every other error is the usual v2 envelope.
 */
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  BatchInvalidError,
  createAndUploadBatchJob,
  createBatchJob,
  getBatchErrorFile,
  getBatchStatus,
  listBatchResults,
  uploadBatchInput,
} from '../../../domain/batch/jobs.js'
import { invalid } from '../../../core/errors.js'
import { readJson } from '../../../core/input.js'
import { parseId } from '../../../domain/items/items.js'
import { flag, query, single } from '../params.js'
import { sendData } from '../present.js'
import { JSON_MEDIA_TYPE } from '../../http/media-types.js'
import { jsonResponse } from '../../http/route-schema.js'
import * as S from '../schemas.js'

type IdParams = { Params: { id: string } }

function jobId(text: string): number {
  return parseId('Batch job', text)
}

async function platformInvalid<T>(reply: FastifyReply, run: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof BatchInvalidError)) throw error
    return reply.code(400).type(JSON_MEDIA_TYPE).send({ status: 'Invalid', description: error.message })
  }
}

function inputText(body: unknown): Buffer | string {
  if (Buffer.isBuffer(body) || typeof body === 'string') return body
  return body === undefined || body === null ? '' : JSON.stringify(body)
}

/** The `config` and `content` parts of a createAndUpload request, whether sent as fields or as files. */
async function readParts(req: FastifyRequest): Promise<{ config?: string; content?: Buffer }> {
  if (!req.isMultipart()) throw invalid('createAndUpload takes multipart/form-data with the parts config and content')
  const parts: Record<string, Buffer> = {}
  for await (const part of req.parts()) {
    parts[part.fieldname] = part.type === 'file' ? await part.toBuffer() : Buffer.from(String(part.value))
  }
  return { config: parts.config?.toString('utf8'), content: parts.content }
}

function parseConfig(text: string | undefined): unknown {
  if (text === undefined) throw invalid('createAndUpload needs a config part holding the job definition')
  return readJson(text, 'The config part is not valid JSON')
}

export async function batchRoutes(app: FastifyInstance) {
  // Multipart lives in its own scope: registered on the v2 instance, its hooks (an async
  // onResponse among them) would run on every v2 request.
  await app.register(async (scope) => {
    // Input files above the batchMaxUploadBytes setting are refused by the domain with the platform's message.
    await scope.register(multipart, { limits: { fileSize: 256 * 1024 * 1024, files: 2, fields: 2, parts: 4 } })
    scope.post(
      '/batch/createAndUpload',
      { schema: S.BATCH_CREATE_AND_UPLOAD, config: { background: true } },
      async (req, reply) =>
        platformInvalid(reply, async () => {
          const { config, content } = await readParts(req)
          if (!content) throw invalid('createAndUpload needs a content part holding the batch input file')
          const batchStatus = await createAndUploadBatchJob(req.ctx, parseConfig(config), content)
          return sendData(req, reply, 'batchStatus', { batchStatus }, 201)
        }),
    )
  })

  app.post(
    '/batch',
    {
      schema: S.v2Item(S.integer('Job id'), {
        summary: 'Create a batch job (its definition)',
        body: S.BATCH_JOB_BODY,
        status: 201,
      }),
    },
    async (req, reply) => sendData(req, reply, 'batchId', { batchId: await createBatchJob(req.ctx, req.body) }, 201),
  )

  // An upload is long work of its own (megabytes received and stored): it does not hold back the jobs and TAXII
  // pages that wait for interactive requests (core/foreground.ts).
  app.post<IdParams>('/batch/:id', { schema: S.BATCH_UPLOAD, config: { background: true } }, async (req, reply) =>
    platformInvalid(reply, async () => {
      await uploadBatchInput(req.ctx, jobId(req.params.id), inputText(req.body))
      return reply.code(202).type(JSON_MEDIA_TYPE).send({ status: 'Queued' })
    }),
  )

  app.get<IdParams>(
    '/batch/:id',
    { schema: S.v2Item(S.BATCH_STATUS, { summary: 'Status of a batch job' }) },
    async (req, reply) => {
      const batchStatus = await getBatchStatus(req.ctx, jobId(req.params.id), flag(query(req), 'includeAdditional'))
      return sendData(req, reply, 'batchStatus', { batchStatus })
    },
  )

  app.get<IdParams>('/batch/:id/errors', { schema: S.BATCH_ERRORS }, async (req, reply) =>
    platformInvalid(reply, async () => {
      const file = await getBatchErrorFile(req.ctx, jobId(req.params.id))
      return reply.code(200).type('application/octet-stream').header('Content-Encoding', 'gzip').send(file)
    }),
  )

  app.get<IdParams>(
    '/batch/:id/results',
    { schema: S.v2Other({ summary: 'Results of a finished job' }, jsonResponse('What the job wrote', S.anyObject)) },
    async (req, reply) => {
      const q = query(req)
      const severity = q.severity === undefined ? undefined : Array.isArray(q.severity) ? q.severity : [q.severity]
      const results = await listBatchResults(req.ctx, jobId(req.params.id), {
        code: single(q, 'code'),
        contains: single(q, 'contains'),
        severity,
      })
      return reply.code(200).type(JSON_MEDIA_TYPE).send(JSON.stringify(results))
    },
  )
}
