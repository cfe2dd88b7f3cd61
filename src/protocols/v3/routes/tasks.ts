/** /v3/tasks: Tasks (in a Case or standalone). */
import {
  createTaskObject,
  deleteTaskObject,
  deleteTasksMatching,
  listTaskObjects,
  loadTaskRecords,
  updateTaskObject,
} from '../../../domain/tasks/objects.js'
import type { TaskRecord } from '../../../domain/tasks/tasks.js'
import { TASK } from '../../../model/task.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { presentTaskV3 } from '../present-task.js'

export const TASKS: V3Endpoint<TaskRecord> = {
  path: 'tasks',
  kind: 'task',
  tqlType: 'tasks',
  word: 'Task',
  fields: declaredBodyFields(TASK),
  options: itemOptions('task', 'Task', ['tags'], []),
  present: presentTaskV3,
  list: listTaskObjects,
  load: loadTaskRecords,
  create: createTaskObject,
  update: updateTaskObject,
  remove: deleteTaskObject,
  removeMatching: deleteTasksMatching,
}
