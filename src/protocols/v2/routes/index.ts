/** Every v2 route module, registered in this order. Add a module here to expose it. */
import type { FastifyInstance } from 'fastify'
import { ownerRoutes } from './owners.js'
import { typeRoutes } from './types.js'
import { securityLabelRoutes } from './security-labels.js'
import { tagRoutes } from './tags.js'
import { customMetricRoutes } from './custom-metrics.js'
import { playbookRoutes } from './playbooks.js'
import { indicatorRoutes } from './indicators.js'
import { groupRoutes } from './groups.js'
import { taskRoutes } from './tasks.js'
import { victimRoutes } from './victims.js'
import { batchRoutes } from './batch.js'

export const V2_ROUTES: ((app: FastifyInstance) => Promise<void> | void)[] = [
  ownerRoutes,
  typeRoutes,
  securityLabelRoutes,
  tagRoutes,
  customMetricRoutes,
  playbookRoutes,
  indicatorRoutes,
  groupRoutes,
  taskRoutes,
  victimRoutes,
  batchRoutes,
]
