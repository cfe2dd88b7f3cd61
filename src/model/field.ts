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
  /** The bounds a number given in a body must keep to (both inclusive). */
  range?: readonly [min: number, max: number]
  /** The types of the kind (an Indicator's `Host`, `File`…) that carry the field; a body's value for any other is ignored. */
  onlyTypes?: readonly string[]
  /** Never null once stored (a NOT NULL column without a default: an id, a name, a creation date). */
  notNull?: true
  /** What a new row holds when a create body leaves the field out (null when absent). */
  default?: boolean | number | string
  /**
   * Where the domain's record holds it when not under `name` (a Group's `subject` is the record's
   * `emailSubject`; a dotted path for a nested one), or `false` when the record holds it otherwise or not at all.
   */
  record?: string | false
  /** How a body may carry it; `always` when absent. */
  write?: Writability
  /** Required in a create body. */
  required?: boolean
  /**
   * v3's details: the type OPTIONS shows when not derived (`BigDecimal`, `Tag`…), a nested list, the
   * fields= option that adds it to answers, and how a v3 body may carry it where v3 is stricter than
   * `write` (the Security Labels v2 edits and v3 only shows); `unlisted` where answers carry it
   * but OPTIONS and the route schemas do not name it.
   */
  v3?:
    | {
        type?: string
        list?: boolean
        option?: string
        write?: Writability
        /** Answers carry it (and a body may set it), but OPTIONS /v3/<type> does not list it (a Group's sightings and external dates). */
        unlisted?: true
        /** Another name in v3 answers (`observations` for the observation count). */
        name?: string
        /** Not a body field: shown in answers only (through `option`), so OPTIONS /v3/<type> does not list it. */
        body?: false
      }
    | false
  /**
   * v2's details: another name, `false` where v2 does not carry the field, `body: false` where
   * v2 bodies do not carry it (`optional` where a v2 body may leave out a required field),
   * `record: false` where v2 answers do not, `always` where every v2 answer has it, and the
   * description its schema gives (none when absent, as v2's schemas had).
   */
  v2?: { name?: string; body?: false | 'optional'; record?: false; always?: true; description?: string } | false
  /**
   * Where a field without a column of its own is read through one: `column` of the `table` row
   * that this row's `key` column names (an Artifact's type name, through type_id).
   */
  lookup?: { table: string; column: string; key: string }
  /** TQL keywords over the field's column (or its lookup). */
  tql?: TqlDeclaration | readonly TqlDeclaration[]
  /** The STIX 2.1 property the field maps to. */
  stix21?: string
  /**
   * The properties of an imported STIX 2.0 or 2.1 object that set the field, the first one present
   * winning (an imported indicator's `created` is its source's, so it sets externalDateAdded, not dateAdded).
   */
  stixImport?: readonly string[]
  /** Where STIX 1.1.1 carries it (an element of the Indicator, by name). */
  stix1?: string
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
  /**
   * The order TQL lists the fields' keywords in (OPTIONS /v3/<type>/tql), where it is not the
   * fields' order (which is the order answers carry them in).
   */
  tqlOrder?: readonly F[number]['name'][]
  /** The order of the keywords themselves, by keyword, where one field's keywords stand apart (the Indicator's). */
  tqlKeywordOrder?: readonly string[]
  /** fields= options of the kind's own (`sightings`, `externalDates`…); a field names the one that shows it in `v3.option`. */
  options?: readonly OptionDeclaration[]
}

/** Checks a declaration's shape and keeps its literal types, so a row type can be held against its columns. */
export function defineKind<const F extends readonly FieldDeclaration[]>(
  declaration: KindDeclaration<F>,
): KindDeclaration<F> {
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

type ValueOf<T extends ValueType> = T extends 'text' | 'date'
  ? string
  : T extends 'boolean'
    ? boolean
    : T extends 'object'
      ? unknown
      : number

/** What a domain record holds for a field: never null for flags, fields with a default and `notNull` fields. */
export type RecordValueOf<F extends FieldDeclaration> = F extends
  { type: 'boolean' } | { default: boolean | number | string } | { notNull: true }
  ? ValueOf<F['type']>
  : ValueOf<F['type']> | null

/** The domain record's flat fields that a declaration spells: each column field held under its name (not `record: false` or a path). */
export type RecordOf<K extends KindDeclaration> = {
  [
    F in Extract<K['fields'][number], { column: string }> as F extends { record: string | false } ? never : F['name']
  ]: RecordValueOf<F>
}

/** The names a declaration gives its fields, as a union of literals. */
export type NamesOf<K extends KindDeclaration> = K['fields'][number]['name']

/** The names of the fields a declaration stores in its own table's columns. */
export type StoredNamesOf<K extends KindDeclaration> = Extract<K['fields'][number], { column: string }>['name']
