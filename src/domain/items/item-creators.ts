/**
 * Who creates an item of each kind when a v3 body nests a new one (`associatedCases: {data:
 * [{name, severity, status}]}`), and who finds an existing one by its natural key (an
 * Indicator by type and value). The table reaches nested-writes.ts through the services
 * (ctx.services.nestedItems), never by import, because the creators themselves apply nested
 * members: importing them there would close a cycle through every kind.
 *
 * To add a kind: write `createXIn(ctx, body): Promise<ItemInfo>` in its domain module (it
 * runs inside the caller's transaction: use ctx.store.db only, never open another one) and
 * add it below.
 */
import { createArtifactIn } from '../cases/artifacts.js'
import { createCaseIn } from '../cases/cases.js'
import { createIntelRequirementIn } from '../cases/intel-requirements.js'
import type { NestedItemTable } from '../context.js'
import { createGroupIn } from '../groups/objects.js'
import { createIndicatorIn, findIndicatorByValue } from '../indicators/objects.js'
import { createVictimAssetIn } from '../victims/objects.js'

export const NESTED_ITEMS: NestedItemTable = {
  creators: {
    case: createCaseIn,
    artifact: createArtifactIn,
    intelRequirement: createIntelRequirementIn,
    indicator: createIndicatorIn,
    group: createGroupIn,
    victimAsset: createVictimAssetIn,
  },
  resolvers: { indicator: findIndicatorByValue },
}
