/**
 * v2's record and body schemas of a declared kind (model/): the fields v2 carries, under their v2
 * names, in declaration order. schemas.ts composes them with the lists and envelopes it writes
 * itself. Three readings of one declaration, because v2's documents grew three ways: the metadata
 * and owner schemas (record and body, with the descriptions and required fields v2 gives),
 * Indicator bodies (noted with the types that carry a field or its bounds) and the Task and
 * Victim schemas (allowed values as enums).
 */
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'
import { type JsonSchema, anyObject, boolean, dateTime, integer, number, object, string } from '../http/route-schema.js'

const SCHEMA_OF: Record<FieldDeclaration['type'], (description?: string) => JsonSchema> = {
  text: string,
  integer,
  decimal: number,
  boolean,
  date: dateTime,
  user: string,
  object: () => anyObject,
}

function v2Name(field: FieldDeclaration): string {
  return (field.v2 && field.v2.name) || field.name
}

const writable = (field: FieldDeclaration) => field.v2 !== false && field.v2?.body !== false && field.write !== 'never'

function properties(fields: readonly FieldDeclaration[]): Record<string, JsonSchema> {
  return Object.fromEntries(fields.map((f) => [v2Name(f), SCHEMA_OF[f.type](f.v2 ? f.v2.description : undefined)]))
}

/** A v2 answer's record: every field v2 shows; those it always shows are required. */
export function declaredV2Record(declaration: KindDeclaration, { required = true } = {}): JsonSchema {
  const fields = declaration.fields.filter((f) => f.v2 !== false && f.v2?.record !== false)
  return object(properties(fields), required ? fields.filter((f) => f.v2 && f.v2.always).map(v2Name) : [])
}

/** A v2 request body: the fields a body may set; those a create needs are required unless v2 lets them be left out. */
export function declaredV2Body(declaration: KindDeclaration): JsonSchema {
  const fields = declaration.fields.filter(writable)
  return object(properties(fields), fields.filter((f) => f.required && !(f.v2 && f.v2.body === 'optional')).map(v2Name))
}

/**
 * The properties of an Indicator body: the writable scalar fields, each noted with the types that
 * carry it (`Host`) or its bounds (`0-5`), as the v2 documents have always put it.
 */
export function declaredV2BodyFields(declaration: KindDeclaration): Record<string, JsonSchema> {
  return Object.fromEntries(
    declaration.fields
      .filter((f) => writable(f) && f.type !== 'object')
      .map((field) => {
        const note = field.onlyTypes
          ? field.onlyTypes.join(', ')
          : field.range
            ? `${field.range[0]}-${field.range[1]}`
            : undefined
        return [v2Name(field), SCHEMA_OF[field.type](note)]
      }),
  )
}

/**
 * The scalar fields v2 carries in a record, or (`body`) those a create or update body sets, with
 * their allowed values as enums; `only` narrows them further.
 */
export function declaredV2Properties(
  kind: KindDeclaration,
  options: { body?: boolean; only?: (f: FieldDeclaration) => boolean } = {},
) {
  const fields = kind.fields.filter(
    (f) =>
      f.v2 !== false &&
      f.type !== 'object' &&
      (!options.only || options.only(f)) &&
      (!options.body || ((f.write ?? 'always') === 'always' && f.v2?.body !== false)),
  )
  return Object.fromEntries(
    fields.map((f): [string, JsonSchema] => [
      v2Name(f),
      f.values ? { type: 'string', enum: [...f.values] } : SCHEMA_OF[f.type](),
    ]),
  )
}
