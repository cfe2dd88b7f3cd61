/**
 * A job's resume point and tallies, stored as JSON in batch_job.progress and committed in the
 * same transaction as each chunk's writes: after a crash the next holder of the lease starts
 * at exactly the first item whose writes were not committed.
 */
export const PHASES = ['groups', 'indicators', 'associations', 'observations', 'done'] as const
export type Phase = (typeof PHASES)[number]

export interface BatchCounts {
  successIndicatorCount: number
  errorIndicatorCount: number
  successGroupCount: number
  errorGroupCount: number
  successAssociationCount: number
  errorAssociationCount: number
  /** Beyond the spec (jobs with the internal option observations): not in the v2 status. */
  successObservationCount: number
  errorObservationCount: number
  warningCount: number
}

/** What the written items of one kind did to the database: rows made, rows changed, versions held already. */
export interface WriteOutcome {
  created: number
  updated: number
  unchanged: number
}

/** The kinds whose outcomes a job tells apart (beyond the spec's counts: the v2 status does not show them). */
export const OUTCOME_KINDS = ['indicator', 'group', 'association', 'observation'] as const
export type OutcomeKind = (typeof OUTCOME_KINDS)[number]

export interface BatchProgress {
  phase: Phase
  /** Index of the next item within the phase's list. */
  offset: number
  counts: BatchCounts
  /** Of the items counted as successes, per kind: created, updated, or left as they were (for an importer's summary). */
  outcomes: Record<OutcomeKind, WriteOutcome>
}

const noOutcomes = (): Record<OutcomeKind, WriteOutcome> => ({
  indicator: { created: 0, updated: 0, unchanged: 0 },
  group: { created: 0, updated: 0, unchanged: 0 },
  association: { created: 0, updated: 0, unchanged: 0 },
  observation: { created: 0, updated: 0, unchanged: 0 },
})

export function initialProgress(): BatchProgress {
  return {
    phase: 'groups',
    offset: 0,
    counts: {
      successIndicatorCount: 0,
      errorIndicatorCount: 0,
      successGroupCount: 0,
      errorGroupCount: 0,
      successAssociationCount: 0,
      errorAssociationCount: 0,
      successObservationCount: 0,
      errorObservationCount: 0,
      warningCount: 0,
    },
    outcomes: noOutcomes(),
  }
}

export function readProgress(text: string | null): BatchProgress {
  if (!text) return initialProgress()
  const parsed = JSON.parse(text) as BatchProgress
  const outcomes = noOutcomes()
  for (const kind of OUTCOME_KINDS) Object.assign(outcomes[kind], parsed.outcomes?.[kind])
  return { ...initialProgress(), ...parsed, counts: { ...initialProgress().counts, ...parsed.counts }, outcomes }
}

export function successTotal(c: BatchCounts): number {
  return c.successIndicatorCount + c.successGroupCount + c.successAssociationCount + c.successObservationCount
}

export function errorTotal(c: BatchCounts): number {
  return c.errorIndicatorCount + c.errorGroupCount + c.errorAssociationCount + c.errorObservationCount
}
