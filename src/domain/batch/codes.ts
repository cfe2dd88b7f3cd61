/**
 * The platform's batch error codes, and the record one error or warning leaves in a job.
 * Phrases tcex treats as critical ("Encountered an unexpected Exception while processing
 * batch job", "would exceed the number of allowed indicators") appear verbatim in errorReason.
 */
export const BATCH_CODES = {
  general: '0x1001',
  permission: '0x1002',
  jsonSyntax: '0x1003',
  internal: '0x1004',
  invalidIndicator: '0x1005',
  invalidGroup: '0x1006',
  notFound: '0x1007',
  indicatorLimit: '0x1008',
  association: '0x1009',
  duplicate: '0x100A',
  fileIo: '0x100B',
  indicatorPartialLoss: '0x2001',
  groupPartialLoss: '0x2002',
  fileHashMerge: '0x2003',
} as const

export type BatchCode = (typeof BATCH_CODES)[keyof typeof BATCH_CODES]
export type BatchSeverity = 'Error' | 'Warning'

export interface BatchIssue {
  code: BatchCode
  severity: BatchSeverity
  reason: string
  message: string
  /** The input item, e.g. `indicator[3]`, `group[0]`, `association[2]`. */
  source: string | null
}

export function batchError(code: BatchCode, source: string | null, reason: string, message = reason): BatchIssue {
  return { code, severity: 'Error', reason, message, source }
}

export function batchWarning(code: BatchCode, source: string | null, reason: string, message = reason): BatchIssue {
  return { code, severity: 'Warning', reason, message, source }
}
