/**
 * Test data made through the domain's own writers, so a test's rows are the rows the API and
 * the batch would write (defaults included) and no test file carries its own INSERT.
 */
import { randomUUID } from 'node:crypto'
import { findGroupType } from '../model/group-types.js'
import { insertGroups } from '../domain/groups/write.js'
import type { TestApp } from './harness.js'

/**
 * A Group in any owner (the administrator's Organization unless `ownerId` is given), without
 * the permission checks of the API: for arranging a test, not for testing creation.
 *
 * @example const groupId = await createTestGroup(t, { type: 'Incident', name: 'Op Dawn' })
 */
export async function createTestGroup(
  t: TestApp,
  options: { name: string; type?: string; ownerId?: number; xid?: string },
): Promise<number> {
  const ctx = await t.context()
  const def = findGroupType(options.type ?? 'Adversary')
  if (!def) throw new Error(`no Group type ${options.type}`)
  const xid = options.xid ?? randomUUID()
  const owner = options.ownerId === undefined ? ctx.owner : { ...ctx.owner, id: options.ownerId }
  const ids = await insertGroups({ ...ctx, owner }, [{ def, xid, columns: { name: options.name } }])
  return ids.get(xid)!
}
