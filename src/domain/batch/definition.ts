/**
 * The batch job definition (POST /v2/batch body): which owner, what to do, and how incoming
 * attributes, tags, labels and File hashes meet existing data. Enumerations are matched
 * case-insensitively and stored in the platform's spelling; booleans may be sent as text
 * ("true"), as tcex does.
 */
import { invalid } from '../../core/errors.js'
import { readBoolean } from '../../core/input.js'

export const ACTIONS = ['Create', 'Delete'] as const
export const ATTRIBUTE_WRITE_TYPES = ['Append', 'Replace', 'Singleton', 'Static'] as const
export const TAG_WRITE_TYPES = ['Append', 'Replace'] as const
export const LABEL_WRITE_TYPES = ['Append', 'Replace'] as const
export const FILE_MERGE_MODES = ['Distribute', 'Merge'] as const
export const HASH_COLLISION_MODES = [
  'FavorExisting',
  'FavorIncoming',
  'IgnoreExisting',
  'IgnoreIncoming',
  'Split',
] as const

export interface BatchOptions {
  version: 'V2'
  owner: string
  haltOnError: boolean
  action: (typeof ACTIONS)[number]
  attributeWriteType: (typeof ATTRIBUTE_WRITE_TYPES)[number]
  tagWriteType: (typeof TAG_WRITE_TYPES)[number]
  securityLabelWriteType: (typeof LABEL_WRITE_TYPES)[number]
  fileMergeMode: (typeof FILE_MERGE_MODES)[number]
  hashCollisionMode: (typeof HASH_COLLISION_MODES)[number]
  /**
   * Set by importers of sources that version their objects (STIX `modified`), never read from a
   * v2 definition: an item whose externalLastModified is not later than the stored one is a version
   * the platform holds already and is left as it is; attributes an Indicator has already are not
   * added again.
   */
  sourceVersions?: true
  /**
   * Set by importers of sources that publish sightings, never read from a v2 definition: the
   * input's `observation` array is recorded (write-observations.ts); other jobs ignore that key.
   */
  observations?: true
}

function pick<T extends string>(body: Record<string, unknown>, field: string, values: readonly T[], fallback?: T): T {
  const raw = body[field]
  if (raw === undefined || raw === null || raw === '') {
    if (fallback !== undefined) return fallback
    throw invalid(`${field} is required; use one of: ${values.join(', ')}`)
  }
  const match = typeof raw === 'string' ? values.find((v) => v.toLowerCase() === raw.trim().toLowerCase()) : undefined
  if (!match) throw invalid(`${field} '${String(raw)}' is not valid; use one of: ${values.join(', ')}`)
  return match
}

function requiredBoolean(body: Record<string, unknown>, field: string): boolean {
  const raw = body[field]
  const read = readBoolean(raw)
  if (read !== undefined) return read
  if (raw === undefined || raw === null) throw invalid(`${field} is required (true or false)`)
  throw invalid(`${field} must be true or false, not '${String(raw)}'`)
}

/**
 * Validates a job definition; every problem is a 400 naming the field.
 * @example parseBatchDefinition({ owner: 'Acme', haltOnError: false, action: 'Create', attributeWriteType: 'Append' })
 */
export function parseBatchDefinition(body: unknown): BatchOptions {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Buffer.isBuffer(body)) {
    throw invalid('The batch job definition must be a JSON object')
  }
  const b = body as Record<string, unknown>
  if (b.version !== undefined && b.version !== null && String(b.version).toUpperCase() !== 'V2') {
    throw invalid(`version '${String(b.version)}' is not supported; use V2`)
  }
  if (typeof b.owner !== 'string' || !b.owner.trim())
    throw invalid('owner is required: the name of the Organization, Community or Source to write to')
  return {
    version: 'V2',
    owner: b.owner.trim(),
    haltOnError: requiredBoolean(b, 'haltOnError'),
    action: pick(b, 'action', ACTIONS),
    attributeWriteType: pick(b, 'attributeWriteType', ATTRIBUTE_WRITE_TYPES),
    tagWriteType: pick(b, 'tagWriteType', TAG_WRITE_TYPES, 'Replace'),
    securityLabelWriteType: pick(b, 'securityLabelWriteType', LABEL_WRITE_TYPES, 'Replace'),
    fileMergeMode: pick(b, 'fileMergeMode', FILE_MERGE_MODES, 'Merge'),
    hashCollisionMode: pick(b, 'hashCollisionMode', HASH_COLLISION_MODES, 'FavorIncoming'),
  }
}
