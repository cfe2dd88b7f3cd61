/** Every v3 route module, registered in this order. Add a module here to expose it. */
import type { FastifyInstance } from 'fastify'

export const V3_ROUTES: ((app: FastifyInstance) => Promise<void> | void)[] = []
