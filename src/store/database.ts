/**
 * Row types of every table, as Kysely sees them. This file and migrations/ are the
 * data model's single source of truth for storage; domain/ maps rows to domain objects.
 *
 * Conventions that hold on both SQLite and PostgreSQL:
 * - timestamps are fixed-width UTC ISO-8601 text (`2026-11-23T15:48:49.123Z`), so text order is time order;
 * - booleans are integers 0/1 (better-sqlite3 cannot bind JS booleans);
 * - JSON documents are text;
 * - item_kind names the table a polymorphic row points at (see ItemKind in model/kinds.ts).
 */
import type { ColumnType, Generated } from 'kysely'

type Id = Generated<number>
type Bool = number
type Timestamp = string

export interface OwnerTable {
  id: Id
  name: string
  type: 'Organization' | 'Community' | 'Source'
  description: string | null
  allow_data_copy: Generated<Bool>
  date_added: Timestamp
  /** Set once the standard TLP labels were created in the owner (migration 0040). */
  standard_labels_seeded: Generated<Bool>
}

export interface UserAccountTable {
  id: Id
  user_name: string
  kind: 'human' | 'api' | 'taxii'
  first_name: string | null
  last_name: string | null
  pseudonym: string | null
  email: string | null
  system_role: string
  organization_id: number
  disabled: Generated<Bool>
  password_hash: string | null
  token_lifetime_days: number | null
  observations_enabled: Generated<Bool>
  tql_timeout_ms: number | null
  date_added: Timestamp
  last_modified: Timestamp
}

export interface MembershipTable {
  user_id: number
  owner_id: number
  role: string
  date_added: Timestamp
}

export interface ApiTokenTable {
  id: Id
  user_id: number
  token_hash: string
  kind: 'api' | 'temporary'
  expires_at: Timestamp | null
  date_added: Timestamp
}

/** A console sign-in (migration 0140): the cookie's token is kept only as its SHA-256. */
export interface ConsoleSessionTable {
  id: Id
  user_id: number
  token_hash: string
  csrf_token: string
  created_at: Timestamp
  expires_at: Timestamp
}

export interface AccessKeyTable {
  id: Id
  user_id: number
  access_id: string
  secret_ciphertext: string
  date_added: Timestamp
}

export interface SettingTable {
  name: string
  value: string
}

export interface IndicatorTable {
  id: Id
  owner_id: number
  type: string
  summary: string
  value1: string | null
  value2: string | null
  value3: string | null
  rating: number | null
  confidence: number | null
  description: string | null
  source: string | null
  private_flag: Generated<Bool>
  active: Generated<Bool>
  active_locked: Generated<Bool>
  dns_active: Generated<Bool>
  whois_active: Generated<Bool>
  threat_assess_score: number | null
  threat_assess_rating: number | null
  threat_assess_confidence: number | null
  threat_assess_score_observed: number | null
  threat_assess_score_false_positive: number | null
  cal_score: number | null
  first_seen: Timestamp | null
  last_seen: Timestamp | null
  external_date_added: Timestamp | null
  external_last_modified: Timestamp | null
  external_date_expires: Timestamp | null
  size: number | null
  observation_count: Generated<number>
  last_observed: Timestamp | null
  /** When an import last met it unchanged (migration 0150; the lifecycle's, not the API's). */
  last_sighted: Timestamp | null
  /** When the lifecycle turned it inactive (null when anything else did, or it is active). */
  stale_since: Timestamp | null
  /** The source STIX id it is served under (migration 0139), when its indicator object made it alone. */
  stix_id: string | null
  false_positive_count: Generated<number>
  last_false_positive: Timestamp | null
  address_city: string | null
  address_country_code: string | null
  address_country_name: string | null
  address_organization: string | null
  address_state: string | null
  address_timezone: string | null
  address_asn: number | null
  created_by: number | null
  date_added: Timestamp
  last_modified: Timestamp
}

export interface IndicatorObservationTable {
  id: Id
  indicator_id: number
  user_id: number
  count: number
  date_observed: Timestamp
  /** The source's sighting this observation was imported from (a STIX id), and that sighting's version. */
  source_ref: string | null
  source_modified: Timestamp | null
}

export interface IndicatorFalsePositiveTable {
  indicator_id: number
  user_id: number
  day: string
  reported_at: Timestamp
}

export interface FileOccurrenceTable {
  id: Id
  indicator_id: number
  file_name: string | null
  path: string | null
  date: Timestamp | null
}

export interface FileActionTable {
  id: Id
  indicator_id: number
  action: string
  target_indicator_id: number
  date_added: Timestamp
}

export interface DnsResolutionTable {
  id: Id
  host_id: number
  address_id: number
  resolution_date: Timestamp
}

/** Indicators per owner, type and active flag (migration 0125): one row per key on SQLite, deltas to sum on PostgreSQL. */
export interface IndicatorTallyTable {
  owner_id: number
  type: string
  active: number
  /** The Indicators' rating, -1 for unrated (migration 0136). */
  rating: number
  n: number
}

export interface DeletedIndicatorTable {
  id: Id
  owner_id: number
  type: string
  summary: string
  date_added: Timestamp
  date_deleted: Timestamp
}

export interface GroupTable {
  id: Id
  owner_id: number
  type: string
  name: string
  xid: string | null
  created_by: number | null
  date_added: Timestamp
  last_modified: Timestamp
  event_date: Timestamp | null
  status: string | null
  first_seen: Timestamp | null
  last_seen: Timestamp | null
  publish_date: Timestamp | null
  external_date_added: Timestamp | null
  external_last_modified: Timestamp | null
  external_date_expires: Timestamp | null
  file_name: string | null
  file_type: string | null
  file_text: string | null
  file_size: number | null
  malware: Generated<Bool>
  password: string | null
  document_type: string | null
  document_date_added: Timestamp | null
  generated_report: Generated<Bool>
  email_to: string | null
  email_from: string | null
  email_subject: string | null
  email_header: string | null
  email_body: string | null
  email_date: Timestamp | null
  email_score: number | null
  email_score_includes_body: Generated<Bool>
  event_type: string | null
  up_vote_count: Generated<number>
  down_vote_count: Generated<number>
  insights: string | null
  custom_ai_content: string | null
  ai_provider: string | null
  description: string | null
}

export interface DocumentContentTable {
  group_id: number
  content: Buffer
  content_type: string
  size: number
  uploaded_at: Timestamp
}

export interface AdversaryAssetTable {
  id: Id
  group_id: number
  type: string
  value: string
  date_added: Timestamp
}

export interface TaskTable {
  id: Id
  owner_id: number
  case_id: number | null
  xid: string | null
  name: string
  description: string | null
  status: string
  due_date: Timestamp | null
  reminder_date: Timestamp | null
  escalation_date: Timestamp | null
  escalated: Generated<Bool>
  reminded: Generated<Bool>
  completed_date: Timestamp | null
  created_by: number | null
  date_added: Timestamp
  last_modified: Timestamp
}

export interface TaskAssigneeTable {
  task_id: number
  user_id: number
  role: 'assignee' | 'escalatee'
}

export interface VictimTable {
  id: Id
  owner_id: number
  name: string
  description: string | null
  org: string | null
  suborg: string | null
  work_location: string | null
  nationality: string | null
  date_added: Timestamp
  last_modified: Timestamp
}

export interface VictimAssetTable {
  id: Id
  victim_id: number
  owner_id: number
  type: string
  value: string
  detail: string | null
  date_added: Timestamp
}

export interface AttributeTypeTable {
  id: Id
  name: string
  description: string | null
  owner_id: number | null
  max_length: number
  allow_markdown: Generated<Bool>
  error_message: string | null
  validation_rule: string | null
  applies_to: string
  system: Generated<Bool>
  date_added: Timestamp
}

export interface AttributeTable {
  id: Id
  owner_id: number
  item_kind: string
  item_id: number
  type_id: number
  value: string
  displayed: Generated<Bool>
  pinned: Generated<Bool>
  source: string | null
  created_by: number | null
  date_added: Timestamp
  last_modified: Timestamp
}

export interface SecurityLabelTable {
  id: Id
  owner_id: number
  name: string
  description: string | null
  color: string | null
  date_added: Timestamp
}

export interface ItemSecurityLabelTable {
  label_id: number
  item_kind: string
  item_id: number
  date_added: Timestamp
}

export interface TagTable {
  id: Id
  owner_id: number
  name: string
  description: string | null
  technique_id: string | null
  date_added: Timestamp
  last_used: Timestamp | null
}

export interface ItemTagTable {
  tag_id: number
  item_kind: string
  item_id: number
  date_added: Timestamp
}

/** Stored in both directions, so "what is associated with X" is one indexed scan. */
export interface AssociationTable {
  from_kind: string
  from_id: number
  to_kind: string
  to_id: number
  /** 0 for the plain association of two kinds; otherwise an association_type id. */
  association_type_id: number
  source: string
  date_added: Timestamp
  /** From a STIX relationship (migration 0138): its type, whether this row's from end was its source (1/0), its version. */
  relationship_type: string | null
  relationship_from_source: number | null
  relationship_modified: Timestamp | null
  /** When Bulwark last changed the relationship's type; NULL: not since date_added. */
  last_modified: Timestamp | null
}

export interface AssociationTypeTable {
  id: Id
  name: string
  api_branch: string
  custom: Generated<Bool>
  file_action: Generated<Bool>
  from_type: string
  to_type: string
  description: string | null
}

export interface CustomMetricTable {
  id: Id
  owner_id: number
  name: string
  data_type: string
  interval: string
  keyed_values: Bool
  description: string | null
  date_added: Timestamp
}

/** One aggregate per metric, key and interval period (the metric's interval). */
export interface CustomMetricValueTable {
  metric_id: number
  name: string
  period_start: Timestamp
  value: number
  count: number
  weight_sum: number
  last_date: Timestamp
}

export interface PlaybookTable {
  id: Id
  owner_id: number
  /** Exported playbook identifier; the API accepts it wherever it takes the id (migration 0040). */
  xid: string | null
  name: string
  description: string | null
  trigger_type: string | null
  status: string
  labels: string | null
  version_major: number
  version_minor: number
  definition: string
  date_added: Timestamp
  last_modified: Timestamp
}

export interface CaseTable {
  id: Id
  owner_id: number
  xid: string | null
  name: string
  description: string | null
  severity: string
  status: string
  resolution: string | null
  case_open_time: Timestamp | null
  case_close_time: Timestamp | null
  case_occurrence_time: Timestamp | null
  case_detection_time: Timestamp | null
  created_by: number | null
  assignee_user_id: number | null
  date_added: Timestamp
  last_updated: Timestamp
}

export interface ArtifactTypeTable {
  id: Id
  name: string
  data_type: string
  intel_type: string | null
  description: string | null
  active: Generated<Bool>
}

export interface ArtifactTable {
  id: Id
  owner_id: number
  case_id: number
  task_id: number | null
  type_id: number
  summary: string
  source: string | null
  field_name: string | null
  analytics_score: number | null
  date_added: Timestamp
  last_modified: Timestamp
}

export interface NoteTable {
  id: Id
  owner_id: number
  case_id: number | null
  task_id: number | null
  artifact_id: number | null
  text: string
  author_id: number | null
  date_added: Timestamp
  last_modified: Timestamp
}

export interface IntelRequirementTable {
  id: Id
  owner_id: number
  xid: string | null
  unique_id: string | null
  requirement_text: string
  category: string | null
  subtype: string | null
  description: string | null
  reset_results: Generated<Bool>
  keyword_sections: string | null
  /** Added by migration 0060. */
  created_by: number | null
  date_added: Timestamp
  last_modified: Timestamp
}

export interface BatchJobTable {
  id: Id
  owner_id: number
  user_id: number
  status: 'Created' | 'Queued' | 'Running' | 'Completed'
  options: string
  input: string | null
  error_count: Generated<number>
  success_count: Generated<number>
  unprocess_count: Generated<number>
  date_added: Timestamp
  started_at: Timestamp | null
  completed_at: Timestamp | null
  lease_owner: string | null
  lease_expires: Timestamp | null
  /** Resume point and per-kind counts, JSON (migration 0070). */
  progress: string | null
}

/** A batch job's uploaded input file (migration 0070), kept out of the often-updated batch_job row. */
export interface BatchInputTable {
  job_id: number
  content: string
}

export interface BatchErrorTable {
  id: Id
  job_id: number
  code: string
  severity: string
  reason: string
  message: string
  /** The input item the error is about, e.g. `indicator[12]` (migration 0070). */
  source: string | null
}

export interface TaxiiCollectionTable {
  id: string
  owner_id: number
  title: string
  description: string | null
  alias: string | null
  tql: string | null
  ttl_days: number | null
  date_added: Timestamp
}

/** Where each part of a multi-part feed result starts (TAXII 1.1 Poll_Fulfillment). */
export interface FeedResultPartTable {
  result_id: string
  part_number: number
  account_id: number
  owner_id: number
  since: Timestamp | null
  until: Timestamp
  record_count: number
  /** Keyset position the part starts after; null for a result's first part. */
  after_last_modified: Timestamp | null
  after_id: number | null
  created_at: Timestamp
}

/** An owner's days until an Indicator of a type goes stale (domain/lifecycle); 0 never. */
export interface IndicatorLifecyclePolicyTable {
  owner_id: number
  type: string
  days: number
}

/** A task one node at a time runs now and then (worker/scheduled-tasks.ts), under a lease. */
export interface ScheduledTaskTable {
  name: string
  lease_owner: string | null
  lease_expires: Timestamp | null
  last_started: Timestamp | null
  last_finished: Timestamp | null
  last_outcome: string | null
}

/** An upload being imported (domain/imports/import-jobs.ts). */
export interface ImportJobTable {
  id: Id
  owner_id: number
  user_id: number
  /** Receiving, Queued, Running, Completed or Failed. */
  status: string
  /** The upload's options as JSON: name, format, type, map. */
  request: string
  bytes: Generated<number>
  format: string | null
  items: Generated<number>
  jobs: Generated<number>
  success_count: Generated<number>
  error_count: Generated<number>
  message: string | null
  lease_owner: string | null
  lease_expires: Timestamp | null
  date_added: Timestamp
  started_at: Timestamp | null
  completed_at: Timestamp | null
}

export interface ImportInputPartTable {
  job_id: number
  part: number
  content: Buffer
}

export interface ImportErrorTable {
  id: Id
  job_id: number
  item: string
  message: string
}

/** A feed Bulwark pulls (domain/feeds/feed.ts); `settings`, `defaults` and `cursor` are JSON. */
export interface FeedTable {
  id: Id
  name: string
  /** taxii21, taxii11, misp, csv or text. */
  kind: string
  url: string
  owner_id: number
  /** The credentials as JSON (FeedCredentials), sealed under the server key; null for none. */
  credentials_sealed: string | null
  ca_pem: string | null
  interval_seconds: number
  enabled: Generated<number>
  settings: Generated<string>
  defaults: Generated<string>
  import_from: string | null
  max_objects_per_run: number | null
  /** Where the next pull starts (the puller's own JSON); null before the first. */
  cursor: string | null
  next_run_at: Timestamp
  /** Failed runs in a row, for the back-off; 0 after a success. */
  failures: Generated<number>
  last_success_at: Timestamp | null
  lease_owner: string | null
  lease_expires: Timestamp | null
  created_by: number | null
  date_added: Timestamp
  last_modified: Timestamp
}

/** One run of a feed, as it went (domain/feeds/feed.ts FeedRun); `refusals` is JSON. */
export interface FeedRunTable {
  id: Id
  feed_id: number
  /** Running, Succeeded, Failed or Interrupted (its node stopped before the end). */
  status: string
  /** schedule or manual. */
  trigger: string
  worker: string
  started_at: Timestamp
  finished_at: Timestamp | null
  pages: Generated<number>
  fetched: Generated<number>
  created: Generated<number>
  updated: Generated<number>
  unchanged: Generated<number>
  refused: Generated<number>
  refusals: Generated<string>
  error: string | null
}

/** A value a mirrored list brought (domain/feeds/mirror.ts): a File by each of its hashes. */
export interface FeedValueTable {
  feed_id: number
  type: string
  summary: string
  /** The last run whose list held it. */
  last_run_id: number
}

/** An outbound list (domain/lists/): a saved TQL query served as text or CSV; `types` and `owner_ids` are JSON or null. */
export interface OutboundListTable {
  id: Id
  name: string
  tql: string
  types: string | null
  owner_ids: string | null
  created_by: number | null
  date_added: Timestamp
  last_modified: Timestamp
  /** The saved search whose current TQL the list serves instead of its own (migration 0145). */
  saved_search_id: number | null
}

/** A named TQL query (migration 0145): private when owner_id is null, else shared with that owner's members. */
export interface SavedSearchTable {
  id: Id
  name: string
  tql: string
  kind: 'indicators' | 'groups'
  owner_id: number | null
  created_by: number
  date_added: Timestamp
  last_modified: Timestamp
}

/** A saved search on one person's dashboard (migration 0145). */
export interface SavedSearchPinTable {
  saved_search_id: number
  user_id: number
}

/** Indicators added per owner, UTC day, type and active flag (migrations 0146, 0147); on PostgreSQL deltas that readers sum. */
export interface IndicatorDayTallyTable {
  owner_id: number
  day: string
  type: string
  active: number
  n: number
}

/** Indicators per owner, type, active flag and confidence (-1 for none; migration 0271); on PostgreSQL deltas that readers sum. */
export interface IndicatorConfidenceTallyTable {
  owner_id: number
  type: string
  active: number
  confidence: number
  n: number
}

/** Indicators per owner, type, active flag and ThreatAssess score (-1 for none; migration 0273), kept as the confidence tally. */
export interface IndicatorScoreTallyTable {
  owner_id: number
  type: string
  active: number
  score: number
  n: number
}

export interface Database {
  saved_search: SavedSearchTable
  saved_search_pin: SavedSearchPinTable
  indicator_day_tally: IndicatorDayTallyTable
  indicator_confidence_tally: IndicatorConfidenceTallyTable
  indicator_score_tally: IndicatorScoreTallyTable
  feed: FeedTable
  outbound_list: OutboundListTable
  feed_run: FeedRunTable
  feed_value: FeedValueTable
  import_job: ImportJobTable
  import_input_part: ImportInputPartTable
  import_error: ImportErrorTable
  indicator_lifecycle_policy: IndicatorLifecyclePolicyTable
  scheduled_task: ScheduledTaskTable
  feed_result_part: FeedResultPartTable
  owner: OwnerTable
  user_account: UserAccountTable
  membership: MembershipTable
  api_token: ApiTokenTable
  console_session: ConsoleSessionTable
  access_key: AccessKeyTable
  setting: SettingTable
  indicator: IndicatorTable
  indicator_tally: IndicatorTallyTable
  indicator_observation: IndicatorObservationTable
  indicator_false_positive: IndicatorFalsePositiveTable
  file_occurrence: FileOccurrenceTable
  file_action: FileActionTable
  dns_resolution: DnsResolutionTable
  deleted_indicator: DeletedIndicatorTable
  intel_group: GroupTable
  document_content: DocumentContentTable
  adversary_asset: AdversaryAssetTable
  task: TaskTable
  task_assignee: TaskAssigneeTable
  victim: VictimTable
  victim_asset: VictimAssetTable
  attribute_type: AttributeTypeTable
  attribute: AttributeTable
  security_label: SecurityLabelTable
  item_security_label: ItemSecurityLabelTable
  tag: TagTable
  item_tag: ItemTagTable
  association: AssociationTable
  association_type: AssociationTypeTable
  custom_metric: CustomMetricTable
  custom_metric_value: CustomMetricValueTable
  playbook: PlaybookTable
  intel_case: CaseTable
  artifact_type: ArtifactTypeTable
  artifact: ArtifactTable
  note: NoteTable
  intel_requirement: IntelRequirementTable
  batch_job: BatchJobTable
  batch_error: BatchErrorTable
  batch_input: BatchInputTable
  taxii_collection: TaxiiCollectionTable
}

export type Row<T extends keyof Database> = {
  [K in keyof Database[T]]: Database[T][K] extends ColumnType<infer S, any, any> ? S : Database[T][K]
}
