/**
 * The v3 endpoint behind each item kind, for associated* expansions. An explicit switch read
 * at call time (no registration side effects, and safe against import cycles). Add a kind's
 * endpoint here when its routes exist.
 */
import type { ItemKind } from '../../model/kinds.js'
import type { AnyEndpoint } from './endpoint.js'
import { ARTIFACTS } from './routes/artifacts.js'
import { CASES } from './routes/cases.js'
import { INTEL_REQUIREMENTS } from './routes/intel-requirements.js'
import { GROUPS } from './routes/groups.js'
import { INDICATORS } from './routes/indicators.js'
import { TASKS } from './routes/tasks.js'
import { VICTIM_ASSETS } from './routes/victim-assets.js'
import { VICTIMS } from './routes/victims.js'

export function endpointForKind(kind: ItemKind): AnyEndpoint | undefined {
  switch (kind) {
    case 'case': return CASES as unknown as AnyEndpoint
    case 'artifact': return ARTIFACTS as unknown as AnyEndpoint
    case 'intelRequirement': return INTEL_REQUIREMENTS as unknown as AnyEndpoint
    case 'indicator': return INDICATORS as unknown as AnyEndpoint
    case 'group': return GROUPS as unknown as AnyEndpoint
    case 'victim': return VICTIMS as unknown as AnyEndpoint
    case 'victimAsset': return VICTIM_ASSETS as unknown as AnyEndpoint
    case 'task': return TASKS as unknown as AnyEndpoint
    default: return undefined
  }
}
