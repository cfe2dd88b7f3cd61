/**
 * Group files on v3, where tcex calls them (group.upload, download, pdf): POST /v3/groups/{id}/upload
 * with the raw file (replacing earlier content), GET …/download and GET …/pdf. The spec lists these paths
 * only under v2; the rules and the bytes are those of v2 (domain/groups/documents.ts, formats/group-pdf).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import {
  downloadDocumentContent,
  getSignatureText,
  groupPdf,
  uploadDocumentContent,
} from '../../../domain/groups/documents.js'
import { invalid } from '../../../core/errors.js'
import { getGroup } from '../../../domain/groups/groups.js'
import { UPLOAD_CEILING_BYTES, attachmentName, sendFile } from '../../http/files.js'
import { sendV3Body } from '../present.js'
import { GROUP_DOWNLOAD, GROUP_PDF, GROUP_UPLOAD } from '../schemas.js'

function groupId(req: FastifyRequest): number {
  const raw = (req.params as { id: string }).id
  if (!/^\d+$/.test(raw)) throw invalid(`Group id must be a number, not '${raw}'`)
  return Number(raw)
}

async function uploadRoute(scope: FastifyInstance) {
  // Uploads are read raw whatever their Content-Type, in a scope of their own.
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: UPLOAD_CEILING_BYTES }, (_req, body, done) =>
    done(null, body),
  )
  for (const method of ['POST', 'PUT'] as const) {
    scope.route({
      method,
      url: '/groups/:id/upload',
      schema: GROUP_UPLOAD,
      handler: async (req, reply) => {
        const id = groupId(req)
        const group = await getGroup(req.ctx, id)
        await uploadDocumentContent(req.ctx, id, group.type, req.body ?? Buffer.alloc(0), { replace: true })
        return sendV3Body(reply, 200, { message: 'Uploaded', status: 'Success' })
      },
    })
  }
}

export async function groupFileRoutes(app: FastifyInstance) {
  await app.register(uploadRoute)

  app.get('/groups/:id/download', { schema: GROUP_DOWNLOAD }, async (req, reply) => {
    const id = groupId(req)
    const group = await getGroup(req.ctx, id)
    if (group.type === 'Signature') {
      const { text, fileName } = await getSignatureText(req.ctx, id)
      return sendFile(reply, 'text/plain', text, attachmentName(fileName, `signature-${id}.txt`))
    }
    const file = await downloadDocumentContent(req.ctx, id, group.type)
    return sendFile(reply, 'application/octet-stream', file.content, attachmentName(file.fileName, `document-${id}`))
  })

  app.get('/groups/:id/pdf', { schema: GROUP_PDF }, async (req, reply) => {
    const id = groupId(req)
    const { pdf, fileName } = await groupPdf(req.ctx, id)
    return sendFile(reply, 'application/pdf', pdf, `inline; filename="${fileName}"`)
  })
}
