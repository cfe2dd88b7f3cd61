/**
 * /v2/batch: define a job, upload its input file, read its status, error file and results.
 * Size and still-running refusals use the platform's {status: 'Invalid', description} body;
 * every other error is the usual v2 envelope.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import {
  BatchInvalidError, createBatchJob, getBatchErrorFile, getBatchStatus, listBatchResults, uploadBatchInput,
} from '../../../domain/batch/jobs.js'
import { notFound } from '../../../domain/errors.js'
import { flag, query, single } from '../params.js'
import { sendData } from '../present.js'

type IdParams = { Params: { id: string } }

function jobId(text: string): number {
  if (!/^\d{1,15}$/.test(text)) throw notFound(`Batch job ${text} not found`)
  return Number(text)
}

async function platformInvalid<T>(reply: FastifyReply, run: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof BatchInvalidError)) throw error
    return reply.code(400).type('application/json; charset=utf-8').send({ status: 'Invalid', description: error.message })
  }
}

function inputText(body: unknown): Buffer | string {
  if (Buffer.isBuffer(body) || typeof body === 'string') return body
  return body === undefined || body === null ? '' : JSON.stringify(body)
}

export async function batchRoutes(app: FastifyInstance) {
  app.post('/batch', async (req, reply) => sendData(req, reply, 'batchId', { batchId: await createBatchJob(req.ctx, req.body) }, 201))

  app.post<IdParams>('/batch/:id', async (req, reply) => platformInvalid(reply, async () => {
    await uploadBatchInput(req.ctx, jobId(req.params.id), inputText(req.body))
    return reply.code(202).type('application/json; charset=utf-8').send({ status: 'Queued' })
  }))

  app.get<IdParams>('/batch/:id', async (req, reply) => {
    const batchStatus = await getBatchStatus(req.ctx, jobId(req.params.id), flag(query(req), 'includeAdditional'))
    return sendData(req, reply, 'batchStatus', { batchStatus })
  })

  app.get<IdParams>('/batch/:id/errors', async (req, reply) => platformInvalid(reply, async () => {
    const file = await getBatchErrorFile(req.ctx, jobId(req.params.id))
    return reply.code(200).type('application/octet-stream').header('Content-Encoding', 'gzip').send(file)
  }))

  app.get<IdParams>('/batch/:id/results', async (req, reply) => {
    const q = query(req)
    const severity = q.severity === undefined ? undefined : Array.isArray(q.severity) ? q.severity : [q.severity]
    const results = await listBatchResults(req.ctx, jobId(req.params.id), { code: single(q, 'code'), contains: single(q, 'contains'), severity })
    return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(results))
  })
}
