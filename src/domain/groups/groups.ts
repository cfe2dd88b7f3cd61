/**
 * Groups of every type (the spec's ten and the platform's six newer ones): create, read,
 * update, delete, list with the v2 filters and association scopes, publish. v2, v3 and batch
 * all come through here; required fields and enumerations are checked in groups/input.ts.
 */
import { randomUUID } from 'node:crypto'
import { type GroupTypeDef, findGroupType } from '../../model/group-types.js'
import { GROUP } from '../../model/group.js'
import type { ItemKind } from '../../model/kinds.js'
import {
  type GroupFilterColumn,
  type GroupRow,
  deleteGroupRows,
  findGroupIdByXid,
  findGroupRow,
  listGroupRows,
  updateGroupRow,
} from '../../store/repositories/group.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { type OwnerScope, ownerIdsToRead } from '../access/owner-scope.js'
import { conflict, invalid, notFound } from '../../core/errors.js'
import { groupColumnsFromBody, readXid, requireBodyObject } from './input.js'
import { insertGroups, updateGroups } from './write.js'
import { type ItemInfo, findReadableItem } from '../items/items.js'
import { type FieldFilter, type FilterTable, toConditions } from '../listing/list-filters.js'
import { deleteItemMetadata, loadLabels } from '../metadata/item-metadata.js'
import type { Action } from '../permissions.js'
import { withTransactionDb } from '../transaction.js'
import { declaredRecordReader } from '../declared-record.js'

/**
 * A Group as the domain hands it on: every column the Group declares (model/group.ts) under its
 * record name, and the owner's name and type. Stored times are ISO with milliseconds; presenters
 * choose the API form.
 */
export type GroupRecord = ReturnType<typeof readGroupRow>

const OWNER = { ownerName: 'owner_name', ownerType: 'owner_type' } as const
const readGroupRow = declaredRecordReader<typeof GROUP, GroupRow, typeof OWNER>(GROUP, OWNER)

export interface GroupQuery {
  /** Type name, entity or branch (`intrusionSets`); absent lists every type. */
  type?: string
  filters?: readonly FieldFilter[]
  /** v2 `orParams=true`: the filters are ORed. */
  orParams?: boolean
  /** Groups associated with an item, or (via 'group') sharing a Group with it. */
  associatedWith?: { kind: ItemKind; id: number; via?: 'group' }
  associationTypeId?: number
  ids?: readonly number[]
  /** Owners to list from: ctx.owner by default; every readable owner for association lists. */
  /** Whose rows: the call's owner, or every readable owner (the default depends on the list; see ownerIdsToRead). */
  ownerScope?: OwnerScope
  resultStart?: number
  resultLimit?: number
}

export function toGroupRecord(row: GroupRow): GroupRecord {
  return readGroupRow(row)
}

/** The type named in a path or body; unknown names are 404, as an unknown path is. */
export function requireGroupType(nameOrBranch: string): GroupTypeDef {
  const def = findGroupType(nameOrBranch)
  if (!def) throw notFound(`Unknown Group type '${nameOrBranch}'`)
  return def
}

function checkType(item: ItemInfo, def: GroupTypeDef | undefined): ItemInfo {
  if (def && item.type !== def.name) throw notFound(`${def.name} ${item.id} not found`)
  return item
}

/** Finds a Group the caller may read; with a type, a Group of another type is not found. */
export async function findReadableGroup(ctx: RequestContext, id: number, type?: string): Promise<ItemInfo> {
  return checkType(await findReadableItem(ctx, 'group', id), type === undefined ? undefined : requireGroupType(type))
}

export async function findWritableGroup(
  ctx: RequestContext,
  id: number,
  type: string | undefined,
  action: Action,
): Promise<ItemInfo> {
  const item = await findReadableGroup(ctx, id, type)
  await requirePermission(ctx, action, item.membership)
  return item
}

async function loadRecord(ctx: RequestContext, id: number): Promise<GroupRecord> {
  const row = await findGroupRow(ctx.store.db, id)
  if (!row) throw notFound(`Group ${id} not found`)
  return toGroupRecord(row)
}

/** @example const incident = await getGroup(ctx, 12, 'incidents') */
export async function getGroup(ctx: RequestContext, id: number, type?: string): Promise<GroupRecord> {
  await findReadableGroup(ctx, id, type)
  return loadRecord(ctx, id)
}

/**
 * Creates a Group of the given type in ctx.owner.
 * @example await createGroup(ctx, 'incidents', { name: 'Breach', eventDate: '2024-03-01T00:00:00Z', status: 'New' })
 */
export async function createGroup(ctx: RequestContext, type: string, input: unknown): Promise<GroupRecord> {
  const def = requireGroupType(type)
  await requirePermission(ctx, 'create')
  const body = requireBodyObject(input)
  const columns = groupColumnsFromBody(def, body, 'create')
  const xid = readXid(body) ?? randomUUID()
  if (await findGroupIdByXid(ctx.store.db, ctx.owner.id, xid))
    throw conflict(`A Group with xid '${xid}' already exists in ${ctx.owner.name}`)
  const ids = await insertGroups(ctx, [{ def, xid, columns }])
  return loadRecord(ctx, ids.get(xid)!)
}

/** Updates the fields given; Signatures must always carry name, fileName and fileType. */
export async function updateGroup(
  ctx: RequestContext,
  id: number,
  type: string | undefined,
  input: unknown,
): Promise<GroupRecord> {
  const item = await findWritableGroup(ctx, id, type, 'update')
  const def = requireGroupType(item.type ?? '')
  const columns = groupColumnsFromBody(def, requireBodyObject(input), 'update')
  await updateGroups(ctx, [{ id, columns }])
  return loadRecord(ctx, id)
}

/** Deletes the Group with its attributes, tag and label links, associations, content and Adversary Assets. */
export async function deleteGroup(ctx: RequestContext, id: number, type?: string): Promise<void> {
  await findWritableGroup(ctx, id, type, 'delete')
  await withTransactionDb(ctx, async (trx) => {
    await deleteItemMetadata(trx, 'group', [id])
    await deleteGroupRows(trx, [id])
  })
}

function filterTable(def: GroupTypeDef | undefined): FilterTable<GroupFilterColumn> {
  const only = (field: string, types: string[], branches: string) =>
    def && types.includes(def.name) ? undefined : `Filter ${field} applies to ${branches} only`
  return {
    resource: 'Groups',
    specs: {
      name: { column: 'name', kind: 'string', ops: ['=', '^'] },
      dateAdded: { column: 'date_added', kind: 'date', ops: ['<', '>'] },
      firstSeen: {
        column: 'first_seen',
        kind: 'date',
        ops: ['<', '>'],
        refusal: only('firstSeen', ['Campaign'], 'campaigns'),
      },
      fileType: {
        column: 'file_type',
        kind: 'string',
        ops: ['='],
        refusal: only('fileType', ['Document', 'Signature'], 'documents and signatures'),
      },
      eventDate: {
        column: 'event_date',
        kind: 'date',
        ops: ['<', '>'],
        refusal: only('eventDate', ['Event', 'Incident'], 'events and incidents'),
      },
    },
  }
}

/**
 * Lists Groups in ctx.owner (or, for an association scope, in every owner the caller reads).
 * @example await listGroups(ctx, { type: 'incidents', filters: [{ field: 'name', op: '^', value: 'Op' }], resultLimit: 50 })
 */
export async function listGroups(
  ctx: RequestContext,
  query: GroupQuery = {},
): Promise<{ items: GroupRecord[]; total: number }> {
  const def = query.type === undefined ? undefined : requireGroupType(query.type)
  const conditions = toConditions(filterTable(def), query.filters ?? [])
  if (query.associatedWith) await findReadableItem(ctx, query.associatedWith.kind, query.associatedWith.id)
  const ownerIds = ownerIdsToRead(ctx, query.ownerScope, { associations: !!query.associatedWith })
  const { rows, total } = await listGroupRows(ctx.store.db, {
    ownerIds,
    types: def ? [def.name] : undefined,
    conditions,
    combine: query.orParams ? 'or' : 'and',
    associatedWith: query.associatedWith && { ...query.associatedWith, associationTypeId: query.associationTypeId },
    ids: query.ids,
    offset: query.resultStart ?? 0,
    limit: query.resultLimit ?? 100,
  })
  return { items: rows.map(toGroupRecord), total }
}

export interface PublishInput {
  securityLabelList?: unknown
  excludeUnlabeled?: unknown
}

/**
 * Publishes a Group unless its Security Labels exclude it: a label in securityLabelList, or
 * no label at all with excludeUnlabeled. Records the publish time; returns whether it published.
 */
export async function publishGroup(
  ctx: RequestContext,
  id: number,
  type: string | undefined,
  input: unknown,
): Promise<{ published: boolean }> {
  await findWritableGroup(ctx, id, type, 'publish')
  const body = requireBodyObject(input) as PublishInput
  const labels = body.securityLabelList ?? []
  if (!Array.isArray(labels) || labels.some((l) => typeof l !== 'string'))
    throw invalid('securityLabelList must be an array of Security Label names')
  const excludeUnlabeled = body.excludeUnlabeled ?? false
  if (typeof excludeUnlabeled !== 'boolean') throw invalid('excludeUnlabeled must be true or false')
  const own = (await loadLabels(ctx.store.db, 'group', [id])).get(id) ?? []
  const excluded = own.some((l) => (labels as string[]).includes(l.name)) || (own.length === 0 && excludeUnlabeled)
  if (!excluded) await updateGroupRow(ctx.store.db, id, { publish_date: ctx.now })
  return { published: !excluded }
}
