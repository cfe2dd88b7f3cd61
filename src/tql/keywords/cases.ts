/** TQL keywords of the case-management types: /v3/cases, /v3/artifacts, /v3/tasks and /v3/notes. */
import { expressionBuilder, sql } from 'kysely'
import { CASE_SEVERITIES, CASE_STATUSES } from '../../model/group-types.js'
import { type ObjectTypeDef, column, computed, kw } from './define.js'
import { NOTE } from '../../model/note.js'
import { TASK } from '../../model/task.js'
import {
  associationKeywords, attributeKeywords, dateKeywords, declaredKeywords, ownerKeywords, tagKeywords, userNameOf,
} from './shared.js'

const eb = expressionBuilder<any, any>()

export const CASE_KEYWORDS: ObjectTypeDef = {
  name: 'cases',
  table: 'intel_case',
  kind: 'case',
  keywords: [
    kw('id', 'ID', 'Integer', column('id'), 'The ID of the case.'),
    ...ownerKeywords('case'),
    kw('xid', 'XID', 'String', column('xid'), 'The external ID of the case.'),
    kw('name', 'Name', 'StringLower', column('name'), 'The name of the case (compared case-insensitively).'),
    kw('summary', 'Summary', 'StringLower', column('name'), 'The name of the case; the same as name.'),
    kw('description', 'Description', 'String', column('description'), 'The description of the case.'),
    kw('severity', 'Severity', 'Enum', column('severity'), `The severity of the case: ${CASE_SEVERITIES.join(', ')}.`, { values: CASE_SEVERITIES }),
    kw('status', 'Status', 'Enum', column('status'), `The status of the case: ${CASE_STATUSES.join(', ')}.`, { values: CASE_STATUSES }),
    kw('resolution', 'Resolution', 'String', column('resolution'), 'The resolution of the case.', { groupable: true }),
    kw('createdBy', 'Created By', 'String', userNameOf('created_by'), 'The user name of the account that created the case.'),
    kw('createdById', 'Created By ID', 'Integer', column('created_by'), 'The ID of the account that created the case.'),
    kw('assigneeName', 'Assignee Name', 'String', userNameOf('assignee_user_id'), 'The user name of the account the case is assigned to.'),
    ...dateKeywords([
      ['dateAdded', 'Date Added', 'date_added', 'The date the case was created.'],
      ['lastUpdated', 'Last Updated', 'last_updated', 'The date the case was last updated.'],
      ['caseOpenTime', 'Case Open Time', 'case_open_time', 'The time the case was opened.'],
      ['caseCloseTime', 'Case Close Time', 'case_close_time', 'The time the case was closed.'],
      ['caseOccurrenceTime', 'Case Occurrence Time', 'case_occurrence_time', 'The time the case occurred.'],
      ['caseDetectionTime', 'Case Detection Time', 'case_detection_time', 'The time the case was detected.'],
    ]),
    kw('hasArtifact', 'Artifact', 'Sub Query', { kind: 'nested', link: { via: 'reverseKey', column: 'case_id' }, objectType: 'artifacts' },
      'A nested query for the artifacts of the case.'),
    kw('hasTask', 'Task', 'Sub Query', { kind: 'nested', link: { via: 'reverseKey', column: 'case_id' }, objectType: 'tasks' },
      'A nested query for the tasks of the case.'),
    kw('hasNote', 'Note', 'Sub Query', { kind: 'nested', link: { via: 'reverseKey', column: 'case_id' }, objectType: 'notes' },
      'A nested query for the notes of the case.'),
    ...tagKeywords('case', 'case'),
    ...attributeKeywords('case', 'caseAttributes'),
    ...associationKeywords('case', ['case', 'group', 'indicator']),
  ],
}

export const ARTIFACT_KEYWORDS: ObjectTypeDef = {
  name: 'artifacts',
  table: 'artifact',
  kind: 'artifact',
  keywords: [
    kw('id', 'ID', 'Integer', column('id'), 'The ID of the artifact.'),
    ...ownerKeywords('artifact'),
    kw('caseId', 'Case ID', 'Integer', column('case_id'), 'The ID of the case the artifact belongs to.'),
    kw('taskId', 'Task ID', 'Integer', column('task_id'), 'The ID of the task the artifact belongs to.'),
    kw('summary', 'Summary', 'String', column('summary'), 'The value of the artifact.'),
    kw('source', 'Source', 'String', column('source'), 'The source of the artifact.'),
    kw('analyticsScore', 'Analytics Score', 'Integer', column('analytics_score'), 'The analytics score of the artifact.'),
    kw('typeName', 'Type Name', 'StringLower', computed((alias) => eb.selectFrom(`artifact_type as ${alias}_type`).select(`${alias}_type.name`)
      .whereRef(`${alias}_type.id`, '=', `${alias}.type_id`)), 'The artifact type (Email Address, Host, URL …).', { groupable: true }),
    kw('type', 'Type ID', 'Integer', column('type_id'), 'The ID of the artifact type.', { groupable: true }),
    ...dateKeywords([
      ['dateAdded', 'Date Added', 'date_added', 'The date the artifact was added.'],
      ['lastModified', 'Last Modified', 'last_modified', 'The date the artifact was last modified.'],
    ]),
    kw('noteId', 'Note ID', 'Integer', { kind: 'related', link: { via: 'reverseKey', column: 'artifact_id' }, table: 'note', source: { column: 'id' } },
      'The ID of a note on the artifact.'),
    kw('hasCase', 'Case', 'Sub Query', { kind: 'nested', link: { via: 'foreignKey', column: 'case_id' }, objectType: 'cases' },
      'A nested query for the case the artifact belongs to.'),
    kw('hasTask', 'Task', 'Sub Query', { kind: 'nested', link: { via: 'foreignKey', column: 'task_id' }, objectType: 'tasks' },
      'A nested query for the task the artifact belongs to.'),
    kw('hasNote', 'Note', 'Sub Query', { kind: 'nested', link: { via: 'reverseKey', column: 'artifact_id' }, objectType: 'notes' },
      'A nested query for the notes on the artifact.'),
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
    ...declaredKeywords(TASK, ['caseId', 'xid', 'name', 'description', 'status', 'escalated', 'reminded', 'createdBy', 'dateAdded', 'lastModified',
      'dueDate', 'reminderDate', 'escalationDate', 'completedDate']),
    kw('assignee', 'Assignee', 'String', {
      kind: 'related', link: { via: 'reverseKey', column: 'task_id' }, table: 'task_assignee',
      source: { expression: (a) => eb.selectFrom(`user_account as ${a}_user`).select(`${a}_user.user_name`).whereRef(`${a}_user.id`, '=', `${a}.user_id`) },
      where: (a) => eb(`${a}.role`, '=', sql.lit('assignee')),
    }, 'The user name of an account the task is assigned to.'),
    kw('hasCase', 'Case', 'Sub Query', { kind: 'nested', link: { via: 'foreignKey', column: 'case_id' }, objectType: 'cases' },
      'A nested query for the case the task belongs to.'),
    kw('hasArtifact', 'Artifact', 'Sub Query', { kind: 'nested', link: { via: 'reverseKey', column: 'task_id' }, objectType: 'artifacts' },
      'A nested query for the artifacts of the task.'),
    kw('hasNote', 'Note', 'Sub Query', { kind: 'nested', link: { via: 'reverseKey', column: 'task_id' }, objectType: 'notes' },
      'A nested query for the notes on the task.'),
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
    kw('hasCase', 'Case', 'Sub Query', { kind: 'nested', link: { via: 'foreignKey', column: 'case_id' }, objectType: 'cases' }, 'A nested query for the case of the note.'),
    kw('hasTask', 'Task', 'Sub Query', { kind: 'nested', link: { via: 'foreignKey', column: 'task_id' }, objectType: 'tasks' }, 'A nested query for the task of the note.'),
    kw('hasArtifact', 'Artifact', 'Sub Query', { kind: 'nested', link: { via: 'foreignKey', column: 'artifact_id' }, objectType: 'artifacts' },
      'A nested query for the artifact of the note.'),
  ],
}
