/**
 * What GET /api/v3/imports… answers, declared once for the server (import-jobs.ts) and the console
 * (console/src/pages/ImportPage.tsx). Types only, importing nothing: the console's type check reads this
 * file alone rather than the server behind it, and its build drops the type-only import.
 */

export interface ImportJobView {
  id: number
  owner: string
  status: string
  fileName: string
  format: string | null
  bytes: number
  items: number
  jobs: number
  successCount: number
  errorCount: number
  /** Refusals listed by GET …/errors; errorCount counts them all. */
  errorsListed: number
  message?: string
  dateAdded: string
  startedAt?: string
  completedAt?: string
}

/** One refusal of GET …/errors: the item's place in the file and why it was refused. */
export interface ImportRefusal {
  item: string
  message: string
}
