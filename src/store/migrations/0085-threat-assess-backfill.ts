/**
 * Fills the ThreatAssess figures of the Indicators stored before Bulwark computed them, with the
 * formula of that release (store/repositories/indicator.repository.ts, refreshThreatAssessment). Written out
 * here rather than imported, so that a later change of the formula does not change this step.
 */
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  const observed = sql<number>`CASE WHEN observation_count >= 100 THEN 200 ELSE observation_count * 2 END`
  const falsePositive = sql<number>`CASE WHEN false_positive_count >= 10 THEN 500 ELSE false_positive_count * 50 END`
  const raw = sql<number>`(COALESCE(rating, 0) * COALESCE(confidence, 50) * 1.6 + ${observed} - ${falsePositive})`
  await db
    .updateTable('indicator')
    .set({
      threat_assess_rating: sql`COALESCE(rating, 0)`,
      threat_assess_confidence: sql`COALESCE(confidence, 0)`,
      threat_assess_score_observed: observed,
      threat_assess_score_false_positive: falsePositive,
      threat_assess_score: sql`CAST(CASE WHEN ${raw} < 0 THEN 0 WHEN ${raw} > 1000 THEN 1000 ELSE round(CAST(${raw} AS NUMERIC)) END AS INTEGER)`,
    })
    .where('threat_assess_score', 'is', null)
    .execute()
}

export async function down(): Promise<void> {
  // The figures are derived data; leaving them in place is harmless.
}
