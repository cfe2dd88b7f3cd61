/**
 * The batch input file: `{indicator: [...], group: [...], association: [...]}`. Reading is
 * pure: each item becomes a draft (normalized values, column changes, metadata) or an issue
 * naming the item, before anything is written.
 */
import { type GroupTypeDef, findGroupType } from '../../model/group-types.js'
import { type IndicatorTypeDef, composeSummary, findIndicatorType } from '../../model/indicator-types.js'
import type { IndicatorChanges } from '../../store/repositories/indicator.repository.js'
import { isDomainError } from '../../core/errors.js'
import { readJson } from '../../core/input.js'
import { type GroupColumns, groupColumnsFromBody, readXid } from '../groups/input.js'
import { readIndicatorChanges, readIndicatorValues, requireIdentifyingValues } from '../indicators/input.js'
import { parseApiTime } from '../../core/time.js'
import { BATCH_CODES, type BatchIssue, batchError } from './codes.js'
import { type ItemList, scanBatchInput, scanBatchInputInTurns } from './input-scan.js'
import type { BatchEnvironment } from './environment.js'
import { type MetadataDraft, readMetadata } from './metadata-input.js'

export interface BatchInput {
  indicator: ItemList
  group: ItemList
  association: ItemList
  /** Read for jobs with the internal option observations only (write-observations.ts). */
  observation: ItemList
  /** False when the text cannot hold inline associations, so nobody walks the items for them. */
  inlineAssociations?: boolean
}

/**
 * Reads the uploaded text; a JSON or shape problem is the job's one 0x1003 issue. A well-formed
 * file is only scanned here: its items are parsed chunk by chunk as the phases reach them.
 */
export function parseBatchInput(text: string): BatchInput | BatchIssue {
  return scanBatchInput(text) ?? readWhole(text)
}

/** parseBatchInput with `between` awaited between slices of the scan (a job's scan on the event loop). */
export async function parseBatchInputInTurns(
  text: string,
  between: () => Promise<void>,
): Promise<BatchInput | BatchIssue> {
  return (await scanBatchInputInTurns(text, between)) ?? readWhole(text)
}

/** The full read of a text the scan did not accept: JSON.parse, which names the problem. */
function readWhole(text: string): BatchInput | BatchIssue {
  let data: unknown
  try {
    data = readJson(text, 'Not valid JSON')
  } catch (error) {
    const detail = (error as Error).message
    return batchError(
      BATCH_CODES.jsonSyntax,
      '$',
      `Encountered an unexpected Exception while processing batch job: ${detail}`,
      `Encountered an unexpected Exception while processing batch job. The file is not valid JSON: ${detail}`,
    )
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    return batchError(
      BATCH_CODES.jsonSyntax,
      '$',
      'Encountered an unexpected Exception while processing batch job: Not a JSON Object',
      'Encountered an unexpected Exception while processing batch job. The file must be a JSON object with indicator, group and association arrays.',
    )
  }
  const d = data as Record<string, unknown>
  const out: BatchInput = { indicator: [], group: [], association: [], observation: [] }
  for (const key of ['indicator', 'group', 'association', 'observation'] as const) {
    if (d[key] === undefined || d[key] === null) continue
    // Beyond the spec: a v2 job's file may hold an `observation` key of its own, which it ignores as before.
    if (key === 'observation' && !Array.isArray(d[key])) continue
    if (!Array.isArray(d[key])) {
      return batchError(
        BATCH_CODES.jsonSyntax,
        `$.${key}`,
        `Encountered an unexpected Exception while processing batch job: '${key}' is not an array`,
        `Encountered an unexpected Exception while processing batch job. Last known JSON path: '$.${key}': expected an array.`,
      )
    }
    out[key] = d[key] as unknown[]
  }
  return out
}

export interface FileOccurrenceDraft {
  file_name: string | null
  path: string | null
  date: string | null
}

export interface IndicatorDraft extends MetadataDraft {
  index: number
  def: IndicatorTypeDef
  values: (string | null)[]
  summary: string
  changes: IndicatorChanges
  occurrences: FileOccurrenceDraft[]
  /** The source STIX id to serve it under (imports only: jobs with sourceVersions; migration 0139). */
  stixId?: string
}

export interface GroupDraft extends MetadataDraft {
  index: number
  def: GroupTypeDef
  xid: string
  columns: GroupColumns
}

function asObject(item: unknown, what: string): Record<string, unknown> {
  if (!item || typeof item !== 'object' || Array.isArray(item)) throw new Error(`${what} must be a JSON object`)
  return item as Record<string, unknown>
}

function failure(error: unknown): string {
  return isDomainError(error) || error instanceof Error ? error.message : String(error)
}

function describeIndicator(item: unknown): string {
  const i = item as Record<string, unknown> | null
  const summary = i && (i.summary ?? i.ip ?? i.hostName ?? i.text ?? i.address ?? i.md5 ?? i.sha1 ?? i.sha256)
  return summary ? ` '${String(summary)}'` : ''
}

/** Only the key an Indicator is found by: type and summary (`summary` alone for lookups elsewhere). */
export function readIndicatorKey(item: Record<string, unknown>): {
  def: IndicatorTypeDef
  values: (string | null)[]
  summary: string
} {
  if (typeof item.type !== 'string' || !item.type.trim()) throw new Error('type is required')
  const def = findIndicatorType(item.type)
  if (!def) throw new Error(`Unknown Indicator type '${item.type}'`)
  const values = requireIdentifyingValues(def, readIndicatorValues(def, item as never))
  return { def, values, summary: composeSummary(def, values) }
}

function readOccurrences(item: Record<string, unknown>, def: IndicatorTypeDef): FileOccurrenceDraft[] {
  const raw = item.fileOccurrence
  if (raw === undefined || raw === null || def.name !== 'File') return []
  if (!Array.isArray(raw)) throw new Error('fileOccurrence must be an array')
  return raw.map((o) => {
    const e = asObject(o, 'Each fileOccurrence')
    const date = e.date === undefined || e.date === null || e.date === '' ? null : parseApiTime(e.date)
    if (date === null && e.date) throw new Error(`fileOccurrence date '${String(e.date)}' is not an ISO 8601 time`)
    const str = (v: unknown) => (v === undefined || v === null ? null : String(v))
    return { file_name: str(e.fileName), path: str(e.path), date }
  })
}

/** A STIX indicator id as an import gives it (any UUID: sources draw their own). */
const SOURCE_STIX_ID = /^indicator--[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export function readIndicatorDraft(env: BatchEnvironment, item: unknown, index: number): IndicatorDraft | BatchIssue {
  try {
    const obj = asObject(item, 'An indicator')
    const key = readIndicatorKey(obj)
    return {
      index,
      ...key,
      changes: readIndicatorChanges(key.def, obj as never),
      occurrences: readOccurrences(obj, key.def),
      ...(env.options.sourceVersions && typeof obj.stixId === 'string' && SOURCE_STIX_ID.test(obj.stixId)
        ? { stixId: obj.stixId }
        : {}),
      ...(env.options.action === 'Create' ? readMetadata(env, 'indicator', obj) : {}),
    }
  } catch (error) {
    return batchError(
      BATCH_CODES.invalidIndicator,
      `indicator[${index}]`,
      `Invalid Indicator: ${failure(error)}`,
      `indicator[${index}]${describeIndicator(item)}: ${failure(error)}`,
    )
  }
}

export function readGroupDraft(env: BatchEnvironment, item: unknown, index: number): GroupDraft | BatchIssue {
  try {
    const obj = asObject(item, 'A group')
    if (typeof obj.type !== 'string' || !obj.type.trim()) throw new Error('type is required')
    const def = findGroupType(obj.type)
    if (!def) throw new Error(`Unknown Group type '${obj.type}'`)
    const xid = readXid(obj)
    if (!xid) throw new Error('xid is required')
    if (env.options.action === 'Delete') return { index, def, xid, columns: {} }
    // groupColumnsFromBody reads the sightings and external dates too (model/group-types.ts COMMON_GROUP_DATES)
    return { index, def, xid, columns: groupColumnsFromBody(def, obj, 'create'), ...readMetadata(env, 'group', obj) }
  } catch (error) {
    const name = (item as Record<string, unknown> | null)?.xid ?? (item as Record<string, unknown> | null)?.name
    return batchError(
      BATCH_CODES.invalidGroup,
      `group[${index}]`,
      `Invalid Group: ${failure(error)}`,
      `group[${index}]${name ? ` '${String(name)}'` : ''}: ${failure(error)}`,
    )
  }
}

export function isIssue(value: unknown): value is BatchIssue {
  return !!value && typeof value === 'object' && 'code' in value && 'severity' in value
}
