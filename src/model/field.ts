/**
 * The shape of a kind's declaration: each field of an Indicator, a Group, a Case… is spelled once,
 * with everything an interface needs to know of it — its names, its column, its value type, how a
 * body may set it, the fields= option that shows it, its TQL keywords and its place in STIX.
 *
 * Nothing here knows an interface. Each adapter derives its own table from a declaration: the v3
 * body fields and OPTIONS descriptors (protocols/v3), the TQL keyword tables (tql/keywords), the v2
 * and v3 route schemas, the presenters' field order and the STIX mappings (formats/). Where a
 * second spelling must stay (the store's row types, migrations), a test holds it against this one.
 *
 * @example
 *   export const NOTE = defineKind({
 *     kind: 'note', table: 'note', word: 'Note',
 *     fields: [
 *       { name: 'id', column: 'id', type: 'integer', description: 'The ID of the Note', write: 'never', tql: tql('ID') },
 *       { name: 'text', column: 'text', type: 'text', description: 'The text of the Note', required: true, tql: tql('Text') },
 *     ],
 *   })
 */

/** What a field holds, whatever an interface calls it. */
export type ValueType = 'text' | 'integer' | 'decimal' | 'boolean' | 'date' | 'user' | 'object'

/** How a request body may carry a field. */
export type Writability =
  /** Set on create and changed on update. */
  | 'always'
  /** Set on create only (an Indicator's type and values, the owner of a new item). */
  | 'create'
  /** Never set by a body: shown in answers (and by OPTIONS with show=readOnly). */
  | 'never'

/** TQL's value types (what OPTIONS /v3/<type>/tql shows for a keyword). */
export type TqlValueType = 'Integer' | 'String' | 'StringLower' | 'Date' | 'Enum' | 'Boolean'

/** One TQL keyword over a field's column. */
export interface TqlDeclaration {
  /** The keyword as written in a query; the field's name when absent. */
  keyword?: string
  /** The keyword's display name (OPTIONS /v3/<type>/tql). */
  name: string
  /** The keyword's description; the field's when absent. */
  description?: string
  /** TQL's type when it differs from the field's (text compared case-insensitively is `StringLower`). */
  type?: TqlValueType
  groupable?: boolean
  /** Maps what clients write to the stored spelling (a Group type written `intrusionSets`). */
  normalize?: (value: string) => string
}

/** What one subtype of a kind (a Group's type) asks of a field it carries. */
export interface SubtypeRule {
  /** Required in a create body of this subtype. */
  required?: boolean
  /** Required in an update body too (a Signature's name, fileName and fileType). */
  requiredOnUpdate?: boolean
  /** The allowed values for this subtype, where they differ between subtypes (a status). */
  values?: readonly string[]
}

export interface FieldDeclaration {
  /** The name in v3 (and, unless `v2` says otherwise, v2) bodies and answers, and on the domain's record. */
  name: string
  /** The column in the kind's table; absent for list members and values computed or stored elsewhere. */
  column?: string
  type: ValueType
  /** One sentence for OPTIONS and the OpenAPI documents. */
  description: string
  /** The allowed values, in their canonical spelling. */
  values?: readonly string[]
  /** How a body may carry it; `always` when absent. */
  write?: Writability
  /** Required in a create body. */
  required?: boolean
  /** v3's details: the type OPTIONS shows when not derived (`BigDecimal`, `Tag`…), a nested list, the fields= option that adds it to answers. */
  v3?: {
    type?: string; list?: boolean; option?: string
    /** `false`: a body may set it and answers show it, but OPTIONS /v3/<type> does not list it (a Group's sightings and external dates). */
    listed?: false
  } | false
  /** v2's details: another name, or `false` where v2 does not carry the field. */
  v2?: { name?: string; body?: false } | false
  /** TQL keywords over the field's column. */
  tql?: TqlDeclaration | readonly TqlDeclaration[]
  /** The STIX 2.1 property the field maps to. */
  stix21?: string
  /** Where STIX 1.1.1 carries it (an element of the Indicator, by name). */
  stix1?: string
  /** The name on the domain's record where it differs from `name` (a Group's `subject` is the record's `emailSubject`). */
  record?: string
  /**
   * For a kind whose subtypes carry different fields (a Group's type): the subtypes that carry
   * it, each with its own rule. Absent: every subtype carries it under the field's own rule.
   */
  subtypes?: Readonly<Record<string, SubtypeRule>>
}

/** A fields= value a kind declares itself (the metadata and association options come from the adapter). */
export interface OptionDeclaration {
  name: string
  description: string
}

export interface KindDeclaration<F extends readonly FieldDeclaration[] = readonly FieldDeclaration[]> {
  /** The kind's name in the domain (`indicator`, `note`…). */
  kind: string
  /** The table behind it. */
  table: string
  /** The singular word messages use (`Indicator`, `Intel Requirement`). */
  word: string
  fields: F
  /** fields= options of the kind's own (`sightings`, `externalDates`…); a field names the one that shows it in `v3.option`. */
  options?: readonly OptionDeclaration[]
}

/** Checks a declaration's shape and keeps its literal types, so a row type can be held against its columns. */
export function defineKind<const F extends readonly FieldDeclaration[]>(declaration: KindDeclaration<F>): KindDeclaration<F> {
  const names = new Set<string>()
  for (const field of declaration.fields) {
    if (names.has(field.name)) throw new Error(`${declaration.kind} declares ${field.name} twice`)
    names.add(field.name)
  }
  return declaration
}

/** A field's TQL keywords as a list (a declaration may give one or several). */
export function tqlOf(field: FieldDeclaration): readonly TqlDeclaration[] {
  if (!field.tql) return []
  return 'name' in field.tql ? [field.tql as TqlDeclaration] : (field.tql as readonly TqlDeclaration[])
}

/** The columns a declaration names, as a union of literals. */
export type ColumnsOf<K extends KindDeclaration> = Extract<K['fields'][number], { column: string }>['column']
