/**
 * What GET /api/v3/admin/jobs… answers, declared once for the server (batch/every-job.ts,
 * imports/every-import.ts) and the console (console/src/pages/admin/JobsSection.tsx). Types and the kinds' names only, importing
 * nothing but types: the console's type check reads these files alone, and its build drops the imports.
 */
import type { ImportJobView } from '../imports/import-job-view.js'

export const JOB_KINDS = ['batch', 'import'] as const
export type JobKind = (typeof JOB_KINDS)[number]

/** A batch job of any account (v2 /batch, an import's or a feed's), as system administrators see it. */
export interface BatchJobAdminView {
  id: number
  /** The owner written into; absent when it was deleted since. */
  owner?: string
  /** The account that made the job; absent when it was deleted since. */
  userName?: string
  status: string
  /** Create or Delete. */
  action?: string
  successCount: number
  errorCount: number
  unprocessCount: number
  dateAdded: string
  startedAt?: string
  completedAt?: string
}

/** An import job of any account, with the account that uploaded it. */
export interface ImportJobAdminView extends ImportJobView {
  userName?: string
}

/** One line of a batch job's error file. */
export interface BatchErrorLine {
  code: string
  severity: string
  errorReason: string
  errorMessage: string
  errorSource?: string
}
