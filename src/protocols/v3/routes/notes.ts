/** /v3/notes: notes on Cases, case Tasks and Artifacts. */
import {
  type NoteRecord,
  createNote,
  deleteNote,
  deleteNotesMatching,
  listNotes,
  loadNotes,
  updateNote,
} from '../../../domain/cases/notes.js'
import { toApiTime } from '../../../core/time.js'
import { NOTE } from '../../../model/note.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { compact } from '../present-metadata.js'

function presentNote(n: NoteRecord): Record<string, unknown> {
  return compact({
    id: n.id,
    caseId: n.caseId,
    taskId: n.taskId,
    artifactId: n.artifactId,
    text: n.text,
    summary: n.text.slice(0, 100),
    author: n.author,
    edited: n.lastModified !== n.dateAdded,
    dateAdded: toApiTime(n.dateAdded),
    lastModified: toApiTime(n.lastModified),
  })
}

export const NOTES: V3Endpoint<NoteRecord> = {
  path: 'notes',
  tqlType: 'notes',
  word: 'Note',
  fields: declaredBodyFields(NOTE),
  options: [],
  present: presentNote,
  list: listNotes,
  load: loadNotes,
  create: createNote,
  update: updateNote,
  remove: deleteNote,
  removeMatching: deleteNotesMatching,
}
