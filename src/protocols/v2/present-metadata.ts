/** v2 shapes of metadata and catalogues: attributes, security labels, tags, and the Indicator, attribute and association types. */
import type { IndicatorTypeDef } from '../../model/indicator-types.js'
import type { AttributeView } from '../../domain/metadata/item-metadata.js'
import type { SecurityLabel } from '../../domain/metadata/security-labels.js'
import type { Tag, WeighedTag } from '../../domain/metadata/tags.js'
import type { AssociationType, AttributeType } from '../../domain/metadata/types.js'
import { toApiTime } from '../../core/time.js'
import { tagLink } from '../http/links.js'

export function presentAttributeV2(a: AttributeView) {
  return {
    id: a.id,
    type: a.type,
    dateAdded: toApiTime(a.dateAdded),
    lastModified: toApiTime(a.lastModified),
    displayed: a.displayed,
    value: a.value,
    ...(a.source ? { source: a.source } : {}),
  }
}

export function presentSecurityLabelV2(label: SecurityLabel) {
  return {
    name: label.name,
    description: label.description ?? undefined,
    dateAdded: toApiTime(label.dateAdded),
    ...(label.color ? { color: label.color } : {}),
  }
}

/** A tag on an item: its name and link. */
export function presentTagV2(publicUrl: string, tag: Tag) {
  return { name: tag.name, webLink: tagLink(publicUrl, tag.name, tag.ownerName) }
}

/** A tag as an object of /v2/tags, with its weight; the description only where asked for. */
export function presentWeighedTagV2(publicUrl: string, tag: WeighedTag, withDescription: boolean) {
  return {
    name: tag.name,
    ...(withDescription && tag.description ? { description: tag.description } : {}),
    webLink: tagLink(publicUrl, tag.name, tag.ownerName),
    weight: tag.weight,
  }
}

/** The platform shows the flags of the type catalogues as the strings "true" and "false". */
export function presentIndicatorTypeV2(t: IndicatorTypeDef, additional: boolean) {
  const record: Record<string, unknown> = {
    name: t.name,
    custom: String(t.custom),
    parsable: String(t.parsable),
    apiBranch: t.apiBranch,
    apiEntity: t.apiEntity,
  }
  if (t.custom) record.casePreference = t.casePreference
  if (t.custom || t.name === 'File') {
    t.fields.forEach((f, i) => {
      record[`value${i + 1}Label`] = f.label
      record[`value${i + 1}Type`] = f.type
      if (t.custom && f.options) record[`value${i + 1}Option`] = f.options.join(';')
    })
  }
  if (additional) {
    record.regexes = [...t.regexes]
    record.keys = Object.fromEntries(t.fields.map((f, i) => [`key${i + 1}`, f.name]))
  }
  return record
}

export function presentAttributeTypeV2(t: AttributeType, withRule: boolean) {
  return {
    id: t.id,
    name: t.name,
    description: t.description ?? undefined,
    errorMessage: t.errorMessage ?? undefined,
    maxSize: t.maxSize,
    allowMarkdown: t.allowMarkdown,
    system: t.system,
    owner: t.ownerName ?? undefined,
    appliesTo: t.appliesTo,
    ...(withRule && t.validationRule ? { validationRule: t.validationRule } : {}),
  }
}

export function presentAssociationTypeV2(t: AssociationType) {
  return { name: t.name, custom: String(t.custom), fileAction: String(t.fileAction), apiBranch: t.apiBranch }
}
