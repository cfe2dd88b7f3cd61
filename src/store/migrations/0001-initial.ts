/**
 * The whole data model of the spec: owners and accounts, every intelligence kind,
 * metadata, associations, case management, jobs and settings. Later migrations add to
 * it; they never rename what clients already rely on.
 */
import type { Kysely } from 'kysely'
import { DOUBLE, blobType, withId } from './schema-helpers.js'

export async function up(db: Kysely<any>): Promise<void> {
  const s = db.schema
  const ts = 'text' as const

  await withId(db, s.createTable('owner'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('allow_data_copy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()

  await withId(db, s.createTable('user_account'))
    .addColumn('user_name', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('pseudonym', 'text')
    .addColumn('email', 'text')
    .addColumn('system_role', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('password_hash', 'text')
    .addColumn('token_lifetime_days', 'integer')
    .addColumn('observations_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('tql_timeout_ms', 'integer')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
    .execute()

  await s
    .createTable('membership')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user_account.id').onDelete('cascade'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('date_added', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('membership_pk', ['user_id', 'owner_id'])
    .execute()
  await s.createIndex('membership_owner').on('membership').columns(['owner_id']).execute()

  await withId(db, s.createTable('api_token'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user_account.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('expires_at', ts)
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()

  await withId(db, s.createTable('access_key'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user_account.id').onDelete('cascade'))
    .addColumn('access_id', 'text', (c) => c.notNull().unique())
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()

  await s
    .createTable('setting')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute()

  let indicator = withId(db, s.createTable('indicator'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('value1', 'text')
    .addColumn('value2', 'text')
    .addColumn('value3', 'text')
    .addColumn('rating', DOUBLE)
    .addColumn('confidence', 'integer')
    .addColumn('description', 'text')
    .addColumn('source', 'text')
  for (const flag of ['private_flag', 'active_locked', 'dns_active', 'whois_active']) {
    indicator = indicator.addColumn(flag, 'integer', (c) => c.notNull().defaultTo(0))
  }
  indicator = indicator
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('threat_assess_score', 'integer')
    .addColumn('threat_assess_rating', DOUBLE)
    .addColumn('threat_assess_confidence', DOUBLE)
    .addColumn('threat_assess_score_observed', 'integer')
    .addColumn('threat_assess_score_false_positive', 'integer')
    .addColumn('cal_score', 'integer')
  for (const date of [
    'first_seen',
    'last_seen',
    'external_date_added',
    'external_last_modified',
    'external_date_expires',
  ]) {
    indicator = indicator.addColumn(date, ts)
  }
  indicator = indicator
    .addColumn('size', 'integer')
    .addColumn('observation_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_observed', ts)
    .addColumn('false_positive_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_false_positive', ts)
  for (const geo of [
    'address_city',
    'address_country_code',
    'address_country_name',
    'address_organization',
    'address_state',
    'address_timezone',
  ]) {
    indicator = indicator.addColumn(geo, 'text')
  }
  await indicator
    .addColumn('address_asn', 'integer')
    .addColumn('created_by', 'integer')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
    .execute()
  // One owner holds one copy of an Indicator; for Files each hash is a key of its own.
  await s
    .createIndex('indicator_owner_type_summary')
    .unique()
    .on('indicator')
    .columns(['owner_id', 'type', 'summary'])
    .execute()
  for (const [i, column] of ['value1', 'value2', 'value3'].entries()) {
    await s
      .createIndex(`indicator_file_hash${i + 1}`)
      .unique()
      .on('indicator')
      .columns(['owner_id', column])
      .where('type', '=', 'File')
      .execute()
  }
  await s.createIndex('indicator_summary').on('indicator').columns(['summary']).execute()
  await s.createIndex('indicator_owner_added').on('indicator').columns(['owner_id', 'date_added', 'id']).execute()
  await s.createIndex('indicator_modified').on('indicator').columns(['last_modified']).execute()

  await withId(db, s.createTable('indicator_observation'))
    .addColumn('indicator_id', 'integer', (c) => c.notNull().references('indicator.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('date_observed', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('indicator_observation_indicator').on('indicator_observation').columns(['indicator_id']).execute()

  await s
    .createTable('indicator_false_positive')
    .addColumn('indicator_id', 'integer', (c) => c.notNull().references('indicator.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('reported_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('indicator_false_positive_pk', ['indicator_id', 'user_id', 'day'])
    .execute()

  await withId(db, s.createTable('file_occurrence'))
    .addColumn('indicator_id', 'integer', (c) => c.notNull().references('indicator.id').onDelete('cascade'))
    .addColumn('file_name', 'text')
    .addColumn('path', 'text')
    .addColumn('date', ts)
    .execute()
  await s.createIndex('file_occurrence_indicator').on('file_occurrence').columns(['indicator_id']).execute()

  await withId(db, s.createTable('file_action'))
    .addColumn('indicator_id', 'integer', (c) => c.notNull().references('indicator.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_indicator_id', 'integer', (c) => c.notNull().references('indicator.id').onDelete('cascade'))
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('file_action_indicator').on('file_action').columns(['indicator_id', 'action']).execute()

  await withId(db, s.createTable('dns_resolution'))
    .addColumn('host_id', 'integer', (c) => c.notNull().references('indicator.id').onDelete('cascade'))
    .addColumn('address_id', 'integer', (c) => c.notNull().references('indicator.id').onDelete('cascade'))
    .addColumn('resolution_date', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('dns_resolution_host').on('dns_resolution').columns(['host_id']).execute()

  await withId(db, s.createTable('deleted_indicator'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('date_deleted', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('deleted_indicator_owner').on('deleted_indicator').columns(['owner_id', 'date_deleted']).execute()

  let group = withId(db, s.createTable('intel_group'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('xid', 'text')
    .addColumn('created_by', 'integer')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
  for (const date of [
    'event_date',
    'first_seen',
    'last_seen',
    'publish_date',
    'external_date_added',
    'external_last_modified',
    'external_date_expires',
    'document_date_added',
    'email_date',
  ]) {
    group = group.addColumn(date, ts)
  }
  for (const text of [
    'status',
    'file_name',
    'file_type',
    'file_text',
    'password',
    'document_type',
    'email_to',
    'email_from',
    'email_subject',
    'email_header',
    'email_body',
    'event_type',
    'insights',
    'custom_ai_content',
    'ai_provider',
    'description',
  ]) {
    group = group.addColumn(text, 'text')
  }
  for (const flag of ['malware', 'generated_report', 'email_score_includes_body', 'up_vote_count', 'down_vote_count']) {
    group = group.addColumn(flag, 'integer', (c) => c.notNull().defaultTo(0))
  }
  await group.addColumn('file_size', 'integer').addColumn('email_score', 'integer').execute()
  await s.createIndex('intel_group_owner_xid').unique().on('intel_group').columns(['owner_id', 'xid']).execute()
  await s.createIndex('intel_group_owner_type').on('intel_group').columns(['owner_id', 'type', 'id']).execute()
  await s.createIndex('intel_group_name').on('intel_group').columns(['name']).execute()

  await s
    .createTable('document_content')
    .addColumn('group_id', 'integer', (c) => c.primaryKey().references('intel_group.id').onDelete('cascade'))
    .addColumn('content', blobType(db), (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('uploaded_at', ts, (c) => c.notNull())
    .execute()

  await withId(db, s.createTable('adversary_asset'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('intel_group.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('adversary_asset_group').on('adversary_asset').columns(['group_id']).execute()

  await withId(db, s.createTable('intel_case'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('xid', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('resolution', 'text')
    .addColumn('case_open_time', ts)
    .addColumn('case_close_time', ts)
    .addColumn('case_occurrence_time', ts)
    .addColumn('case_detection_time', ts)
    .addColumn('created_by', 'integer')
    .addColumn('assignee_user_id', 'integer')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_updated', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('intel_case_owner').on('intel_case').columns(['owner_id', 'id']).execute()

  await withId(db, s.createTable('task'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('case_id', 'integer', (c) => c.references('intel_case.id').onDelete('cascade'))
    .addColumn('xid', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('due_date', ts)
    .addColumn('reminder_date', ts)
    .addColumn('escalation_date', ts)
    .addColumn('escalated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reminded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('completed_date', ts)
    .addColumn('created_by', 'integer')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('task_owner').on('task').columns(['owner_id', 'id']).execute()

  await s
    .createTable('task_assignee')
    .addColumn('task_id', 'integer', (c) => c.notNull().references('task.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user_account.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('task_assignee_pk', ['task_id', 'role', 'user_id'])
    .execute()

  await withId(db, s.createTable('victim'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('org', 'text')
    .addColumn('suborg', 'text')
    .addColumn('work_location', 'text')
    .addColumn('nationality', 'text')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('victim_owner').on('victim').columns(['owner_id', 'id']).execute()

  await withId(db, s.createTable('victim_asset'))
    .addColumn('victim_id', 'integer', (c) => c.notNull().references('victim.id').onDelete('cascade'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('victim_asset_victim').on('victim_asset').columns(['victim_id']).execute()

  await withId(db, s.createTable('attribute_type'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('owner_id', 'integer', (c) => c.references('owner.id'))
    .addColumn('max_length', 'integer', (c) => c.notNull())
    .addColumn('allow_markdown', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error_message', 'text')
    .addColumn('validation_rule', 'text')
    .addColumn('applies_to', 'text', (c) => c.notNull())
    .addColumn('system', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('attribute_type_name').on('attribute_type').columns(['name']).execute()

  await withId(db, s.createTable('attribute'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('item_kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'integer', (c) => c.notNull())
    .addColumn('type_id', 'integer', (c) => c.notNull().references('attribute_type.id'))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('displayed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pinned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('source', 'text')
    .addColumn('created_by', 'integer')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('attribute_item').on('attribute').columns(['item_kind', 'item_id']).execute()

  await withId(db, s.createTable('security_label'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('color', 'text')
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('security_label_owner_name').unique().on('security_label').columns(['owner_id', 'name']).execute()

  await s
    .createTable('item_security_label')
    .addColumn('label_id', 'integer', (c) => c.notNull().references('security_label.id').onDelete('cascade'))
    .addColumn('item_kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'integer', (c) => c.notNull())
    .addColumn('date_added', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('item_security_label_pk', ['item_kind', 'item_id', 'label_id'])
    .execute()
  await s.createIndex('item_security_label_label').on('item_security_label').columns(['label_id']).execute()

  await withId(db, s.createTable('tag'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('technique_id', 'text')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_used', ts)
    .execute()
  await s.createIndex('tag_owner_name').unique().on('tag').columns(['owner_id', 'name']).execute()
  await s.createIndex('tag_name').on('tag').columns(['name']).execute()

  await s
    .createTable('item_tag')
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('tag.id').onDelete('cascade'))
    .addColumn('item_kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'integer', (c) => c.notNull())
    .addColumn('date_added', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('item_tag_pk', ['item_kind', 'item_id', 'tag_id'])
    .execute()
  await s.createIndex('item_tag_tag').on('item_tag').columns(['tag_id', 'item_kind', 'item_id']).execute()

  await withId(db, s.createTable('association_type'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('api_branch', 'text', (c) => c.notNull().unique())
    .addColumn('custom', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('file_action', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('from_type', 'text', (c) => c.notNull())
    .addColumn('to_type', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .execute()

  await s
    .createTable('association')
    .addColumn('from_kind', 'text', (c) => c.notNull())
    .addColumn('from_id', 'integer', (c) => c.notNull())
    .addColumn('to_kind', 'text', (c) => c.notNull())
    .addColumn('to_id', 'integer', (c) => c.notNull())
    .addColumn('association_type_id', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('date_added', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('association_pk', ['from_kind', 'from_id', 'to_kind', 'association_type_id', 'to_id'])
    .execute()

  await withId(db, s.createTable('custom_metric'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('data_type', 'text', (c) => c.notNull())
    .addColumn('interval', 'text', (c) => c.notNull())
    .addColumn('keyed_values', 'integer', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('custom_metric_owner_name').unique().on('custom_metric').columns(['owner_id', 'name']).execute()

  await s
    .createTable('custom_metric_value')
    .addColumn('metric_id', 'integer', (c) => c.notNull().references('custom_metric.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('period_start', ts, (c) => c.notNull())
    .addColumn('value', DOUBLE, (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('weight_sum', DOUBLE, (c) => c.notNull())
    .addColumn('last_date', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('custom_metric_value_pk', ['metric_id', 'name', 'period_start'])
    .execute()

  await withId(db, s.createTable('playbook'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('trigger_type', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('labels', 'text')
    .addColumn('version_major', 'integer', (c) => c.notNull())
    .addColumn('version_minor', 'integer', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
    .execute()

  await withId(db, s.createTable('artifact_type'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('data_type', 'text', (c) => c.notNull())
    .addColumn('intel_type', 'text')
    .addColumn('description', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()

  await withId(db, s.createTable('artifact'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('case_id', 'integer', (c) => c.notNull().references('intel_case.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.references('task.id').onDelete('set null'))
    .addColumn('type_id', 'integer', (c) => c.notNull().references('artifact_type.id'))
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('field_name', 'text')
    .addColumn('analytics_score', 'integer')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
    .execute()
  await s.createIndex('artifact_case').on('artifact').columns(['case_id']).execute()

  await withId(db, s.createTable('note'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('case_id', 'integer', (c) => c.references('intel_case.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.references('task.id').onDelete('cascade'))
    .addColumn('artifact_id', 'integer', (c) => c.references('artifact.id').onDelete('cascade'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('author_id', 'integer')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
    .execute()

  await withId(db, s.createTable('intel_requirement'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('xid', 'text')
    .addColumn('unique_id', 'text')
    .addColumn('requirement_text', 'text', (c) => c.notNull())
    .addColumn('category', 'text')
    .addColumn('subtype', 'text')
    .addColumn('description', 'text')
    .addColumn('reset_results', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('keyword_sections', 'text')
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('last_modified', ts, (c) => c.notNull())
    .execute()

  await withId(db, s.createTable('batch_job'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('user_account.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('input', 'text')
    .addColumn('error_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('success_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unprocess_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('date_added', ts, (c) => c.notNull())
    .addColumn('started_at', ts)
    .addColumn('completed_at', ts)
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires', ts)
    .execute()
  await s.createIndex('batch_job_status').on('batch_job').columns(['status', 'id']).execute()

  await withId(db, s.createTable('batch_error'))
    .addColumn('job_id', 'integer', (c) => c.notNull().references('batch_job.id').onDelete('cascade'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .execute()
  await s.createIndex('batch_error_job').on('batch_error').columns(['job_id']).execute()

  await s
    .createTable('taxii_collection')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('owner.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('alias', 'text')
    .addColumn('tql', 'text')
    .addColumn('ttl_days', 'integer')
    .addColumn('date_added', ts, (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  const tables = [
    'taxii_collection',
    'batch_error',
    'batch_job',
    'intel_requirement',
    'note',
    'artifact',
    'artifact_type',
    'playbook',
    'custom_metric_value',
    'custom_metric',
    'association',
    'association_type',
    'item_tag',
    'tag',
    'item_security_label',
    'security_label',
    'attribute',
    'attribute_type',
    'victim_asset',
    'victim',
    'task_assignee',
    'task',
    'intel_case',
    'adversary_asset',
    'document_content',
    'intel_group',
    'deleted_indicator',
    'dns_resolution',
    'file_action',
    'file_occurrence',
    'indicator_false_positive',
    'indicator_observation',
    'indicator',
    'setting',
    'access_key',
    'api_token',
    'membership',
    'user_account',
    'owner',
  ]
  for (const table of tables) await db.schema.dropTable(table).ifExists().execute()
}
