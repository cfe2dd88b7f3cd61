/** Every v3 route module, registered in this order. Add a module here to expose it. */
import type { FastifyInstance } from 'fastify'
import { artifactRoutes } from './artifacts.js'
import { attributeTypeRoutes } from './attribute-types.js'
import { attributeRoutes } from './attributes.js'
import { caseRoutes } from './cases.js'
import { intelRequirementRoutes } from './intel-requirements.js'
import { noteRoutes } from './notes.js'
import { securityLabelRoutes } from './security-labels.js'
import { securityRoutes } from './security.js'
import { tagRoutes } from './tags.js'
import { groupFileRoutes } from './group-files.js'
import { groupRoutes } from './groups.js'
import { indicatorRoutes } from './indicators.js'
import { taskRoutes } from './tasks.js'
import { victimAssetRoutes } from './victim-assets.js'
import { victimRoutes } from './victims.js'

export const V3_ROUTES: ((app: FastifyInstance) => Promise<void> | void)[] = [
  tagRoutes,
  securityLabelRoutes,
  attributeTypeRoutes,
  attributeRoutes,
  securityRoutes,
  caseRoutes,
  artifactRoutes,
  noteRoutes,
  intelRequirementRoutes,
  indicatorRoutes,
  groupFileRoutes,
  groupRoutes,
  victimRoutes,
  victimAssetRoutes,
  taskRoutes,
]
