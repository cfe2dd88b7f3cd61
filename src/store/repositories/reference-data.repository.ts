/** Seeds the built-in reference rows (idempotent, by name). */
import type { Kysely } from 'kysely'
import { ARTIFACT_TYPES, ASSOCIATION_TYPES, ATTRIBUTE_TYPES } from '../../model/reference-data.js'
import type { Database } from '../database.js'

export async function seedReferenceData(db: Kysely<Database>, now: string): Promise<void> {
  const existingAssociations = new Set(
    (await db.selectFrom('association_type').select('name').execute()).map((r) => r.name),
  )
  for (const t of ASSOCIATION_TYPES) {
    if (existingAssociations.has(t.name)) continue
    await db
      .insertInto('association_type')
      .values({
        name: t.name,
        api_branch: t.apiBranch,
        from_type: t.fromType,
        to_type: t.toType,
        custom: 0,
        file_action: t.fileAction ? 1 : 0,
        description: null,
      })
      .execute()
  }
  const existingAttributeTypes = new Set(
    (await db.selectFrom('attribute_type').select('name').where('system', '=', 1).execute()).map((r) => r.name),
  )
  for (const t of ATTRIBUTE_TYPES) {
    if (existingAttributeTypes.has(t.name)) continue
    await db
      .insertInto('attribute_type')
      .values({
        name: t.name,
        description: t.description,
        owner_id: null,
        max_length: t.maxLength,
        allow_markdown: t.allowMarkdown ? 1 : 0,
        error_message: t.validationRule ? `${t.name} must be ${t.validationRule.description.toLowerCase()}` : null,
        validation_rule: t.validationRule ? JSON.stringify(t.validationRule) : null,
        applies_to: t.appliesTo.join(','),
        system: 1,
        date_added: now,
      })
      .execute()
  }
  const existingArtifactTypes = new Set(
    (await db.selectFrom('artifact_type').select('name').execute()).map((r) => r.name),
  )
  for (const t of ARTIFACT_TYPES) {
    if (existingArtifactTypes.has(t.name)) continue
    await db
      .insertInto('artifact_type')
      .values({ name: t.name, data_type: t.dataType, intel_type: t.intelType, description: null, active: 1 })
      .execute()
  }
}
