/**
 * v2 body schemas derived from a kind's declaration (model/): the fields a v2 body may set, by
 * their v2 names. A field's note in the schema is the types that carry it (`Host`) or its bounds
 * (`0-5`), as the v2 documents have always put it.
 */
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'
import { type JsonSchema, boolean, dateTime, integer, number, string } from '../http/route-schema.js'

const SCHEMA_OF: Record<FieldDeclaration['type'], ((description?: string) => JsonSchema) | undefined> = {
  text: string, user: string, integer, decimal: number, boolean, date: dateTime, object: undefined,
}

/** The properties of a v2 create or update body: the writable scalar fields v2 carries, in declaration order. */
export function declaredV2BodyFields(declaration: KindDeclaration): Record<string, JsonSchema> {
  return Object.fromEntries(declaration.fields.flatMap((field) => {
    const schema = SCHEMA_OF[field.type]
    if (field.v2 === false || field.v2?.body === false || field.write === 'never' || !schema) return []
    const note = field.onlyTypes ? field.onlyTypes.join(', ') : field.range ? `${field.range[0]}-${field.range[1]}` : undefined
    return [[field.v2?.name ?? field.name, schema(note)]]
  }))
}
