/**
 * Value sets of the case-management objects (Cases, Artifacts, Notes) and Intelligence
 * Requirements, as the platform documents them. Case status and severity live in
 * group-types.ts next to the other status lists.
 */
export { CASE_SEVERITIES, CASE_STATUSES } from './group-types.js'

export const CASE_RESOLUTIONS = [
  'Containment Achieved',
  'Deferred / Delayed',
  'Escalated',
  'False Positive',
  'In Progress / Investigating',
  'Not Specified',
  'Rejected',
  'Restoration Achieved',
] as const

export const DEFAULT_CASE_RESOLUTION = 'Not Specified'

/** The platform's fixed Intelligence Requirement subtypes, addressed by id. */
export const INTEL_REQUIREMENT_SUBTYPES: readonly { id: number; name: string; description: string }[] = [
  {
    id: 1,
    name: 'Intelligence Requirement (IR)',
    description: 'Threats of overall concern to the organization (e.g., cyber, fraud, geopolitical/physical threats)',
  },
  {
    id: 2,
    name: 'Priority Intelligence Requirement (PIR)',
    description: 'Threats that most urgently need to be addressed',
  },
  { id: 3, name: 'Specific Intelligence Requirement (SIR)', description: 'Specific facts about a threat' },
  { id: 4, name: 'Request for Information (RFI)', description: 'A one-time question about a threat' },
]

export const KEYWORD_COMPARE_VALUES = ['includes', 'excludes'] as const
