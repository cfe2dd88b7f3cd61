/**
 * v2's record and body schemas of a declared kind (model/): the fields v2 carries, under their
 * v2 names, in declaration order. schemas.ts builds the metadata and owner schemas from these.
 */
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'
import { type JsonSchema, anyObject, boolean, dateTime, integer, number, object, string } from '../http/route-schema.js'

const SCHEMA_OF: Record<FieldDeclaration['type'], (description?: string) => JsonSchema> = {
  text: string, integer, decimal: number, boolean, date: dateTime, user: string, object: () => anyObject,
}

function v2Name(field: FieldDeclaration): string {
  return (field.v2 && field.v2.name) || field.name
}

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
  const fields = declaration.fields.filter((f) => f.v2 !== false && f.v2?.body !== false && f.write !== 'never')
  return object(properties(fields), fields.filter((f) => f.required && !(f.v2 && f.v2.body === 'optional')).map(v2Name))
}
