/**
 * Intelligence Requirements: a question the organization wants answered, with keyword
 * sections to match incoming intelligence. Written with `caseWrite` (the platform groups
 * them with case management); unique id and requirement text are unique within the owner.
 */
import { INTEL_REQUIREMENT_SUBTYPES, KEYWORD_COMPARE_VALUES } from '../../model/case-management.js'
import * as repo from '../../store/repositories/intel-requirement.repository.js'
import { type RequestContext, requirePermission } from '../context.js'
import { membershipFor } from '../access/owner-scope.js'
import { conflict, invalid, notFound } from '../../core/errors.js'
import { optionalBoolean, optionalText, requiredText } from '../../core/input.js'
import { type ItemInfo, requireWritableItem } from '../items/items.js'
import { deleteItemMetadata } from '../metadata/item-metadata.js'
import { type MemberName, applyMembers, isBody, takeMembers } from '../items/nested-writes.js'
import {
  type ListSource,
  type ObjectListQuery,
  findMatchingIds,
  inIdOrder,
  listObjectIds,
} from '../listing/object-lists.js'
import { withTransaction } from '../transaction.js'
import { type UserRef, loadUsers } from '../access/user-refs.js'

export const INTEL_REQUIREMENT_SOURCE: ListSource = {
  objectType: 'intelRequirements',
  table: 'intel_requirement',
  owner: 'owned',
}

export const INTEL_REQUIREMENT_MEMBERS: readonly MemberName[] = [
  'tags',
  'associatedArtifacts',
  'associatedCases',
  'associatedGroups',
  'associatedIndicators',
  'associatedVictimAssets',
]

export interface KeywordSection {
  compareValue: string
  keywords: { value: string }[]
  sectionNumber?: number
}

export interface IntelRequirementRecord {
  id: number
  xid: string | null
  uniqueId: string | null
  requirementText: string
  category: { name: string } | null
  subtype: { id: number; name: string; description: string } | null
  description: string | null
  keywordSections: KeywordSection[]
  resetResults: boolean
  createdBy: UserRef | null
  ownerId: number
  ownerName: string
  dateAdded: string
  lastModified: string
}

export async function loadIntelRequirements(
  ctx: RequestContext,
  ids: readonly number[],
): Promise<IntelRequirementRecord[]> {
  const rows = (await repo.findIntelRequirementsByIds(ctx.store, ids)).filter((r) => membershipFor(ctx, r.owner_id))
  const users = await loadUsers(
    ctx.store,
    rows.map((r) => r.created_by),
  )
  return inIdOrder(
    ids,
    rows.map((r) => ({
      id: r.id,
      xid: r.xid,
      uniqueId: r.unique_id,
      requirementText: r.requirement_text,
      category: r.category ? { name: r.category } : null,
      subtype: INTEL_REQUIREMENT_SUBTYPES.find((s) => s.name === r.subtype) ?? null,
      description: r.description,
      keywordSections: r.keyword_sections ? (JSON.parse(r.keyword_sections) as KeywordSection[]) : [],
      resetResults: !!r.reset_results,
      createdBy: (r.created_by && users.get(r.created_by)) || null,
      ownerId: r.owner_id,
      ownerName: r.owner_name,
      dateAdded: r.date_added,
      lastModified: r.last_modified,
    })),
  )
}

export async function listIntelRequirements(ctx: RequestContext, query: ObjectListQuery) {
  const page = await listObjectIds(ctx, INTEL_REQUIREMENT_SOURCE, query)
  return { ...page, items: await loadIntelRequirements(ctx, page.ids) }
}

export async function getIntelRequirement(ctx: RequestContext, id: number): Promise<IntelRequirementRecord> {
  const [record] = await loadIntelRequirements(ctx, [id])
  if (!record) throw notFound(`Intelligence Requirement ${id} not found`)
  return record
}

function readSubtype(value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required)
      throw invalid(
        `subtype is required, e.g. {"id": 1}; ids: ${INTEL_REQUIREMENT_SUBTYPES.map((s) => `${s.id} ${s.name}`).join(', ')}`,
      )
    return undefined
  }
  const ref = isBody(value) ? value : { id: value }
  const found = INTEL_REQUIREMENT_SUBTYPES.find(
    (s) => s.id === Number(ref.id) || (typeof ref.name === 'string' && s.name === ref.name),
  )
  if (!found)
    throw invalid(`Unknown subtype; ids: ${INTEL_REQUIREMENT_SUBTYPES.map((s) => `${s.id} ${s.name}`).join(', ')}`)
  return found.name
}

function readCategory(value: unknown): string | null | undefined {
  if (value === undefined) return undefined
  if (value === null) return null
  const name = isBody(value) ? value.name : value
  if (typeof name !== 'string' || !name.trim())
    throw invalid('category must be given by name, e.g. {"name": "CISO Priorities"}')
  return name.trim()
}

function readKeywordSections(value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required) throw invalid('keywordSections is required')
    return undefined
  }
  if (!Array.isArray(value)) throw invalid('keywordSections must be an array')
  const sections: KeywordSection[] = value.map((section, i) => {
    if (!isBody(section)) throw invalid(`keywordSections[${i}] must be an object`)
    const compareValue = String(section.compareValue ?? '').toLowerCase()
    if (!(KEYWORD_COMPARE_VALUES as readonly string[]).includes(compareValue))
      throw invalid(`keywordSections[${i}].compareValue must be includes or excludes`)
    if (!Array.isArray(section.keywords)) throw invalid(`keywordSections[${i}].keywords must be an array`)
    const keywords = section.keywords.map((k, j) => {
      if (!isBody(k) || typeof k.value !== 'string' || !k.value.trim())
        throw invalid(`keywordSections[${i}].keywords[${j}] needs a value`)
      return { value: k.value.trim() }
    })
    const sectionNumber = section.sectionNumber === undefined ? undefined : Number(section.sectionNumber)
    if (sectionNumber !== undefined && !Number.isInteger(sectionNumber))
      throw invalid(`keywordSections[${i}].sectionNumber must be a whole number`)
    return { compareValue, keywords, ...(sectionNumber !== undefined ? { sectionNumber } : {}) }
  })
  return JSON.stringify(sections)
}

function readFields(body: Record<string, unknown>, creating: boolean) {
  const values = {
    requirement_text: requiredText(body, 'requirementText', creating, { max: 500 }),
    unique_id: requiredText(body, 'uniqueId', creating, { max: 100 }),
    description: optionalText(body, 'description', { max: 65_500 }),
    category: readCategory(body.category),
    subtype: readSubtype(body.subtype, creating),
    keyword_sections: readKeywordSections(body.keywordSections, creating),
    reset_results:
      optionalBoolean(body, 'resetResults') === undefined ? undefined : optionalBoolean(body, 'resetResults') ? 1 : 0,
    xid: creating ? optionalText(body, 'xid', { max: 100 }) : undefined,
  }
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined),
  ) as Partial<repo.IntelRequirementValues>
}

async function checkUnique(
  ctx: RequestContext,
  ownerId: number,
  values: Partial<repo.IntelRequirementValues>,
  exceptId?: number,
) {
  if (values.unique_id === undefined && values.requirement_text === undefined) return
  const clash = await repo.findConflictingRequirement(
    ctx.store.db,
    ownerId,
    { uniqueId: values.unique_id ?? undefined, requirementText: values.requirement_text },
    exceptId,
  )
  if (clash)
    throw conflict(
      clash.unique_id === values.unique_id
        ? `uniqueId '${values.unique_id}' is already used`
        : 'Another requirement has the same requirementText',
    )
}

const IR_OPTIONS = { action: 'caseWrite' as const }

/** Creates a requirement inside an open transaction (also the nested creator for `associatedIntelRequirements`). */
export async function createIntelRequirementIn(ctx: RequestContext, body: Record<string, unknown>): Promise<ItemInfo> {
  await requirePermission(ctx, 'caseWrite')
  const { fields, members } = takeMembers(body, INTEL_REQUIREMENT_MEMBERS)
  const values = readFields(fields, true)
  await checkUnique(ctx, ctx.owner.id, values)
  const id = await repo.insertIntelRequirement(ctx.store.db, {
    owner_id: ctx.owner.id,
    xid: values.xid ?? null,
    unique_id: values.unique_id ?? null,
    requirement_text: values.requirement_text!,
    category: values.category ?? null,
    subtype: values.subtype ?? null,
    description: values.description ?? null,
    reset_results: values.reset_results ?? 0,
    keyword_sections: values.keyword_sections ?? null,
    created_by: ctx.caller.account.id,
    date_added: ctx.now,
    last_modified: ctx.now,
  })
  const item: ItemInfo = {
    kind: 'intelRequirement',
    id,
    ownerId: ctx.owner.id,
    ownerName: ctx.owner.name,
    membership: ctx.membership,
  }
  await applyMembers(ctx, item, members, IR_OPTIONS)
  return item
}

export async function createIntelRequirement(ctx: RequestContext, body: unknown): Promise<IntelRequirementRecord> {
  const item = await withTransaction(ctx, (tctx) => createIntelRequirementIn(tctx, body as Record<string, unknown>))
  return getIntelRequirement(ctx, item.id)
}

export async function updateIntelRequirement(
  ctx: RequestContext,
  id: number,
  body: unknown,
): Promise<IntelRequirementRecord> {
  await withTransaction(ctx, async (tctx) => {
    const item = await requireWritableItem(tctx, 'intelRequirement', id, 'caseWrite')
    const { fields, members } = takeMembers(body, INTEL_REQUIREMENT_MEMBERS)
    const values = readFields(fields, false)
    await checkUnique(tctx, item.ownerId, values, id)
    await repo.updateIntelRequirement(tctx.store.db, id, { ...values, last_modified: tctx.now })
    await applyMembers(tctx, item, members, IR_OPTIONS)
  })
  return getIntelRequirement(ctx, id)
}

async function removeRequirements(ctx: RequestContext, ids: readonly number[]) {
  await deleteItemMetadata(ctx.store.db, 'intelRequirement', ids)
  await repo.deleteIntelRequirements(ctx.store.db, ids)
}

export async function deleteIntelRequirement(ctx: RequestContext, id: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    await requireWritableItem(tctx, 'intelRequirement', id, 'caseWrite')
    await removeRequirements(tctx, [id])
  })
}

export async function deleteIntelRequirementsMatching(
  ctx: RequestContext,
  tql: string | undefined,
  scope: ObjectListQuery['ownerScope'],
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const ids = await findMatchingIds(tctx, INTEL_REQUIREMENT_SOURCE, tql, scope)
    for (const id of ids) await requireWritableItem(tctx, 'intelRequirement', id, 'caseWrite')
    await removeRequirements(tctx, ids)
    return ids.length
  })
}
