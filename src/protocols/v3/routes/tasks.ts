/** /v3/tasks: Tasks (in a Case or standalone). */
import {
  createTaskObject, deleteTaskObject, deleteTasksMatching, listTaskObjects, loadTaskRecords, updateTaskObject,
} from '../../../domain/tasks/objects.js'
import type { TaskRecord } from '../../../domain/tasks/tasks.js'
import { TASK_STATUSES } from '../../../model/group-types.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { presentTaskV3 } from '../present-task.js'

const field = (name: string, type: string, what: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, type, description: what, ...extra })

const TASK_FIELDS: FieldSpec[] = [
  field('name', 'String', 'The name of the Task', { required: true }),
  field('description', 'String', 'A description of the Task'),
  field('status', 'String', 'The status of the Task (default Not Started)', { values: TASK_STATUSES }),
  field('caseId', 'Integer', 'The Case the Task belongs to'),
  field('dueDate', 'Date', 'When the Task is due'),
  field('reminderDate', 'Date', 'When to remind the assignee'),
  field('escalationDate', 'Date', 'When to escalate the Task'),
  field('escalated', 'Boolean', 'Whether the Task was escalated'),
  field('reminded', 'Boolean', 'Whether the assignee was reminded'),
  field('assignee', 'Assignee', 'The user assigned: {"type": "User", "data": {"userName": "…"}} or {"type": "None"}'),
  field('escalatee', 'User', 'Users the Task escalates to ({data: [{userName}]})'),
  field('tags', 'Tag', 'Tags applied to the Task', { list: true }),
  field('id', 'Integer', 'The ID of the Task', { readOnly: true }),
  field('overdue', 'Boolean', 'Whether the due date has passed before completion', { readOnly: true }),
  field('completedDate', 'Date', 'When the Task was completed', { readOnly: true }),
  field('dateAdded', 'Date', 'When the Task was created', { readOnly: true }),
  field('webLink', 'String', "Link to the Task's details page", { readOnly: true }),
]

export const TASKS: V3Endpoint<TaskRecord> = {
  path: 'tasks', kind: 'task', tqlType: 'tasks', word: 'Task', fields: TASK_FIELDS,
  options: itemOptions('task', 'Task', ['tags'], []),
  present: presentTaskV3, list: listTaskObjects, load: loadTaskRecords,
  create: createTaskObject, update: updateTaskObject, remove: deleteTaskObject, removeMatching: deleteTasksMatching,
}
