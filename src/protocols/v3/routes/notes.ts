/** /v3/notes: notes on Cases, case Tasks and Artifacts. */
import { type NoteRecord, createNote, deleteNote, deleteNotesMatching, listNotes, loadNotes, updateNote } from '../../../domain/cases/notes.js'
import { toApiTime } from '../../../domain/time.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { compact } from '../present-metadata.js'

const NOTE_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the Note', readOnly: true },
  { name: 'caseId', type: 'Integer', description: 'The Case the Note is on (give one of caseId, taskId, artifactId)', updatable: false },
  { name: 'taskId', type: 'Integer', description: 'The case Task the Note is on', updatable: false },
  { name: 'artifactId', type: 'Integer', description: 'The Artifact the Note is on', updatable: false },
  { name: 'text', type: 'String', description: 'The text of the Note', required: true },
  { name: 'summary', type: 'String', description: 'The first 100 characters of the text', readOnly: true },
  { name: 'author', type: 'String', description: 'The user name of the Note\'s author', readOnly: true },
  { name: 'edited', type: 'Boolean', description: 'Whether the Note was changed after it was written', readOnly: true },
  { name: 'dateAdded', type: 'Date', description: 'When the Note was written', readOnly: true },
  { name: 'lastModified', type: 'Date', description: 'When the Note was last changed', readOnly: true },
]

function presentNote(n: NoteRecord): Record<string, unknown> {
  return compact({
    id: n.id, caseId: n.caseId, taskId: n.taskId, artifactId: n.artifactId, text: n.text, summary: n.text.slice(0, 100), author: n.author,
    edited: n.lastModified !== n.dateAdded, dateAdded: toApiTime(n.dateAdded), lastModified: toApiTime(n.lastModified),
  })
}

export const NOTES: V3Endpoint<NoteRecord> = {
  path: 'notes', tqlType: 'notes', word: 'Note', fields: NOTE_FIELDS, options: [],
  present: presentNote, list: listNotes, load: loadNotes, create: createNote, update: updateNote, remove: deleteNote,
  removeMatching: deleteNotesMatching,
}
