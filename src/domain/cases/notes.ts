/**
 * Notes on a Case, a case Task or an Artifact. A note lives in its parent's owner; writing
 * needs `caseWrite` there. Notes are not items (no tags, attributes or associations).
 */
import { findArtifactsByIds, findTaskCase } from '../../store/repositories/artifact.repository.js'
import * as repo from '../../store/repositories/note.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { membershipFor } from '../access/owner-scope.js'
import { invalid, notFound } from '../../core/errors.js'
import { requiredText, bodyId } from '../../core/input.js'
import { requireWritableItem } from '../items/items.js'
import {
  type ListSource,
  type ObjectListQuery,
  findMatchingIds,
  inIdOrder,
  listObjectIds,
} from '../listing/object-lists.js'
import { withTransaction } from '../transaction.js'
import { loadUsers } from '../access/user-refs.js'

export const NOTE_SOURCE: ListSource = { objectType: 'notes', table: 'note', owner: 'owned' }

const NOTE_MAX_LENGTH = 65_500

export interface NoteRecord {
  id: number
  caseId: number | null
  taskId: number | null
  artifactId: number | null
  text: string
  author: string | null
  ownerId: number
  ownerName: string
  dateAdded: string
  lastModified: string
}

export async function loadNotes(ctx: RequestContext, ids: readonly number[]): Promise<NoteRecord[]> {
  const rows = (await repo.findNotesByIds(ctx.store, ids)).filter((r) => membershipFor(ctx, r.owner_id))
  const users = await loadUsers(
    ctx.store,
    rows.map((r) => r.author_id),
  )
  return inIdOrder(
    ids,
    rows.map((r) => ({
      id: r.id,
      caseId: r.case_id,
      taskId: r.task_id,
      artifactId: r.artifact_id,
      text: r.text,
      author: (r.author_id && users.get(r.author_id)?.userName) || null,
      ownerId: r.owner_id,
      ownerName: r.owner_name,
      dateAdded: r.date_added,
      lastModified: r.last_modified,
    })),
  )
}

export async function listNotes(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, NOTE_SOURCE, query)
  return { ...page, items: await loadNotes(ctx, page.ids) }
}

export async function getNote(ctx: RequestContext, id: number): Promise<NoteRecord> {
  const [record] = await loadNotes(ctx, [id])
  if (!record) throw notFound(`Note ${id} not found`)
  return record
}

/** The one parent a note hangs on, and the case it belongs to. */
async function parentOf(ctx: RequestContext, body: Record<string, unknown>) {
  const caseId = bodyId(body.caseId)
  const taskId = bodyId(body.taskId)
  const artifactId = bodyId(body.artifactId)
  const given = [caseId, taskId, artifactId].filter((v) => v !== undefined).length
  if (given !== 1) throw invalid('A note needs exactly one of caseId, taskId or artifactId')
  if (artifactId !== undefined) {
    const artifact = await requireWritableItem(ctx, 'artifact', artifactId, 'caseWrite')
    const [row] = await findArtifactsByIds(ctx.store, [artifactId])
    return { item: artifact, caseId: row!.case_id, taskId: null, artifactId }
  }
  if (taskId !== undefined) {
    const task = await requireWritableItem(ctx, 'task', taskId, 'caseWrite')
    const row = await findTaskCase(ctx.store.db, taskId)
    if (!row?.case_id) throw invalid(`Task ${taskId} is not a case task; notes go on case tasks only`)
    return { item: task, caseId: row.case_id, taskId, artifactId: null }
  }
  return {
    item: await requireWritableItem(ctx, 'case', caseId!, 'caseWrite'),
    caseId: caseId!,
    taskId: null,
    artifactId: null,
  }
}

/** Creates a note inside an open transaction (also the nested creator for case and artifact `notes`). */
export async function createNoteIn(ctx: RequestContext, body: Record<string, unknown>): Promise<number> {
  const parent = await parentOf(ctx, body)
  const text = requiredText(body, 'text', true, { max: NOTE_MAX_LENGTH })!
  return repo.insertNote(ctx.store.db, {
    owner_id: parent.item.ownerId,
    case_id: parent.caseId,
    task_id: parent.taskId,
    artifact_id: parent.artifactId,
    text,
    author_id: ctx.caller.account.id,
    date_added: ctx.now,
    last_modified: ctx.now,
  })
}

export async function createNote(ctx: RequestContext, body: unknown): Promise<NoteRecord> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('The request body must be a JSON object')
  const id = await withTransaction(ctx, (tctx) => createNoteIn(tctx, body as Record<string, unknown>))
  return getNote(ctx, id)
}

async function requireWritableNote(ctx: RequestContext, id: number): Promise<NoteRecord> {
  const note = await getNote(ctx, id)
  const membership = membershipFor(ctx, note.ownerId)!
  await requirePermission(ctx, 'caseWrite', membership)
  return note
}

/** Only the text of a note changes. */
export async function updateNote(ctx: RequestContext, id: number, body: unknown): Promise<NoteRecord> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('The request body must be a JSON object')
  await requireWritableNote(ctx, id)
  const text = requiredText(body as Record<string, unknown>, 'text', false, { max: NOTE_MAX_LENGTH })
  if (text !== undefined) await repo.updateNote(ctx.store.db, id, { text, last_modified: ctx.now })
  return getNote(ctx, id)
}

export async function deleteNote(ctx: RequestContext, id: number): Promise<void> {
  await requireWritableNote(ctx, id)
  await repo.deleteNotes(ctx.store.db, [id])
}

export async function deleteNotesMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, NOTE_SOURCE, tql, scope)
    for (const id of ids) await requireWritableNote(tctx, id)
    await repo.deleteNotes(tctx.store.db, ids)
    return ids.length
  })
}
