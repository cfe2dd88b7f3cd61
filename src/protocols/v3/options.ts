/**
 * OPTIONS outputs, generated from the endpoint declaration that also drives presenters and
 * body handling: /v3/<type> (settable fields; show=readOnly adds read-only ones), /fields
 * (fields= values) and /tql (TQL keywords).
 */
import { hasTqlObjectType, listTqlKeywords } from '../../tql/index.js'
import type { AnyEndpoint, FieldSpec } from './endpoint.js'

function describe(field: FieldSpec): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    description: field.description,
    required: !!field.required,
    type: field.type,
  }
  if (field.readOnly) entry['read-only'] = true
  if (field.updatable === false) entry.updatable = false
  if (field.values) entry.values = field.values
  return field.list ? { data: [entry] } : entry
}

/** `{fieldName: {description, required, type, …}}`, alphabetical, as the platform answers. */
export function fieldDescriptor(endpoint: AnyEndpoint, includeReadOnly: boolean): Record<string, unknown> {
  const fields = endpoint.fields.filter((f) => includeReadOnly || !f.readOnly)
  return Object.fromEntries([...fields].sort((a, b) => a.name.localeCompare(b.name)).map((f) => [f.name, describe(f)]))
}

export function fieldOptions(endpoint: AnyEndpoint) {
  return endpoint.options.map((o) => ({
    name: o.name,
    description: o.description,
    includedByDefault: !!o.includedByDefault,
  }))
}

export function tqlOptions(endpoint: AnyEndpoint) {
  return endpoint.tqlType && hasTqlObjectType(endpoint.tqlType) ? listTqlKeywords(endpoint.tqlType) : []
}
