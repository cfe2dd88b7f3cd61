/**
 * Presenter parts derived from a kind's declaration (model/): the fields a fields= option adds
 * to a v3 answer. Each is compiled once, when the presenter's module loads, into one object
 * literal over the record (as store/engine/row-builder.ts does for rows), so presenting a record costs
 * what the hand-written literal did: no walk over the declaration per record.
 */
import { toApiTime } from '../../core/time.js'
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** The declared fields a fields= option adds, in declaration order. */
export function fieldsOfOption(declaration: KindDeclaration, option: string): FieldDeclaration[] {
  const fields = declaration.fields.filter((f) => f.v3 && f.v3.option === option)
  if (!fields.length) throw new Error(`${declaration.kind} declares no field shown with fields=${option}`)
  return fields
}

/** Their names in v3 answers, for an option's description: `a`, `a and b`, `a, b and c`. */
export function namesOfOption(declaration: KindDeclaration, option: string): string {
  const names = fieldsOfOption(declaration, option).map(v3Name)
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]
}

/**
 * `(record) => ({ <v3 name>: record.<path>, … })` for the fields the option adds; dates in the
 * API's form (toApiTime), values undefined where unset, as the presenters leave them for compact().
 *
 * @example presentOption(INDICATOR, 'externalDates')(record) // { externalDateAdded: '2026-…Z', … }
 */
export function presentOption<R>(declaration: KindDeclaration, option: string): (record: R) => Record<string, unknown> {
  const entries = fieldsOfOption(declaration, option).map((field) => {
    const path = recordPath(declaration, field)
    return `${JSON.stringify(v3Name(field))}: ${field.type === 'date' ? `toApiTime(r.${path})` : `r.${path}`}`
  })
  return new Function('toApiTime', `return (r) => ({ ${entries.join(', ')} })`)(toApiTime)
}

function v3Name(field: FieldDeclaration): string {
  return (field.v3 && field.v3.name) || field.name
}

function recordPath(declaration: KindDeclaration, field: FieldDeclaration): string {
  if (field.record === false) throw new Error(`${declaration.kind}.${field.name} is not on the record`)
  const path = field.record ?? field.name
  if (!path.split('.').every((part) => IDENTIFIER.test(part)))
    throw new Error(`${declaration.kind}.${field.name}: '${path}' is not a record path`)
  return path
}
