/**
 * Every v3 endpoint, in the one list the plugin registers. The same list tells an
 * associated* expansion which endpoint presents a partner kind (see registerEndpoints), so no
 * module that an endpoint imports ever has to import the endpoints back.
 */
import type { FastifyInstance } from 'fastify'
import { ATTRIBUTE_ENDPOINTS, type AttributedKind } from '../../../domain/metadata/attributes.js'
import type { AnyEndpoint } from '../endpoint.js'
import { ARTIFACT_TYPES, ARTIFACTS } from './artifacts.js'
import { administrationRoutes } from './administration.js'
import { ATTRIBUTE_TYPES } from './attribute-types.js'
import { attributeEndpoint } from './attributes.js'
import { CASES } from './cases.js'
import { feedRoutes } from './feeds.js'
import { graphRoutes } from './graph.js'
import { groupFileRoutes } from './group-files.js'
import { importRoutes } from './imports.js'
import { listRoutes } from './lists.js'
import { savedSearchRoutes } from './saved-searches.js'
import { dashboardRoutes } from './dashboard.js'

import { feedRunRoutes } from './feed-runs.js'
import { GROUPS } from './groups.js'
import { deletedIndicatorRoutes, INDICATORS } from './indicators.js'
import { INTEL_REQUIREMENTS } from './intel-requirements.js'
import { NOTES } from './notes.js'
import { SECURITY_LABELS } from './security-labels.js'
import { OWNERS, USERS } from './security.js'
import { TAGS } from './tags.js'
import { TASKS } from './tasks.js'
import { VICTIM_ASSETS } from './victim-assets.js'
import { VICTIMS } from './victims.js'

export const V3_ENDPOINTS: readonly AnyEndpoint[] = [
  TAGS,
  SECURITY_LABELS,
  ATTRIBUTE_TYPES,
  ...(Object.keys(ATTRIBUTE_ENDPOINTS) as AttributedKind[]).map(attributeEndpoint),
  OWNERS,
  USERS,
  CASES,
  ARTIFACTS,
  ARTIFACT_TYPES,
  NOTES,
  INTEL_REQUIREMENTS,
  INDICATORS,
  GROUPS,
  VICTIMS,
  VICTIM_ASSETS,
  TASKS,
]

/** Routes that are not object endpoints. */
export const V3_EXTRA_ROUTES: readonly ((app: FastifyInstance) => Promise<void> | void)[] = [
  savedSearchRoutes,
  dashboardRoutes,
  deletedIndicatorRoutes,
  groupFileRoutes,
  importRoutes,
  feedRoutes,
  listRoutes,
  feedRunRoutes,
  administrationRoutes,
  graphRoutes,
]
