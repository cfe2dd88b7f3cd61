/**
 * Every association a batch file asks for, as one ordered list: the inline ones
 * (group.associatedGroupXid, group.associatedIndicators, indicator.associatedGroups,
 * indicator.associatedIndicators) and then the `association` array items
 * `{ref_1|id_1, type_1, ref_2|id_2, type_2, associationType}`. `ref` is an Indicator summary or
 * a Group xid, `id` wins over `ref`, and `type_n` names the Indicator type (a Group when absent
 * or a Group type). Pure: resolution against the database happens when the entries are written.
 */
import { findGroupType } from '../../model/group-types.js'
import { type IndicatorTypeDef, findIndicatorType } from '../../model/indicator-types.js'
import { BATCH_CODES, type BatchIssue, batchError } from './codes.js'
import type { BatchInput } from './input.js'
import { readIndicatorKey } from './input.js'
import { parseApiTime } from '../../core/time.js'
import { forEachInTurns } from './input-scan.js'

export type AssociationRef =
  | { kind: 'indicator'; def: IndicatorTypeDef; summary: string; values: (string | null)[] }
  | { kind: 'indicator'; def: IndicatorTypeDef; id: number }
  | { kind: 'group'; xid: string }
  | { kind: 'group'; id: number }

export interface AssociationEntry {
  source: string
  a: AssociationRef
  b: AssociationRef
  associationType?: string
  /**
   * A STIX relationship's type and version (imports only: jobs with the internal option
   * sourceVersions), `a` being its source. Kept on the association (migration 0138).
   */
  relationship?: { type: string; modified?: string }
  /** Inline associations ride on their item: when that item failed, they are skipped silently. */
  inline: boolean
}

function indicatorRef(type: unknown, summary: unknown): AssociationRef {
  if (typeof type !== 'string') throw new Error('the Indicator type is required')
  const key = readIndicatorKey({ type, summary })
  return { kind: 'indicator', def: key.def, summary: key.summary, values: key.values }
}

function explicitRef(entry: Record<string, unknown>, n: 1 | 2): AssociationRef {
  const type = entry[`type_${n}`]
  const id = entry[`id_${n}`]
  const ref = entry[`ref_${n}`]
  const indicatorType = typeof type === 'string' ? findIndicatorType(type) : undefined
  if (type !== undefined && type !== null && !indicatorType && !(typeof type === 'string' && findGroupType(type)))
    throw new Error(`type_${n} '${String(type)}' is not an Indicator or Group type`)
  if (id !== undefined && id !== null && id !== '') {
    if (!/^\d+$/.test(String(id))) throw new Error(`id_${n} must be a whole number`)
    return indicatorType ? { kind: 'indicator', def: indicatorType, id: Number(id) } : { kind: 'group', id: Number(id) }
  }
  if (typeof ref !== 'string' || !ref.trim()) throw new Error(`ref_${n} or id_${n} is required`)
  return indicatorType ? indicatorRef(type, ref) : { kind: 'group', xid: ref.trim() }
}

function objects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => !!v && typeof v === 'object') : []
}

function tryEntry(
  out: (AssociationEntry | BatchIssue)[],
  source: string,
  inline: boolean,
  build: () => Omit<AssociationEntry, 'source' | 'inline'>,
) {
  try {
    out.push({ source, inline, ...build() })
  } catch (error) {
    out.push(
      batchError(
        BATCH_CODES.association,
        source,
        `Association: ${(error as Error).message}`,
        `${source}: ${(error as Error).message}`,
      ),
    )
  }
}

/** The inline associations of the file's Groups, then of its Indicators, in file order. */
async function collectInline(input: BatchInput, out: (AssociationEntry | BatchIssue)[], between: Between) {
  await forEachInTurns(
    input.group,
    (item, g) => {
      const group = item as Record<string, unknown> | null
      if (!group || typeof group.xid !== 'string' || !group.xid.trim()) return
      const self: AssociationRef = { kind: 'group', xid: group.xid.trim() }
      const xids = Array.isArray(group.associatedGroupXid) ? group.associatedGroupXid : []
      xids.forEach((xid, j) =>
        tryEntry(out, `group[${g}].associatedGroupXid[${j}]`, true, () => {
          if (typeof xid !== 'string' || !xid.trim()) throw new Error('a Group xid is required')
          return { a: self, b: { kind: 'group', xid: xid.trim() } }
        }),
      )
      objects(group.associatedIndicators).forEach((ind, j) =>
        tryEntry(out, `group[${g}].associatedIndicators[${j}]`, true, () => ({
          a: self,
          b: indicatorRef(ind.indicatorType ?? ind.type, ind.summary),
        })),
      )
    },
    between,
  )
  await between()
  await forEachInTurns(
    input.indicator,
    (item, i) => {
      const indicator = item as Record<string, unknown> | null
      if (!indicator || (!indicator.associatedGroups && !indicator.associatedIndicators)) return
      let self: AssociationRef
      try {
        const key = readIndicatorKey(indicator)
        self = { kind: 'indicator', def: key.def, summary: key.summary, values: key.values }
      } catch {
        return
      }
      objects(indicator.associatedGroups).forEach((g, j) =>
        tryEntry(out, `indicator[${i}].associatedGroups[${j}]`, true, () => {
          if (typeof g.groupXid !== 'string' || !g.groupXid.trim()) throw new Error('groupXid is required')
          return { a: self, b: { kind: 'group', xid: g.groupXid.trim() } }
        }),
      )
      objects(indicator.associatedIndicators).forEach((ind, j) =>
        tryEntry(out, `indicator[${i}].associatedIndicators[${j}]`, true, () => ({
          a: self,
          b: indicatorRef(ind.indicatorType ?? ind.type, ind.summary),
          associationType: typeof ind.associationType === 'string' ? ind.associationType : undefined,
        })),
      )
    },
    between,
  )
}

/** An import's relationship type and version (beyond the V2 batch file: read only when the job allows it). */
function relationshipOf(entry: Record<string, unknown>): Pick<AssociationEntry, 'relationship'> {
  const type = entry.relationshipType
  if (typeof type !== 'string' || !/^[a-z0-9-]{1,100}$/.test(type)) return {}
  const modified = typeof entry.relationshipModified === 'string' ? parseApiTime(entry.relationshipModified) : null
  return { relationship: modified ? { type, modified } : { type } }
}

/**
 * The file's associations in processing order; unusable entries become 0x1009 issues in place.
 * The inline ones need a walk over every item, skipped when the text cannot hold any.
 */
export async function collectAssociations(
  input: BatchInput,
  options: { sourceVersions?: true } = {},
  between: Between = async () => undefined,
): Promise<(AssociationEntry | BatchIssue)[]> {
  const out: (AssociationEntry | BatchIssue)[] = []
  if (input.inlineAssociations !== false) await collectInline(input, out, between)
  await between()
  await forEachInTurns(
    input.association,
    (item, k) =>
      tryEntry(out, `association[${k}]`, false, () => {
        if (!item || typeof item !== 'object' || Array.isArray(item))
          throw new Error('each association must be a JSON object')
        const entry = item as Record<string, unknown>
        return {
          a: explicitRef(entry, 1),
          b: explicitRef(entry, 2),
          associationType:
            typeof entry.associationType === 'string' && entry.associationType.trim()
              ? entry.associationType.trim()
              : undefined,
          ...(options.sourceVersions ? relationshipOf(entry) : {}),
        }
      }),
    between,
  )
  return out
}

/** What a walk awaits between its pieces (core/foreground.ts's backgroundTurn in a job). */
type Between = () => Promise<void>
