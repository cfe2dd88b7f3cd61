/**
 * File content of Document and Report Groups (upload, replace, download) and the text of
 * Signatures. Content is kept in document_content; the Group's status says whether it has any.
 */
import {
  findDocumentContent,
  hasDocumentContent,
  saveDocumentContent,
  updateGroupRow,
} from '../../store/repositories/group.repository.js'
import type { RequestContext } from '../context.js'
import { DomainError, invalid, notFound } from '../../core/errors.js'
import { findReadableGroup, findWritableGroup, getGroup } from './groups.js'
import { withTransactionDb } from '../transaction.js'
import { loadAttributes, loadTags } from '../metadata/item-metadata.js'
import { groupPdfLines, renderTextPdf } from '../../formats/group-pdf/group-pdf.js'

const FILE_GROUP_TYPES = ['Document', 'Report']
/** Local file header of a zip archive. */
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04])

export interface DocumentContent {
  content: Buffer
  contentType: string
  fileName: string | null
}

function requireFileGroupType(type: string | undefined, id: number): void {
  if (!type || !FILE_GROUP_TYPES.includes(type))
    throw notFound(`Only Documents and Reports hold file content; Group ${id} is a ${type}`)
}

/**
 * Stores the content of a Document or Report. `replace` is false for the first upload (POST):
 * then existing content is refused unless the client asked to update it. Malware Documents must
 * be zip archives. The Group's status becomes Success and fileSize the content's size.
 * @example await uploadDocumentContent(ctx, 12, 'documents', Buffer.from('text'), { replace: true })
 */
export async function uploadDocumentContent(
  ctx: RequestContext,
  id: number,
  type: string,
  content: unknown,
  options: { replace: boolean },
): Promise<void> {
  const item = await findWritableGroup(ctx, id, type, 'update')
  requireFileGroupType(item.type, id)
  if (!Buffer.isBuffer(content) || content.length === 0)
    throw invalid('The upload body is empty; send the file as application/octet-stream')
  const limit = await ctx.services.settings.get('documentMaxBytes')
  if (content.length > limit)
    throw new DomainError('too_large', `The file is ${content.length} bytes; the limit is ${limit} bytes`)
  const group = await getGroup(ctx, id)
  if (group.malware && !content.subarray(0, 4).equals(ZIP_MAGIC)) {
    throw invalid('A malware Document must be uploaded as a password-protected zip archive')
  }
  await withTransactionDb(ctx, async (trx) => {
    if (!options.replace && (await hasDocumentContent(trx, id))) {
      throw invalid(`${item.type} ${id} already has content; use PUT (or updateIfExists=true) to replace it`)
    }
    await saveDocumentContent(trx, id, content, 'application/octet-stream', ctx.now)
    await updateGroupRow(trx, id, {
      status: 'Success',
      file_size: content.length,
      document_date_added: ctx.now,
      last_modified: ctx.now,
    })
  })
}

/** The uploaded content of a Document or Report; 404 when nothing was uploaded. */
export async function downloadDocumentContent(ctx: RequestContext, id: number, type: string): Promise<DocumentContent> {
  const item = await findReadableGroup(ctx, id, type)
  requireFileGroupType(item.type, id)
  const row = await findDocumentContent(ctx.store.db, id)
  if (!row) throw notFound(`${item.type} ${id} has no uploaded content`)
  const group = await getGroup(ctx, id)
  return { content: Buffer.from(row.content), contentType: row.content_type, fileName: group.fileName }
}

/** A Signature's text, for the download endpoint. */
export async function getSignatureText(
  ctx: RequestContext,
  id: number,
): Promise<{ text: string; fileName: string | null }> {
  const group = await getGroup(ctx, id, 'signatures')
  return { text: group.fileText ?? '', fileName: group.fileName }
}

/** A Group's PDF summary (its fields, tags and attributes) and the file name it is served under. */
export async function groupPdf(
  ctx: RequestContext,
  id: number,
  type?: string,
): Promise<{ pdf: Buffer; fileName: string }> {
  const group = await getGroup(ctx, id, type)
  const [tags, attributes] = await Promise.all([
    loadTags(ctx.store.db, 'group', [id]),
    loadAttributes(ctx.store.db, 'group', [id]),
  ])
  return {
    pdf: renderTextPdf(
      `${group.type}: ${group.name}`,
      groupPdfLines(group, tags.get(id) ?? [], attributes.get(id) ?? []),
    ),
    fileName: `${group.type.toLowerCase().replace(/\s+/g, '-')}-${id}.pdf`,
  }
}
