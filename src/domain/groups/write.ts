/**
 * The one Group writer: the API (one Group) and the batch writer (a chunk) both insert and
 * update Group rows here, set-based, so a default such as "Documents and Reports start
 * Awaiting Upload" holds whichever way a Group arrives. Rules on the fields themselves are
 * input.ts's; permissions are the callers'. Call inside a transaction for more than one row.
 */
import { COMMON_GROUP_DATES, type GroupTypeDef, GROUP_TYPES } from '../../model/group-types.js'
import { type ColumnType, insertRows, updateRowsById } from '../../store/repositories/batch-write.repository.js'
import type { RequestContext } from '../context.js'

const BODY_RULES = [...GROUP_TYPES.flatMap((t) => t.fields), ...COMMON_GROUP_DATES]

/** Every Group column a body may set, with the type the set-based UPDATE casts its values to. */
export const GROUP_COLUMN_TYPES: Record<string, ColumnType> = { last_modified: 'text' }
for (const f of BODY_RULES)
  GROUP_COLUMN_TYPES[f.column] = f.kind === 'boolean' || f.kind === 'integer' ? 'integer' : 'text'

const BOOLEAN_COLUMNS = new Set(BODY_RULES.filter((f) => f.kind === 'boolean').map((f) => f.column))

export interface NewGroup {
  def: GroupTypeDef
  xid: string
  columns: Record<string, unknown>
}

/** What a new Group holds before its own fields: unset columns empty, flags off, Documents and Reports awaiting their file. */
function newGroupRow(ctx: RequestContext, g: NewGroup) {
  const row: Record<string, unknown> = {}
  for (const column of Object.keys(GROUP_COLUMN_TYPES)) row[column] = BOOLEAN_COLUMNS.has(column) ? 0 : null
  Object.assign(row, g.columns)
  if ((g.def.name === 'Document' || g.def.name === 'Report') && !row.status) row.status = 'Awaiting Upload'
  return {
    ...row,
    owner_id: ctx.owner.id,
    type: g.def.name,
    xid: g.xid,
    created_by: ctx.caller.account.id,
    date_added: ctx.now,
    last_modified: ctx.now,
  }
}

/** Inserts new Groups in ctx.owner; returns their ids by xid. */
export async function insertGroups(ctx: RequestContext, groups: readonly NewGroup[]): Promise<Map<string, number>> {
  const inserted = await insertRows<{ id: number; xid: string }>(
    ctx.store.db,
    'intel_group',
    groups.map((g) => newGroupRow(ctx, g)),
    ['id', 'xid'],
  )
  return new Map(inserted.map((r) => [r.xid, r.id]))
}

/** Applies column changes to existing Groups, stamping last_modified. */
export async function updateGroups(
  ctx: RequestContext,
  updates: readonly { id: number; columns: Record<string, unknown> }[],
): Promise<void> {
  await updateRowsById(
    ctx.store.db,
    'intel_group',
    updates.map((u) => ({ id: u.id, changes: { ...u.columns, last_modified: ctx.now } })),
    GROUP_COLUMN_TYPES,
  )
}
