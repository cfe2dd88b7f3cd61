/** TQL keywords of the case-management types: /v3/cases, /v3/artifacts, /v3/tasks and /v3/notes. */
import { expressionBuilder, sql } from 'kysely'
import { type ObjectTypeDef, column, kw } from './define.js'
import { ARTIFACT } from '../../model/artifact.js'
import { CASE } from '../../model/case.js'
import { NOTE } from '../../model/note.js'
import { TASK } from '../../model/task.js'
import {
  associationKeywords,
  attributeKeywords,
  declaredKeywords,
  declaredKeywordsWithOwner,
  ownerKeywords,
  tagKeywords,
} from './shared.js'

const eb = expressionBuilder<any, any>()

export const CASE_KEYWORDS: ObjectTypeDef = {
  name: 'cases',
  table: CASE.table,
  kind: 'case',
  keywords: [
    ...declaredKeywordsWithOwner(CASE, 'case'),
    kw(
      'hasArtifact',
      'Artifact',
      'Sub Query',
      { kind: 'nested', link: { via: 'reverseKey', column: 'case_id' }, objectType: 'artifacts' },
      'A nested query for the artifacts of the case.',
    ),
    kw(
      'hasTask',
      'Task',
      'Sub Query',
      { kind: 'nested', link: { via: 'reverseKey', column: 'case_id' }, objectType: 'tasks' },
      'A nested query for the tasks of the case.',
    ),
    kw(
      'hasNote',
      'Note',
      'Sub Query',
      { kind: 'nested', link: { via: 'reverseKey', column: 'case_id' }, objectType: 'notes' },
      'A nested query for the notes of the case.',
    ),
    ...tagKeywords('case', 'case'),
    ...attributeKeywords('case', 'caseAttributes'),
    ...associationKeywords('case', ['case', 'group', 'indicator']),
  ],
}

export const ARTIFACT_KEYWORDS: ObjectTypeDef = {
  name: 'artifacts',
  table: ARTIFACT.table,
  kind: 'artifact',
  keywords: [
    ...declaredKeywordsWithOwner(ARTIFACT, 'artifact'),
    kw(
      'noteId',
      'Note ID',
      'Integer',
      { kind: 'related', link: { via: 'reverseKey', column: 'artifact_id' }, table: 'note', source: { column: 'id' } },
      'The ID of a note on the artifact.',
    ),
    kw(
      'hasCase',
      'Case',
      'Sub Query',
      { kind: 'nested', link: { via: 'foreignKey', column: 'case_id' }, objectType: 'cases' },
      'A nested query for the case the artifact belongs to.',
    ),
    kw(
      'hasTask',
      'Task',
      'Sub Query',
      { kind: 'nested', link: { via: 'foreignKey', column: 'task_id' }, objectType: 'tasks' },
      'A nested query for the task the artifact belongs to.',
    ),
    kw(
      'hasNote',
      'Note',
      'Sub Query',
      { kind: 'nested', link: { via: 'reverseKey', column: 'artifact_id' }, objectType: 'notes' },
      'A nested query for the notes on the artifact.',
    ),
    ...associationKeywords('artifact', ['group', 'indicator']),
  ],
}

export const TASK_KEYWORDS: ObjectTypeDef = {
  name: 'tasks',
  table: TASK.table,
  kind: 'task',
  keywords: [
    ...declaredKeywords(TASK, ['id']),
    ...ownerKeywords('task'),
    ...declaredKeywords(TASK, [
      'caseId',
      'xid',
      'name',
      'description',
      'status',
      'escalated',
      'reminded',
      'createdBy',
      'dateAdded',
      'lastModified',
      'dueDate',
      'reminderDate',
      'escalationDate',
      'completedDate',
    ]),
    kw(
      'assignee',
      'Assignee',
      'String',
      {
        kind: 'related',
        link: { via: 'reverseKey', column: 'task_id' },
        table: 'task_assignee',
        source: {
          expression: (a) =>
            eb
              .selectFrom(`user_account as ${a}_user`)
              .select(`${a}_user.user_name`)
              .whereRef(`${a}_user.id`, '=', `${a}.user_id`),
        },
        where: (a) => eb(`${a}.role`, '=', sql.lit('assignee')),
      },
      'The user name of an account the task is assigned to.',
    ),
    kw(
      'hasCase',
      'Case',
      'Sub Query',
      { kind: 'nested', link: { via: 'foreignKey', column: 'case_id' }, objectType: 'cases' },
      'A nested query for the case the task belongs to.',
    ),
    kw(
      'hasArtifact',
      'Artifact',
      'Sub Query',
      { kind: 'nested', link: { via: 'reverseKey', column: 'task_id' }, objectType: 'artifacts' },
      'A nested query for the artifacts of the task.',
    ),
    kw(
      'hasNote',
      'Note',
      'Sub Query',
      { kind: 'nested', link: { via: 'reverseKey', column: 'task_id' }, objectType: 'notes' },
      'A nested query for the notes on the task.',
    ),
    ...tagKeywords('task', 'task'),
  ],
}

export const NOTE_KEYWORDS: ObjectTypeDef = {
  name: 'notes',
  table: NOTE.table,
  kind: null,
  keywords: [
    ...declaredKeywords(NOTE, ['id']),
    ...ownerKeywords('note'),
    ...declaredKeywords(NOTE, ['caseId', 'taskId', 'artifactId', 'text', 'author', 'dateAdded', 'lastModified']),
    kw(
      'hasCase',
      'Case',
      'Sub Query',
      { kind: 'nested', link: { via: 'foreignKey', column: 'case_id' }, objectType: 'cases' },
      'A nested query for the case of the note.',
    ),
    kw(
      'hasTask',
      'Task',
      'Sub Query',
      { kind: 'nested', link: { via: 'foreignKey', column: 'task_id' }, objectType: 'tasks' },
      'A nested query for the task of the note.',
    ),
    kw(
      'hasArtifact',
      'Artifact',
      'Sub Query',
      { kind: 'nested', link: { via: 'foreignKey', column: 'artifact_id' }, objectType: 'artifacts' },
      'A nested query for the artifact of the note.',
    ),
  ],
}
