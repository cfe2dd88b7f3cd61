/**
 * v2 schema properties made from a kind's declaration (model/): each field v2 carries, under its
 * v2 name, as the value type says. Lists and nested objects are the schema's own to compose.
 */
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'
import { type JsonSchema, boolean, dateTime, integer, number, string } from '../http/route-schema.js'

const SCHEMA_OF: Record<FieldDeclaration['type'], (() => JsonSchema) | undefined> = {
  text: string, integer, decimal: number, boolean, date: dateTime, user: string, object: undefined,
}

/**
 * The scalar fields v2 carries in a record, or (`body`) those a create or update body sets;
 * `only` narrows them further.
 */
export function declaredV2Properties(kind: KindDeclaration, options: { body?: boolean; only?: (f: FieldDeclaration) => boolean } = {}) {
  const properties: Record<string, JsonSchema> = {}
  for (const f of kind.fields) {
    const schema = SCHEMA_OF[f.type]
    if (f.v2 === false || !schema || (options.only && !options.only(f))) continue
    if (options.body && ((f.write ?? 'always') !== 'always' || f.v2?.body === false)) continue
    properties[f.v2?.name ?? f.name] = f.values ? { type: 'string', enum: [...f.values] } : schema()
  }
  return properties
}
