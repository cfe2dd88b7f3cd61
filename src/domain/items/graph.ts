/**
 * The association graph, a bounded step at a time: an item with its neighbours counted (never fetched), then
 * one page of neighbours of a kind (at most MAX_GRAPH_PAGE), each with its own count so a client can show how
 * much an expansion would add before asking. Only items in owners the caller reads are counted or returned,
 * the rule of every v3 list; the item itself must be readable (findReadableItem), else it is not found.
 * Neighbours of kind Indicator may be narrowed by TQL, compiled and run under the caller's TQL time limit.
 */
import { invalid, notFound } from '../../core/errors.js'
import {
  type GraphKind,
  type GraphNodeRow,
  type NeighbourFilter,
  countGraphDegrees,
  countGraphNeighbours,
  countGraphNeighboursMatching,
  selectGraphNeighbourPage,
  selectGraphNode,
} from '../../store/repositories/graph.repository.js'
import { listAssociationTypeRows } from '../../store/repositories/association.repository.js'
import { type CompiledTql, compileTql, withTqlTimeout } from '../../tql/index.js'
import { readableOwnerIds } from '../access/owner-scope.js'
import type { RequestContext } from '../context.js'
import { isAssociable, requireAssociationType } from './associations.js'
import { KIND_WORDS, findReadableItem } from './items.js'

/** The kinds as the v3 API's paths name them, in the order a graph lists them. */
export const GRAPH_KINDS = {
  groups: 'group',
  indicators: 'indicator',
  victims: 'victim',
  victimAssets: 'victimAsset',
  cases: 'case',
  tasks: 'task',
  artifacts: 'artifact',
  intelRequirements: 'intelRequirement',
} as const satisfies Record<string, GraphKind>
export type GraphKindName = keyof typeof GRAPH_KINDS

const KIND_NAMES = Object.fromEntries(Object.entries(GRAPH_KINDS).map(([name, kind]) => [kind, name])) as Record<
  GraphKind,
  GraphKindName
>

export const DEFAULT_GRAPH_PAGE = 25
/** A neighbour's own partners are counted up to this many of each kind (`degreeCapped` says when reached). */
export const DEGREE_CAP = 1000
export const MAX_GRAPH_PAGE = 100

export interface GraphNode {
  id: number
  kind: GraphKindName
  type: string
  summary: string
  owner: string
  rating: number | null
}

export interface NeighbourCount {
  kind: GraphKindName
  type: string
  /** A custom association type's name (Indicator to Indicator); null for the plain association. */
  associationType: string | null
  count: number
}

export interface GraphNodeWithCounts extends GraphNode {
  neighbours: NeighbourCount[]
  degree: number
}

export interface NeighbourPage {
  data: (GraphNode & { degree: number; degreeCapped: boolean; associationType: string | null })[]
  /** Neighbours matching the request in all, of which `data` is the page from `resultStart`. */
  count: number
  resultStart: number
  resultLimit: number
}

export function parseGraphKind(text: string): GraphKind {
  const kind = (GRAPH_KINDS as Record<string, GraphKind>)[text]
  if (!kind || !Object.hasOwn(GRAPH_KINDS, text)) throw notFound(`No graph for '${text}': not an item kind`)
  return kind
}

const partnerKinds = (kind: GraphKind): GraphKind[] =>
  Object.values(GRAPH_KINDS).filter((other) => isAssociable(kind, other))

async function requireNode(ctx: RequestContext, kind: GraphKind, id: number): Promise<GraphNode> {
  await findReadableItem(ctx, kind, id)
  const row = await selectGraphNode(ctx.store.db, kind, id)
  if (!row) throw notFound(`${KIND_WORDS[kind]} ${id} not found`)
  return presentNode(ctx, kind, row)
}

function presentNode(ctx: RequestContext, kind: GraphKind, row: GraphNodeRow): GraphNode {
  const owner = ctx.caller.memberships.find((m) => m.ownerId === row.owner_id)?.ownerName ?? ''
  return { id: row.id, kind: KIND_NAMES[kind], type: row.type, summary: row.summary, owner, rating: row.rating }
}

async function associationTypeNames(ctx: RequestContext): Promise<Map<number, string>> {
  return new Map((await listAssociationTypeRows(ctx.store.db)).map((row) => [row.id, row.name]))
}

/**
 * An item and its readable neighbours counted by kind, type and association type.
 * @example const root = await getGraphNode(ctx, 'group', 12) // root.neighbours: [{kind: 'indicators', type: 'Host', associationType: null, count: 60}]
 */
export async function getGraphNode(ctx: RequestContext, kind: GraphKind, id: number): Promise<GraphNodeWithCounts> {
  const node = await requireNode(ctx, kind, id)
  const ownerIds = readableOwnerIds(ctx)
  const typeNames = await associationTypeNames(ctx)
  const neighbours: NeighbourCount[] = []
  for (const toKind of partnerKinds(kind)) {
    const rows = await countGraphNeighbours(ctx.store.db, { kind, id }, toKind, ownerIds)
    for (const row of rows)
      neighbours.push({
        kind: KIND_NAMES[toKind],
        type: row.type,
        associationType: row.association_type_id === 0 ? null : (typeNames.get(row.association_type_id) ?? null),
        count: row.count,
      })
  }
  neighbours.sort((a, b) => kindOrder(a.kind) - kindOrder(b.kind) || b.count - a.count || a.type.localeCompare(b.type))
  return { ...node, neighbours, degree: neighbours.reduce((sum, n) => sum + n.count, 0) }
}

const kindOrder = (name: GraphKindName) => Object.keys(GRAPH_KINDS).indexOf(name)

export interface NeighbourRequest {
  kind?: GraphKind
  type?: string
  /** A custom association type's name or API branch; absent for the plain association. */
  associationType?: string
  tql?: string
  /** Only these neighbours (at most a page of them): how a client rebuilds a graph from the ids it kept. */
  ids?: number[]
  resultStart: number
  resultLimit: number
}

async function timeLimit(ctx: RequestContext): Promise<number | null> {
  return ctx.caller.account.tqlTimeoutMs ?? (await ctx.services.settings.get('tqlTimeoutMs'))
}

/**
 * One page of an item's readable neighbours: of one kind, or of every kind in GRAPH_KINDS' order.
 * @example await listGraphNeighbours(ctx, 'group', 12, { kind: 'indicator', resultStart: 0, resultLimit: 25 })
 */
export async function listGraphNeighbours(
  ctx: RequestContext,
  kind: GraphKind,
  id: number,
  request: NeighbourRequest,
): Promise<NeighbourPage> {
  checkPage(request)
  if (request.ids && (!request.kind || request.ids.length > MAX_GRAPH_PAGE))
    throw invalid(`ids needs kind and names at most ${MAX_GRAPH_PAGE} neighbours`)
  await requireNode(ctx, kind, id)
  const association = request.associationType
    ? await requireAssociationType(ctx.store.db, request.associationType)
    : null
  const compiled = request.tql?.trim() ? compileFilter(ctx, request.tql) : undefined
  const kinds = (request.kind ? [request.kind] : partnerKinds(kind)).filter(
    (k) => isAssociable(kind, k) && (!association || k === 'indicator') && (!compiled || k === 'indicator'),
  )
  const ownerIds = readableOwnerIds(ctx)
  const filterOf = (toKind: GraphKind, where?: CompiledTql['where']): NeighbourFilter => ({
    from: { kind, id },
    toKind,
    associationTypeId: association?.id ?? 0,
    ownerIds,
    ...(request.type !== undefined ? { type: request.type } : {}),
    ...(where ? { where } : {}),
    ...(request.ids ? { ids: request.ids } : {}),
  })
  const read = async (db: RequestContext['store']['db'], guard: (w: CompiledTql['where']) => CompiledTql['where']) => {
    const rows: { kind: GraphKind; row: GraphNodeRow }[] = []
    let count = 0
    for (const toKind of kinds) {
      const filter = filterOf(toKind, compiled && guard(compiled.where))
      const total = await countGraphNeighboursMatching(db, filter)
      const offset = Math.max(0, request.resultStart - count)
      const limit = Math.max(0, request.resultLimit - rows.length)
      if (offset < total && limit > 0)
        for (const row of await selectGraphNeighbourPage(db, filter, { offset, limit }))
          rows.push({ kind: toKind, row })
      count += total
    }
    return { rows, count }
  }
  const { rows, count } = compiled
    ? await withTqlTimeout(ctx.store, await timeLimit(ctx), (scope) =>
        read(scope.db, (where) => scope.guard(where, compiled.table)),
      )
    : await read(ctx.store.db, (where) => where)
  const degrees = await degreesOf(ctx, rows, ownerIds)
  return {
    data: rows.map(({ kind: k, row }) => ({
      ...presentNode(ctx, k, row),
      degree: degrees.get(`${k}:${row.id}`)?.n ?? 0,
      degreeCapped: degrees.get(`${k}:${row.id}`)?.capped ?? false,
      associationType: association?.name ?? null,
    })),
    count,
    resultStart: request.resultStart,
    resultLimit: request.resultLimit,
  }
}

function checkPage(request: NeighbourRequest) {
  if (!Number.isSafeInteger(request.resultStart) || request.resultStart < 0)
    throw invalid('resultStart must be a whole number from 0')
  if (!Number.isSafeInteger(request.resultLimit) || request.resultLimit < 1 || request.resultLimit > MAX_GRAPH_PAGE)
    throw invalid(`resultLimit must be between 1 and ${MAX_GRAPH_PAGE} (a graph grows a bounded page at a time)`)
}

function compileFilter(ctx: RequestContext, tql: string): CompiledTql {
  return compileTql('indicators', tql, {
    dialect: ctx.store.dialect,
    now: new Date(ctx.now),
    visibleOwnerIds: readableOwnerIds(ctx),
  })
}

/** Each page member's readable partners of every kind, up to DEGREE_CAP of each; one statement per pair of kinds. */
async function degreesOf(
  ctx: RequestContext,
  rows: { kind: GraphKind; row: GraphNodeRow }[],
  ownerIds: number[],
): Promise<Map<string, { n: number; capped: boolean }>> {
  const degrees = new Map<string, { n: number; capped: boolean }>()
  const byKind = new Map<GraphKind, number[]>()
  for (const { kind, row } of rows) byKind.set(kind, [...(byKind.get(kind) ?? []), row.id])
  for (const [fromKind, ids] of byKind)
    for (const toKind of partnerKinds(fromKind))
      for (const [id, n] of await countGraphDegrees(ctx.store.db, fromKind, ids, toKind, ownerIds, DEGREE_CAP)) {
        const sum = degrees.get(`${fromKind}:${id}`) ?? { n: 0, capped: false }
        degrees.set(`${fromKind}:${id}`, { n: sum.n + n, capped: sum.capped || n >= DEGREE_CAP })
      }
  return degrees
}
