/**
 * Records made from rows by a kind's declaration (model/): each declared column under its record
 * name (`record`, else `name`), flags as booleans. The reader is compiled once per kind into one
 * object literal, so a row costs what the hand-written mapping cost; the record's type is derived
 * from the same declaration and the store's row type.
 */
import type { FieldDeclaration, KindDeclaration } from '../model/field.js'

type Declared<K extends KindDeclaration> = Exclude<Extract<K['fields'][number], { column: string }>, { record: false }>
type RecordName<F> = F extends { record: string } ? F['record'] : F extends { name: string } ? F['name'] : never
type RecordValue<F, Row> = F extends { type: 'boolean' }
  ? boolean
  : F extends { column: infer C extends keyof Row }
    ? Row[C]
    : never

/** The record a row of a declared kind becomes. */
export type DeclaredRecord<K extends KindDeclaration, Row> = {
  [F in Declared<K> as RecordName<F>]: RecordValue<F, Row>
}

/**
 * `(row) => ({ id: row.id, …, malware: !!row.malware, ownerName: row.owner_name })`: the declared
 * columns, then `extra` (record name → a column the row brings from elsewhere, e.g. a join).
 */
export function declaredRecordReader<
  K extends KindDeclaration,
  Row,
  Extra extends Record<string, string> = Record<never, string>,
>(kind: K, extra?: Extra): (row: Row) => DeclaredRecord<K, Row> & { [E in keyof Extra]: Row[Extra[E] & keyof Row] } {
  const entries = new Map<string, string>()
  for (const f of kind.fields as readonly FieldDeclaration[]) {
    if (!f.column || f.record === false) continue
    const read = `row[${JSON.stringify(f.column)}]`
    entries.set(f.record ?? f.name, f.type === 'boolean' ? `!!${read}` : read)
  }
  for (const [name, column] of Object.entries(extra ?? {})) entries.set(name, `row[${JSON.stringify(column)}]`)
  const body = [...entries].map(([name, read]) => `${JSON.stringify(name)}: ${read}`).join(', ')
  return new Function('row', `return { ${body} }`) as never
}
