/**
 * Who creates an item of each kind when a v3 body nests a new one (`associatedCases: {data:
 * [{name, severity, status}]}`), and who finds an existing one by its natural key (an
 * Indicator by type and value). The lists are explicit switches, read at call time, so
 * modules that import each other stay safe.
 *
 * To add a kind: write `createXIn(ctx, body): Promise<ItemInfo>` in its domain module (it
 * runs inside the caller's transaction: use ctx.store.db only, never open another one) and
 * add a case below.
 */
import type { ItemKind } from '../../model/kinds.js'
import { createArtifactIn } from '../cases/artifacts.js'
import { createCaseIn } from '../cases/cases.js'
import type { RequestContext } from '../context.js'
import { createIntelRequirementIn } from '../cases/intel-requirements.js'
import type { ItemInfo } from './items.js'
import { createGroupIn } from '../groups/objects.js'
import { createIndicatorIn, findIndicatorByValue } from '../indicators/objects.js'
import { createVictimAssetIn } from '../victims/objects.js'

/** Creates one item from a nested v3 body inside an open transaction, checking permissions itself. */
export type ItemCreator = (ctx: RequestContext, body: Record<string, unknown>) => Promise<ItemInfo>

/** Finds an existing item from a nested body without an id (undefined: not found, create it). */
export type ItemResolver = (ctx: RequestContext, body: Record<string, unknown>) => Promise<ItemInfo | undefined>

export function findItemCreator(kind: ItemKind): ItemCreator | undefined {
  switch (kind) {
    case 'case': return createCaseIn
    case 'artifact': return createArtifactIn
    case 'intelRequirement': return createIntelRequirementIn
    case 'indicator': return createIndicatorIn
    case 'group': return createGroupIn
    case 'victimAsset': return createVictimAssetIn
    default: return undefined
  }
}

export function findItemResolver(kind: ItemKind): ItemResolver | undefined {
  switch (kind) {
    case 'indicator': return findIndicatorByValue
    default: return undefined
  }
}
