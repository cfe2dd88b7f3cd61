/** Every v2 route module, registered in this order. Add a module here to expose it. */
import type { FastifyInstance } from 'fastify'
import { ownerRoutes } from './owners.js'
import { typeRoutes } from './types.js'

export const V2_ROUTES: ((app: FastifyInstance) => Promise<void> | void)[] = [
  ownerRoutes,
  typeRoutes,
]
