/**
 * Writes the attributes, tags and Security Labels of a chunk's items in a few statements:
 * labels defined in the file are created first, tags are found or created in bulk, the
 * write types decide what existing metadata is removed, then links and attributes are
 * inserted with multi-row INSERTs.
 */
import type { Kysely } from 'kysely'
import type { ItemKind } from '../../model/kinds.js'
import {
  deleteAttributesById,
  deleteItemLinks,
  findOrCreateTags,
  insertRows,
  listAttributeKeys,
  listAttributeValues,
  touchTags,
} from '../../store/repositories/batch-write.repository.js'
import type { Database } from '../../store/database.js'
import { listLabelIds } from '../../store/repositories/security-label.repository.js'
import { type BatchEnvironment, findLabelId } from './environment.js'
import type { AttributeDraft, LabelRef, MetadataDraft } from './metadata-input.js'

export interface MetadataTarget {
  draft: MetadataDraft
  /** The rows the item was written to (several for Distribute / Split). */
  ids: number[]
  /** False for rows created by this job step: nothing to replace, Static does not apply. */
  existing: boolean
}

/** Labels created by this chunk; the caller remembers them once the chunk has committed. */
export type CreatedLabels = { name: string; id: number }[]

async function createDefinedLabels(
  db: Kysely<Database>,
  env: BatchEnvironment,
  targets: MetadataTarget[],
): Promise<{ ids: Map<string, number>; rows: CreatedLabels }> {
  const defined = new Map<string, Extract<LabelRef, { name: string }>>()
  const define = (refs: readonly LabelRef[]) => {
    for (const ref of refs)
      if ('name' in ref && !defined.has(ref.name.toLowerCase())) defined.set(ref.name.toLowerCase(), ref)
  }
  for (const t of targets) {
    if (t.draft.labels) define(t.draft.labels)
    for (const a of t.draft.attributes ?? []) define(a.labels)
  }
  const ids = new Map<string, number>()
  if (defined.size === 0) return { ids, rows: [] }
  await insertRows(
    db,
    'security_label',
    [...defined.values()].map((l) => ({
      owner_id: env.ownerId,
      name: l.name,
      description: l.description,
      color: l.color,
      date_added: env.ctx.now,
    })),
    [],
    { ignoreConflicts: true },
  )
  const rows = await listLabelIds(
    db,
    env.ownerId,
    [...defined.values()].map((l) => l.name),
  )
  for (const r of rows) ids.set(r.name.toLowerCase(), r.id)
  return { ids, rows }
}

function labelIdOf(env: BatchEnvironment, created: Map<string, number>, ref: LabelRef): number | undefined {
  return 'id' in ref ? ref.id : (created.get(ref.name.toLowerCase()) ?? findLabelId(env, ref.name))
}

async function removeReplaced(db: Kysely<Database>, env: BatchEnvironment, kind: ItemKind, targets: MetadataTarget[]) {
  const existing = targets.filter((t) => t.existing)
  const { tagWriteType, securityLabelWriteType, attributeWriteType } = env.options
  if (tagWriteType === 'Replace')
    await deleteItemLinks(
      db,
      'item_tag',
      kind,
      existing.filter((t) => t.draft.tags).flatMap((t) => t.ids),
    )
  if (securityLabelWriteType === 'Replace') {
    await deleteItemLinks(
      db,
      'item_security_label',
      kind,
      existing.filter((t) => t.draft.labels).flatMap((t) => t.ids),
    )
  }
  const withAttributes = existing.filter((t) => t.draft.attributes)
  if (attributeWriteType === 'Replace') {
    const keys = await listAttributeKeys(
      db,
      kind,
      withAttributes.flatMap((t) => t.ids),
    )
    await deleteAttributesById(
      db,
      keys.map((k) => k.id),
    )
  } else if (attributeWriteType === 'Singleton') {
    const incomingTypes = new Map<number, Set<number>>()
    for (const t of withAttributes)
      for (const id of t.ids) incomingTypes.set(id, new Set(t.draft.attributes!.map((a) => a.typeId)))
    const keys = await listAttributeKeys(db, kind, [...incomingTypes.keys()])
    await deleteAttributesById(
      db,
      keys.filter((k) => incomingTypes.get(k.item_id)?.has(k.type_id)).map((k) => k.id),
    )
  }
}

/** A newer version of a source's object leaves out the attributes its item has already (job option sourceVersions). */
async function withoutHeld(
  db: Kysely<Database>,
  kind: ItemKind,
  targets: MetadataTarget[],
  attributes: { id: number; a: AttributeDraft }[],
) {
  const existingIds = targets.filter((t) => t.existing).flatMap((t) => t.ids)
  if (!existingIds.length) return attributes
  const held = new Set(
    (await listAttributeValues(db, kind, existingIds)).map((r) => `${r.item_id}|${r.type_id}|${r.value}`),
  )
  return attributes.filter(({ id, a }) => !held.has(`${id}|${a.typeId}|${a.value}`))
}

/** Applies the write types and inserts the chunk's metadata; returns the labels it created. */
export async function writeMetadata(
  db: Kysely<Database>,
  env: BatchEnvironment,
  kind: ItemKind,
  targets: MetadataTarget[],
): Promise<CreatedLabels> {
  if (targets.length === 0) return []
  const now = env.ctx.now
  const { ids: createdLabels, rows: newLabels } = await createDefinedLabels(db, env, targets)
  await removeReplaced(db, env, kind, targets)

  const tagNames = [...new Set(targets.flatMap((t) => t.draft.tags ?? []))]
  const tagIds = tagNames.length ? await findOrCreateTags(db, env.ownerId, tagNames, now) : new Map<string, number>()
  const tagLinks = targets.flatMap((t) =>
    t.ids.flatMap((id) =>
      (t.draft.tags ?? []).map((name) => ({
        tag_id: tagIds.get(name)!,
        item_kind: kind,
        item_id: id,
        date_added: now,
      })),
    ),
  )
  await insertRows(db, 'item_tag', tagLinks, [], { ignoreConflicts: true })
  await touchTags(db, [...tagIds.values()], now)

  const labelLinks = targets.flatMap((t) =>
    t.ids.flatMap((id) =>
      (t.draft.labels ?? []).map((ref) => ({
        label_id: labelIdOf(env, createdLabels, ref)!,
        item_kind: kind,
        item_id: id,
        date_added: now,
      })),
    ),
  )
  await insertRows(db, 'item_security_label', labelLinks, [], { ignoreConflicts: true })

  const attributeTargets = targets.filter(
    (t) => t.draft.attributes && !(t.existing && env.options.attributeWriteType === 'Static'),
  )
  let attributes = attributeTargets.flatMap((t) => t.ids.flatMap((id) => t.draft.attributes!.map((a) => ({ id, a }))))
  if (env.options.sourceVersions) attributes = await withoutHeld(db, kind, attributeTargets, attributes)
  const rows = attributes.map(({ id, a }) => ({
    owner_id: env.ownerId,
    item_kind: kind,
    item_id: id,
    type_id: a.typeId,
    value: a.value,
    displayed: a.displayed,
    pinned: a.pinned,
    source: a.source,
    created_by: env.ctx.caller.account.id,
    date_added: now,
    last_modified: now,
  }))
  if (!attributes.some(({ a }) => a.labels.length)) {
    await insertRows(db, 'attribute', rows)
  } else {
    // Returned rows carry no input position, so attribute labels are matched by (item, type, value).
    const inserted = await insertRows<{ id: number; item_id: number; type_id: number; value: string }>(
      db,
      'attribute',
      rows,
      ['id', 'item_id', 'type_id', 'value'],
    )
    const byKey = new Map<string, number[]>()
    for (const r of inserted)
      byKey.set(`${r.item_id}|${r.type_id}|${r.value}`, [
        ...(byKey.get(`${r.item_id}|${r.type_id}|${r.value}`) ?? []),
        r.id,
      ])
    const links = attributes.flatMap(({ id, a }) => {
      if (!a.labels.length) return []
      const attributeId = byKey.get(`${id}|${a.typeId}|${a.value}`)?.shift()
      return attributeId === undefined
        ? []
        : a.labels.map((ref) => ({
            label_id: labelIdOf(env, createdLabels, ref)!,
            item_kind: 'attribute',
            item_id: attributeId,
            date_added: now,
          }))
    })
    await insertRows(db, 'item_security_label', links, [], { ignoreConflicts: true })
  }
  return newLabels
}
