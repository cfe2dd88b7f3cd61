/**
 * Reads the attribute, tag and securityLabel arrays an Indicator or Group carries in a batch
 * file, with the same rules as the REST API (metadata/item-metadata.ts): the attribute type must exist and
 * apply to the kind, its value must fit; tags at most 128 characters; a label must exist in
 * the owner, unless the item defines it fully (name with color or description) and the caller
 * may manage labels. A missing array leaves that metadata of an existing item untouched.
 */
import type { ItemKind } from '../../model/kinds.js'
import { invalid } from '../../core/errors.js'
import { DISPLAYABLE, checkValue } from '../metadata/item-metadata.js'
import { checkTagName } from '../metadata/tags.js'
import { LABEL_NAME_MAX_LENGTH, normalizeColor } from '../metadata/security-labels.js'
import { type BatchEnvironment, findLabelId } from './environment.js'
import { booleanValue } from '../../core/input.js'

export type LabelRef = { id: number } | { name: string; color: string | null; description: string | null }

export interface AttributeDraft {
  typeId: number
  value: string
  displayed: number
  pinned: number
  source: string | null
  labels: LabelRef[]
}

export interface MetadataDraft {
  /** Undefined when the item carried no such array: existing metadata is left alone. */
  attributes?: AttributeDraft[]
  tags?: string[]
  labels?: LabelRef[]
}

function list(item: Record<string, unknown>, field: string): unknown[] | undefined {
  const value = item[field]
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value)) throw invalid(`${field} must be an array`)
  return value
}

function text(value: unknown, field: string): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  throw invalid(`${field} must be text`)
}

export function readLabels(env: BatchEnvironment, entries: unknown[] | undefined): LabelRef[] | undefined {
  if (!entries) return undefined
  if (entries.length && !env.may.applyLabel)
    throw invalid(`You do not have permission to apply security labels in ${env.ownerName}`)
  return entries.map((entry) => {
    const e = (typeof entry === 'string' ? { name: entry } : entry) as Record<string, unknown> | null
    if (!e || typeof e !== 'object' || typeof e.name !== 'string' || !e.name.trim())
      throw invalid('Each securityLabel needs a name')
    const name = e.name.trim()
    const id = findLabelId(env, name)
    if (id !== undefined) return { id }
    const defined =
      (e.color !== undefined && e.color !== null && e.color !== '') ||
      (typeof e.description === 'string' && e.description.trim() !== '')
    if (!defined)
      throw invalid(
        `Security Label '${name}' does not exist in ${env.ownerName}; define it with a color or description to create it`,
      )
    if (!env.may.manageLabels)
      throw invalid(
        `Security Label '${name}' does not exist in ${env.ownerName} and you do not have permission to create security labels`,
      )
    if (name.length > LABEL_NAME_MAX_LENGTH)
      throw invalid(`Security Label names are at most ${LABEL_NAME_MAX_LENGTH} characters`)
    return {
      name,
      color: normalizeColor(e.color),
      description: typeof e.description === 'string' ? e.description : null,
    }
  })
}

function readAttribute(env: BatchEnvironment, kind: ItemKind, entry: unknown): AttributeDraft {
  if (!entry || typeof entry !== 'object' || Array.isArray(entry))
    throw invalid('Each attribute must be an object with type and value')
  const a = entry as Record<string, unknown>
  if (a.type === undefined || a.type === null) throw invalid('Attribute type is required')
  if (a.value === undefined || a.value === null) throw invalid('Attribute value is required')
  const typeName = text(a.type, 'Attribute type')
  const type = env.attributeTypes.get(typeName)
  if (!type) throw invalid(`Unknown attribute type '${typeName}'`)
  if (!type.applies_to.split(',').includes(kind))
    throw invalid(`Attribute type '${typeName}' does not apply to ${kind}s`)
  const value = text(a.value, 'Attribute value')
  checkValue(type, value)
  return {
    typeId: type.id,
    value,
    displayed: DISPLAYABLE.has(type.name) && booleanValue(a.displayed, 'Attribute displayed') ? 1 : 0,
    pinned: booleanValue(a.pinned, 'Attribute pinned') ? 1 : 0,
    source: a.source === undefined || a.source === null ? null : text(a.source, 'Attribute source'),
    labels: readLabels(env, list(a, 'securityLabel')) ?? [],
  }
}

/** The item's metadata arrays, validated; throws `invalid` at the first bad entry. */
export function readMetadata(env: BatchEnvironment, kind: ItemKind, item: Record<string, unknown>): MetadataDraft {
  const attributes = list(item, 'attribute')?.map((a) => readAttribute(env, kind, a))
  const tags = list(item, 'tag')?.map((t) =>
    checkTagName(typeof t === 'object' && t !== null ? (t as { name?: unknown }).name : t),
  )
  return { attributes, tags: tags && [...new Set(tags)], labels: readLabels(env, list(item, 'securityLabel')) }
}
