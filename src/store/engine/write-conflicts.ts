/**
 * Errors that mean another writer got there first, not that the write is wrong. On PostgreSQL two transactions may
 * insert the same natural key at once: the second waits for the first and then fails with a unique violation, or
 * the two wait on each other and one is chosen to fail. Once the other has committed, the same write finds its row
 * and merges into it, so the right answer to these is to run it again. SQLite has one writer at a time and every
 * look-up of a write transaction sees what was committed before it, so there a unique violation is never a race.
 */
const RACE_CODES = new Set([
  '23505', // unique_violation
  '40P01', // deadlock_detected
  '40001', // serialization_failure
])

export function isWriteRace(error: unknown): boolean {
  return RACE_CODES.has(String((error as { code?: unknown })?.code))
}

/** Unique violations on either database: a name that is taken, for writes that report it rather than retry. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}
