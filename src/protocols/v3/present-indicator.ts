/**
 * An Indicator in v3: the default fields, and the fields= values the record itself holds
 * (threatAssess, observations, sightings, externalDates, geoLocation, whoIs,
 * genericCustomIndicatorValues). Expansions that need more data load in v3-indicator-options.ts.
 */
import type { RequestContext } from '../../domain/context.js'
import type { IndicatorRecord } from '../../domain/indicators/indicators.js'
import { toApiTime } from '../../core/time.js'
import { INDICATOR } from '../../model/indicator.js'
import { findIndicatorType } from '../../model/indicator-types.js'
import { detailsLink, legacyIndicatorLink } from '../http/links.js'
import { presentOption } from './declared-present.js'
import type { FieldTree } from './params.js'
import { compact } from './present-metadata.js'

/** Value fields by their API names; custom types by their labels, or value1..3 with genericCustomIndicatorValues. */
function valueFields(record: IndicatorRecord, generic: boolean): Record<string, unknown> {
  const def = findIndicatorType(record.type)
  if (!def) return {}
  const out: Record<string, unknown> = {}
  def.fields.forEach((field, i) => {
    const value = record.values[i]
    if (value === null || value === undefined) return
    out[def.custom && generic ? `value${i + 1}` : field.name] = value
  })
  if (def.name === 'Host') Object.assign(out, { dnsActive: record.dnsActive, whoisActive: record.whoisActive })
  if (def.name === 'File' && record.size !== null) out.size = record.size
  return out
}

const threatAssessScores = presentOption<IndicatorRecord>(INDICATOR, 'threatAssess')
const observations = presentOption<IndicatorRecord>(INDICATOR, 'observations')
const sightings = presentOption<IndicatorRecord>(INDICATOR, 'sightings')
const externalDates = presentOption<IndicatorRecord>(INDICATOR, 'externalDates')
const addressData = presentOption<IndicatorRecord>(INDICATOR, 'geoLocation')

function threatAssess(r: IndicatorRecord) {
  // The platform's collective (CAL) score; Bulwark has no collective layer, so its own score stands in when none is stored.
  return { ...threatAssessScores(r), svcScore: r.calScore ?? r.threatAssessScore }
}

/** geoLocation from the Address data kept with the Indicator (no lookup service runs here). */
function geoLocation(r: IndicatorRecord): Record<string, unknown> | undefined {
  const geo = compact(addressData(r))
  return r.type === 'Address' && Object.keys(geo).length ? geo : undefined
}

/** @example presentIndicatorV3(record, { ctx, fields: new Map([['observations', new Map()]]) }) */
export function presentIndicatorV3(
  r: IndicatorRecord,
  { ctx, fields }: { ctx: RequestContext; fields: FieldTree },
): Record<string, unknown> {
  const publicUrl = ctx.services.publicUrl
  const def = findIndicatorType(r.type)
  const out: Record<string, unknown> = {
    id: r.id,
    ownerId: r.ownerId,
    ownerName: r.ownerName,
    dateAdded: toApiTime(r.dateAdded),
    webLink: detailsLink(publicUrl, 'indicators', r.id),
    type: r.type,
    lastModified: toApiTime(r.lastModified),
    rating: r.rating,
    confidence: r.confidence,
    source: r.source,
    description: r.description,
    summary: r.summary,
    privateFlag: r.privateFlag,
    active: r.active,
    activeLocked: r.activeLocked,
    ...valueFields(r, fields.has('genericCustomIndicatorValues')),
    legacyLink: legacyIndicatorLink(publicUrl, def?.apiEntity ?? r.type, r.summary, r.ownerName),
  }
  if (fields.has('threatAssess')) Object.assign(out, threatAssess(r))
  if (fields.has('observations')) Object.assign(out, observations(r))
  if (fields.has('sightings')) Object.assign(out, sightings(r))
  if (fields.has('externalDates')) Object.assign(out, externalDates(r))
  if (fields.has('geoLocation')) out.geoLocation = geoLocation(r)
  return compact(out)
}
