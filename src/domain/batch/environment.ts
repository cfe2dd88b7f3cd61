/**
 * What a running job knows about its owner, loaded once per job and kept current as the job
 * creates labels and tags: attribute types, Security Labels, Tag ids and the caller's rights.
 * Lets every item be validated in memory, before anything is written.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../store/database.js'
import { listUsableAttributeTypes } from '../../store/repositories/metadata.repository.js'
import { ensureStandardLabels, listLabelIds } from '../../store/repositories/security-label.repository.js'
import type { AttributeTypeRow } from '../metadata/item-metadata.js'
import type { RequestContext } from '../context.js'
import { isAllowed } from '../permissions.js'
import type { BatchOptions } from './definition.js'

export interface BatchEnvironment {
  ctx: RequestContext
  options: BatchOptions
  ownerId: number
  ownerName: string
  /** By name; an owner's own type wins over a system type of the same name. */
  attributeTypes: Map<string, AttributeTypeRow>
  /** Label id by exact name, and by lower-case name when that spelling is unique. */
  labels: Map<string, number>
  labelsLower: Map<string, number | null>
  tags: Map<string, number>
  may: {
    create: boolean
    update: boolean
    delete: boolean
    applyLabel: boolean
    manageLabels: boolean
    associate: boolean
    observe: boolean
  }
}

export async function loadBatchEnvironment(
  db: Kysely<Database>,
  ctx: RequestContext,
  options: BatchOptions,
): Promise<BatchEnvironment> {
  const ownerId = ctx.owner.id
  await ensureStandardLabels(db, ownerId, ctx.now)
  const types = await listUsableAttributeTypes(db, ownerId)
  const attributeTypes = new Map<string, AttributeTypeRow>()
  for (const t of types) if (!attributeTypes.has(t.name) || t.owner_id !== null) attributeTypes.set(t.name, t)
  const env: BatchEnvironment = {
    ctx,
    options,
    ownerId,
    ownerName: ctx.owner.name,
    attributeTypes,
    labels: new Map(),
    labelsLower: new Map(),
    tags: new Map(),
    may: {
      create: isAllowed(ctx.membership, 'create'),
      update: isAllowed(ctx.membership, 'update'),
      delete: isAllowed(ctx.membership, 'delete'),
      applyLabel: isAllowed(ctx.membership, 'applyLabel'),
      manageLabels: isAllowed(ctx.membership, 'manageLabels'),
      associate: isAllowed(ctx.membership, 'associate'),
      observe: isAllowed(ctx.membership, 'observe'),
    },
  }
  for (const label of await listLabelIds(db, ownerId)) rememberLabel(env, label.name, label.id)
  return env
}

export function rememberLabel(env: BatchEnvironment, name: string, id: number) {
  env.labels.set(name, id)
  const lower = name.toLowerCase()
  env.labelsLower.set(lower, env.labelsLower.has(lower) && env.labelsLower.get(lower) !== id ? null : id)
}

/** The label's id: the exact spelling first, else the one spelling that differs only in case. */
export function findLabelId(env: BatchEnvironment, name: string): number | undefined {
  return env.labels.get(name) ?? env.labelsLower.get(name.toLowerCase()) ?? undefined
}
