/**
 * Group files and outputs: Document/Report upload (POST first, PUT replace) and download,
 * Signature download, the PDF summary and publish. Uploads are read raw whatever the
 * Content-Type, in a scope of their own so no other route changes its body parsing.
 */
import type { FastifyInstance } from 'fastify'
import {
  downloadDocumentContent,
  getSignatureText,
  groupPdf,
  uploadDocumentContent,
} from '../../../domain/groups/documents.js'
import { publishGroup, requireGroupType } from '../../../domain/groups/groups.js'
import { flag, query } from '../params.js'
import { sendNoBody } from '../present.js'
import { UPLOAD_CEILING_BYTES, attachmentName, sendFile } from '../../http/files.js'
import { GROUP_PREFIX, groupPath } from './groups-params.js'
import * as S from '../schemas.js'

async function uploadRoutes(scope: FastifyInstance) {
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: UPLOAD_CEILING_BYTES }, (_req, body, done) =>
    done(null, body),
  )
  for (const method of ['POST', 'PUT'] as const) {
    scope.route({
      method,
      url: `${GROUP_PREFIX}/upload`,
      schema: S.DOCUMENT_UPLOAD,
      handler: async (req, reply) => {
        const { type, id } = groupPath(req)
        const replace = method === 'PUT' || flag(query(req), 'updateIfExists')
        await uploadDocumentContent(req.ctx, id, requireGroupType(type).name, req.body ?? Buffer.alloc(0), { replace })
        return sendNoBody(req, reply, 1)
      },
    })
  }
}

export async function groupFileRoutes(app: FastifyInstance) {
  await app.register(uploadRoutes)

  app.get(
    `${GROUP_PREFIX}/download`,
    { schema: S.v2Other({ summary: "The Document's or Signature's file" }, S.FILE_DOWNLOAD) },
    async (req, reply) => {
      const { type, id } = groupPath(req)
      if (requireGroupType(type).name === 'Signature') {
        const { text, fileName } = await getSignatureText(req.ctx, id)
        // Exactly text/plain: the v2 SDK keeps a download only when the type is text/plain or application/octet-stream.
        return sendFile(reply, 'text/plain', text, attachmentName(fileName, `signature-${id}.txt`))
      }
      const file = await downloadDocumentContent(req.ctx, id, type)
      return sendFile(reply, 'application/octet-stream', file.content, attachmentName(file.fileName, `document-${id}`))
    },
  )

  app.get(
    `${GROUP_PREFIX}/pdf`,
    { schema: S.v2Other({ summary: 'The Group as a PDF' }, S.PDF) },
    async (req, reply) => {
      const { type, id } = groupPath(req)
      const { pdf, fileName } = await groupPdf(req.ctx, id, type)
      return sendFile(reply, 'application/pdf', pdf, `inline; filename="${fileName}"`)
    },
  )

  app.post(
    `${GROUP_PREFIX}/publish`,
    {
      schema: S.v2NoBody({ summary: 'Publish the Group unless its Security Labels exclude it', body: S.PUBLISH_BODY }),
    },
    async (req, reply) => {
      const { type, id } = groupPath(req)
      const { published } = await publishGroup(req.ctx, id, type, req.body)
      return sendNoBody(req, reply, published ? 1 : 0)
    },
  )
}
