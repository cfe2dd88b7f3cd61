/**
 * Query parameters shared by the Group, Task and Victim routes: `filters` (with the `!`
 * operator Tasks take), `orParams`, paging and includes, parsed once into what the domain's
 * list functions take.
 */
import type { FastifyRequest } from 'fastify'
import { invalid } from '../../../core/errors.js'
import { requireGroupType } from '../../../domain/groups/groups.js'
import { parseItemId } from '../../../domain/items/items.js'
import type { FieldFilter, FilterOperator } from '../../../domain/listing/list-filters.js'
import {
  type Include,
  type Paging,
  type Query,
  flag,
  parseFilterExpressions,
  parseIncludes,
  parsePaging,
} from '../params.js'

export interface ListParams {
  paging: Paging
  includes: Set<Include>
  filters: FieldFilter[]
  orParams: boolean
}

export function parseListParams(q: Query): ListParams {
  return {
    paging: parsePaging(q),
    includes: parseIncludes(q),
    filters: parseFilterExpressions(q),
    orParams: flag(q, 'orParams'),
  }
}

/** The paging and filter part of a domain list query. */
export function listQuery(p: ListParams) {
  return {
    filters: p.filters,
    orParams: p.orParams,
    resultStart: p.paging.resultStart,
    resultLimit: p.paging.resultLimit,
  }
}

export type GroupParams = { groupType: string; groupId: string }

/** The type and id named in a Group path; an unknown type is 404 before the id is looked at. */
export function groupPath(req: FastifyRequest): { type: string; id: number } {
  const params = req.params as GroupParams
  requireGroupType(params.groupType)
  return { type: params.groupType, id: parseItemId('group', params.groupId) }
}

export const GROUP_PREFIX = '/groups/:groupType/:groupId'
