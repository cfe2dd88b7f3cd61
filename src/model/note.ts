/** A Note on a Case, a case Task or an Artifact. */
import { defineKind } from './field.js'

export const NOTE = defineKind({
  kind: 'note',
  table: 'note',
  word: 'Note',
  fields: [
    {
      name: 'id',
      column: 'id',
      type: 'integer',
      description: 'The ID of the Note',
      write: 'never',
      tql: { name: 'ID', description: 'The ID of the note.' },
    },
    {
      name: 'caseId',
      column: 'case_id',
      type: 'integer',
      write: 'create',
      description: 'The Case the Note is on (give one of caseId, taskId, artifactId)',
      tql: { name: 'Case ID', description: 'The ID of the case the note is on.' },
    },
    {
      name: 'taskId',
      column: 'task_id',
      type: 'integer',
      write: 'create',
      description: 'The case Task the Note is on',
      tql: { name: 'Task ID', description: 'The ID of the task the note is on.' },
    },
    {
      name: 'artifactId',
      column: 'artifact_id',
      type: 'integer',
      write: 'create',
      description: 'The Artifact the Note is on',
      tql: { name: 'Artifact ID', description: 'The ID of the artifact the note is on.' },
    },
    {
      name: 'text',
      column: 'text',
      type: 'text',
      description: 'The text of the Note',
      required: true,
      tql: [
        { keyword: 'summary', name: 'Summary', description: 'The text of the note.' },
        { name: 'Text', description: 'The text of the note; the same as summary.' },
      ],
    },
    { name: 'summary', type: 'text', description: 'The first 100 characters of the text', write: 'never' },
    {
      name: 'author',
      column: 'author_id',
      type: 'user',
      description: "The user name of the Note's author",
      write: 'never',
      tql: { name: 'Author', description: 'The user name of the author.' },
    },
    {
      name: 'edited',
      type: 'boolean',
      description: 'Whether the Note was changed after it was written',
      write: 'never',
    },
    {
      name: 'dateAdded',
      column: 'date_added',
      type: 'date',
      description: 'When the Note was written',
      write: 'never',
      tql: { name: 'Date Added', description: 'The date the note was written.' },
    },
    {
      name: 'lastModified',
      column: 'last_modified',
      type: 'date',
      description: 'When the Note was last changed',
      write: 'never',
      tql: { name: 'Last Modified', description: 'The date the note was last edited.' },
    },
  ],
})
