/**
 * /v3/indicators: Indicators of every type, addressed by id or by summary
 * (`/v3/indicators/evil.example`, URL Indicators URL-encoded), and /v3/indicators/deleted.
 */
import type { FastifyInstance } from 'fastify'
import { listDeletedIndicators } from '../../../domain/indicators/activity.js'
import type { IndicatorRecord } from '../../../domain/indicators/indicators.js'
import {
  createIndicatorObject,
  deleteIndicatorObject,
  deleteIndicatorsMatching,
  listIndicatorObjects,
  loadIndicatorRecords,
  resolveIndicatorRef,
  updateIndicatorObject,
} from '../../../domain/indicators/objects.js'
import { toApiTime } from '../../../core/time.js'
import { INDICATOR } from '../../../model/indicator.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { parseListQuery, query, single } from '../params.js'
import { presentIndicatorV3 } from '../present-indicator.js'
import { sendV3Body } from '../present.js'
import { INDICATOR_OPTIONS } from './v3-indicator-options.js'
import { DELETED_INDICATORS } from '../schemas.js'

export const INDICATORS: V3Endpoint<IndicatorRecord> = {
  path: 'indicators',
  kind: 'indicator',
  tqlType: 'indicators',
  word: 'Indicator',
  fields: declaredBodyFields(INDICATOR),
  options: INDICATOR_OPTIONS,
  present: presentIndicatorV3,
  list: listIndicatorObjects,
  load: loadIndicatorRecords,
  resolveId: resolveIndicatorRef,
  create: createIndicatorObject,
  update: updateIndicatorObject,
  remove: deleteIndicatorObject,
  removeMatching: deleteIndicatorsMatching,
}

/** GET /v3/indicators/deleted, beside the endpoint's routes (a static path wins over `/:id`). */
export async function deletedIndicatorRoutes(app: FastifyInstance) {
  app.get('/indicators/deleted', { schema: DELETED_INDICATORS }, async (req, reply) => {
    const q = query(req)
    const page = parseListQuery(q)
    const deleted = await listDeletedIndicators(req.ctx, {
      type: single(q, 'type'),
      deletedSince: single(q, 'deletedSince'),
      resultStart: page.resultStart,
      resultLimit: page.resultLimit,
    })
    const data = deleted.items.map((d) => ({
      ownerName: d.ownerName,
      dateAdded: toApiTime(d.dateAdded),
      dateDeleted: toApiTime(d.dateDeleted),
      type: d.type,
      summary: d.summary,
    }))
    return sendV3Body(reply, 200, { data, count: deleted.total, status: 'Success' })
  })
}
