/**
 * A job's resume point and tallies, stored as JSON in batch_job.progress and committed in the
 * same transaction as each chunk's writes: after a crash the next holder of the lease starts
 * at exactly the first item whose writes were not committed.
 */
export const PHASES = ['groups', 'indicators', 'associations', 'done'] as const
export type Phase = (typeof PHASES)[number]

export interface BatchCounts {
  successIndicatorCount: number
  errorIndicatorCount: number
  successGroupCount: number
  errorGroupCount: number
  successAssociationCount: number
  errorAssociationCount: number
  warningCount: number
}

export interface BatchProgress {
  phase: Phase
  /** Index of the next item within the phase's list. */
  offset: number
  counts: BatchCounts
}

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
      warningCount: 0,
    },
  }
}

export function readProgress(text: string | null): BatchProgress {
  if (!text) return initialProgress()
  const parsed = JSON.parse(text) as BatchProgress
  return { ...initialProgress(), ...parsed, counts: { ...initialProgress().counts, ...parsed.counts } }
}

export function successTotal(c: BatchCounts): number {
  return c.successIndicatorCount + c.successGroupCount + c.successAssociationCount
}

export function errorTotal(c: BatchCounts): number {
  return c.errorIndicatorCount + c.errorGroupCount + c.errorAssociationCount
}
