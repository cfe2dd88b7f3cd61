/**
 * The OASIS STIX 2.1 JSON schemas (`../shared/schemas/stix-2.1`), compiled once, to check
 * every object the TAXII server emits. They sit beside the repository wherever the real
 * clients were put; a checkout without them skips the checks and says so.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { SCHEMAS_DIR } from './real-clients.js'

export const STIX_SCHEMAS_DIR = process.env.BULWARK_STIX_SCHEMAS_DIR || resolve(SCHEMAS_DIR, 'stix-2.1', 'schemas')

const ENTRY: Record<string, string> = {
  indicator: 'sdos/indicator.json',
  'marking-definition': 'common/marking-definition.json',
  relationship: 'sros/relationship.json',
  ...Object.fromEntries(
    [
      'attack-pattern',
      'campaign',
      'course-of-action',
      'grouping',
      'incident',
      'intrusion-set',
      'malware',
      'report',
      'threat-actor',
      'tool',
      'vulnerability',
    ].map((type) => [type, `sdos/${type}.json`]),
  ),
}

export function stixSchemasUnavailable(): string | undefined {
  return existsSync(join(STIX_SCHEMAS_DIR, ENTRY.indicator))
    ? undefined
    : `STIX schema checks skipped: ${STIX_SCHEMAS_DIR} is absent`
}

let validators: Map<string, ValidateFunction> | undefined

function load(): Map<string, ValidateFunction> {
  const ajv = new Ajv2020({ strict: false, allErrors: true, unicodeRegExp: false })
  const addFormats = addFormatsModule as unknown as (a: Ajv2020) => void
  addFormats(ajv)
  const ids = new Map<string, string>()
  for (const folder of readdirSync(STIX_SCHEMAS_DIR)) {
    const dir = join(STIX_SCHEMAS_DIR, folder)
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const schema = JSON.parse(readFileSync(join(dir, file), 'utf8'))
      ajv.addSchema(schema)
      ids.set(`${folder}/${file}`, schema.$id)
    }
  }
  return new Map(Object.entries(ENTRY).map(([type, path]) => [type, ajv.getSchema(ids.get(path)!)!]))
}

/** The schema errors of one object (empty when valid); an object of a type with no schema here is an error. */
export function stixSchemaErrors(object: { type?: string }): string[] {
  validators ??= load()
  const validate = validators.get(String(object.type))
  if (!validate) return [`no schema for type ${object.type}`]
  if (validate(object)) return []
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`)
}
