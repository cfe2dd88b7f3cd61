/**
 * Presenter parts made from a kind's declaration (model/), compiled once at load: a record is
 * presented by straight-line property copies, never by walking the declaration per record.
 */
import { toApiTime } from '../../domain/time.js'
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'

/** Copies a record's values into an answer (`out`), dates as API times. */
export type OptionWriter = (record: object, out: Record<string, unknown>) => void

/** The fields a fields= option adds (`v3.option`), in declaration order. */
export function optionFields(declaration: KindDeclaration, option: string): FieldDeclaration[] {
  return declaration.fields.filter((f) => f.v3 !== false && f.v3?.option === option)
}

/**
 * `(r, out) => { out.firstSeen = time(r.firstSeen); … }` for the fields a fields= option adds;
 * each value is read from the record under its record name (`record`, else `name`).
 */
export function declaredOptionWriter(declaration: KindDeclaration, option: string): OptionWriter {
  const fields = optionFields(declaration, option)
  if (fields.length === 0) throw new Error(`${declaration.kind} declares no field for fields=${option}`)
  const lines = fields.map((f) => {
    const read = `r[${JSON.stringify(f.record ?? f.name)}]`
    return `out[${JSON.stringify(f.name)}] = ${f.type === 'date' ? `time(${read})` : read}`
  })
  return new Function('time', `return function (r, out) { ${lines.join('; ')} }`)(toApiTime) as OptionWriter
}
