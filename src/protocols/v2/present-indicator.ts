/**
 * Indicators in v2 shape. Lists of all types use the entity `indicator`, single-type endpoints
 * the type's apiEntity (`address`, `host` …); every record carries `summary` and the value fields
 * by their API names. includeAdditional adds counts and flags; includes=tags,
 * attributes, labels add the metadata arrays (loaded in bulk by presentIndicatorsV2).
 */
import type { RequestContext } from '../../domain/context.js'
import type { IndicatorRecord } from '../../domain/indicators/indicators.js'
import { type AttributeView, loadAttributes, loadLabels, loadTags } from '../../domain/metadata/item-metadata.js'
import type { SecurityLabel } from '../../domain/metadata/security-labels.js'
import type { Tag } from '../../domain/metadata/tags.js'
import type { Services } from '../../domain/services.js'
import { toApiTime } from '../../core/time.js'
import { findIndicatorType } from '../../model/indicator-types.js'
import { legacyIndicatorLink } from '../http/links.js'
import type { Include } from './params.js'
import { presentAttributeV2, presentSecurityLabelV2, presentTagV2 } from './present-metadata.js'

export interface IndicatorPresentOptions {
  /** Single-type endpoint (entity by apiEntity); value fields are carried in every shape. */
  typed?: boolean
  /** One item (GET/POST/PUT of one Indicator): adds the owner object. */
  single?: boolean
  tags?: Tag[]
  attributes?: AttributeView[]
  labels?: SecurityLabel[]
}

export function indicatorEntity(type: string): string {
  return findIndicatorType(type)?.apiEntity ?? 'indicator'
}

function valueFields(record: IndicatorRecord): Record<string, unknown> {
  const def = findIndicatorType(record.type)
  const out: Record<string, unknown> = {}
  def?.fields.forEach((field, i) => {
    if (record.values[i]) out[field.name] = record.values[i]
  })
  if (record.type === 'Host') {
    // The platform's v2 documents show these two as strings.
    out.dnsActive = String(record.dnsActive)
    out.whoisActive = String(record.whoisActive)
  }
  if (record.type === 'File' && record.size !== null) out.size = record.size
  return out
}

/** @example presentIndicatorV2(record, new Set(['additional']), services, { typed: true, single: true }) */
export function presentIndicatorV2(
  record: IndicatorRecord,
  includes: ReadonlySet<Include>,
  services: Services,
  options: IndicatorPresentOptions = {},
) {
  const out: Record<string, unknown> = { id: record.id, ownerName: record.ownerName }
  if (options.single) out.owner = { id: record.ownerId, name: record.ownerName, type: record.ownerType }
  Object.assign(out, {
    type: record.type,
    dateAdded: toApiTime(record.dateAdded),
    lastModified: toApiTime(record.lastModified),
    rating: record.rating ?? undefined,
    confidence: record.confidence ?? undefined,
    // Nothing computes threat assessment yet; until then it is the owner's own rating and confidence.
    threatAssessRating: record.threatAssessRating ?? record.rating ?? undefined,
    threatAssessConfidence: record.threatAssessConfidence ?? record.confidence ?? undefined,
    webLink: legacyIndicatorLink(services.publicUrl, indicatorEntity(record.type), record.summary, record.ownerName),
    description: record.description ?? undefined,
    // The v2 SDK's parser reads a record with `source` and none of ip/address/hashes/hostName as a URL,
    // so a custom type (whose value is in `summary`) would be taken for one.
    source: findIndicatorType(record.type)?.custom ? undefined : (record.source ?? undefined),
    summary: record.summary,
  })
  // Every list, mixed or typed, carries the value fields: the v2 SDK decides an Indicator's type and
  // value from them (a Host with dnsActive but no hostName becomes a Host without a value).
  Object.assign(out, valueFields(record))
  if (includes.has('additional')) {
    Object.assign(out, {
      threatAssessScore: record.threatAssessScore ?? undefined,
      calScore: record.calScore ?? undefined,
      observationCount: record.observationCount,
      lastObserved: toApiTime(record.lastObserved),
      falsePositiveCount: record.falsePositiveCount,
      falsePositiveLastReported: toApiTime(record.lastFalsePositive),
      privateFlag: record.privateFlag,
      active: record.active,
      activeLocked: record.activeLocked,
      firstSeen: toApiTime(record.firstSeen),
      lastSeen: toApiTime(record.lastSeen),
    })
  }
  if (includes.has('attributes')) out.attribute = (options.attributes ?? []).map(presentAttributeV2)
  if (includes.has('tags')) out.tag = (options.tags ?? []).map((t) => presentTagV2(services.publicUrl, t))
  if (includes.has('labels')) out.securityLabel = (options.labels ?? []).map(presentSecurityLabelV2)
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key]
  return out
}

/** Presents many Indicators, loading the requested metadata for all of them in three queries at most. */
export async function presentIndicatorsV2(
  ctx: RequestContext,
  records: IndicatorRecord[],
  includes: ReadonlySet<Include>,
  options: Omit<IndicatorPresentOptions, 'tags' | 'attributes' | 'labels'> = {},
) {
  const ids = records.map((r) => r.id)
  const db = ctx.store.db
  const [tags, attributes, labels] = await Promise.all([
    includes.has('tags') ? loadTags(db, 'indicator', ids) : undefined,
    includes.has('attributes') ? loadAttributes(db, 'indicator', ids) : undefined,
    includes.has('labels') ? loadLabels(db, 'indicator', ids) : undefined,
  ])
  return records.map((r) =>
    presentIndicatorV2(r, includes, ctx.services, {
      ...options,
      tags: tags?.get(r.id),
      attributes: attributes?.get(r.id),
      labels: labels?.get(r.id),
    }),
  )
}
