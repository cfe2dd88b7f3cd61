/**
 * Typed Indicator-to-Indicator associations (cidrToAddress, urlHost … and custom ones from
 * the association_type table). File actions are association types too, but live in
 * files.ts; they are not reachable here.
 */
import { associate, dissociate, requireAssociationType } from '../items/associations.js'
import type { RequestContext } from '../context.js'
import { notFound } from '../../core/errors.js'
import { type IndicatorQuery, indicatorItem, listIndicators } from './indicators.js'
import type { IndicatorRecord } from './record.js'

async function requireIndicatorAssociationType(ctx: RequestContext, branch: string, from: IndicatorRecord) {
  const type = await requireAssociationType(ctx.store.db, branch)
  if (type.file_action) throw notFound(`'${branch}' is a File action; use /actions/${type.api_branch}/indicators`)
  const fits = [...type.from_type.split(','), ...type.to_type.split(',')].map((t) => t.trim()).includes(from.type)
  if (!fits) throw notFound(`Association type '${type.name}' does not apply to ${from.type} Indicators`)
  return type
}

/**
 * Indicators associated with the Indicator through a typed association.
 * @example await listTypedAssociations(ctx, asn, 'asnToCidr', { resultLimit: 100 })
 */
export async function listTypedAssociations(
  ctx: RequestContext,
  record: IndicatorRecord,
  branch: string,
  query: Omit<IndicatorQuery, 'associatedWith' | 'associationTypeId'>,
) {
  indicatorItem(ctx, record)
  const type = await requireIndicatorAssociationType(ctx, branch, record)
  return listIndicators(ctx, {
    ...query,
    associatedWith: { kind: 'indicator', id: record.id },
    associationTypeId: type.id,
  })
}

/** Associates two Indicators through a typed association; the pair of types must fit it either way round. */
export async function addTypedAssociation(
  ctx: RequestContext,
  record: IndicatorRecord,
  branch: string,
  target: IndicatorRecord,
): Promise<void> {
  const type = await requireIndicatorAssociationType(ctx, branch, record)
  await associate(ctx, indicatorItem(ctx, record), indicatorItem(ctx, target), { associationTypeId: type.id })
}

export async function removeTypedAssociation(
  ctx: RequestContext,
  record: IndicatorRecord,
  branch: string,
  target: IndicatorRecord,
): Promise<void> {
  const type = await requireIndicatorAssociationType(ctx, branch, record)
  await dissociate(ctx, indicatorItem(ctx, record), indicatorItem(ctx, target), { associationTypeId: type.id })
}
