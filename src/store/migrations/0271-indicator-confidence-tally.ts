/**
 * How many Indicators each owner holds per type, active flag and confidence, kept by the database itself: a v2
 * list filtered by confidence (`filters=confidence>50`, the other filter feed clients ask besides rating) answers
 * its exact `resultCount` from a sum over the tally's rows instead of counting the owner's matching rows (112 ms at
 * 1,000,000 Indicators, 1,050 ms at 10,000,000: issue 28, point 4). The confidence is -1 where none is set, so a
 * comparison, as in SQL, never matches it.
 *
 * A tally of its own rather than a column of the rating tally (0136): confidence takes 101 values, and keyed by both
 * an owner would have up to 101 times the keys and each batch statement up to 101 times the deltas. Apart, an owner
 * has at most 2,020 keys here (ten types, active or not), usually a few dozen: feeds set a handful of confidences.
 * The same shape as the other tallies: on SQLite one row per key upserted by row triggers; on PostgreSQL each
 * statement appends its deltas from the transition tables and readers sum, folding an owner's deltas when they pile
 * up (store/repositories/indicator-tally.repository.ts).
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

const KEY = ['owner_id', 'type', 'active', 'confidence'] as const
const CONFIDENCE = (row: string) => `coalesce(${row}confidence, -1)`

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema
    .createTable('indicator_confidence_tally')
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('confidence', 'integer', (c) => c.notNull())
    .addColumn('n', postgres ? 'bigint' : 'integer', (c) => c.notNull())
    .execute()
  const key = db.schema
    .createIndex('indicator_confidence_tally_key')
    .on('indicator_confidence_tally')
    .columns([...KEY])
  await (postgres ? key : key.unique()).execute()
  await sql`insert into indicator_confidence_tally (owner_id, type, active, confidence, n)
    select owner_id, type, active, ${sql.raw(CONFIDENCE(''))}, count(*) from indicator group by 1, 2, 3, 4`.execute(db)
  if (postgres) await postgresTriggers(db)
  else await sqliteTriggers(db)
}

async function sqliteTriggers(db: Kysely<any>) {
  const add = sql.raw(`insert into indicator_confidence_tally (owner_id, type, active, confidence, n)
      values (new.owner_id, new.type, new.active, ${CONFIDENCE('new.')}, 1)
      on conflict (owner_id, type, active, confidence) do update set n = n + 1;`)
  const remove = sql.raw(`update indicator_confidence_tally set n = n - 1 where owner_id = old.owner_id
      and type = old.type and active = old.active and confidence = ${CONFIDENCE('old.')};`)
  await sql`create trigger indicator_confidence_tally_insert after insert on indicator begin ${add} end`.execute(db)
  await sql`create trigger indicator_confidence_tally_delete after delete on indicator begin ${remove} end`.execute(db)
  await sql`create trigger indicator_confidence_tally_update after update of owner_id, type, active, confidence
    on indicator
    when old.owner_id is not new.owner_id or old.type is not new.type or old.active is not new.active
      or old.confidence is not new.confidence
    begin ${remove} ${add} end`.execute(db)
}

async function postgresTriggers(db: Kysely<any>) {
  await sql`create function indicator_confidence_tally_added() returns trigger language plpgsql as $$
    begin
      insert into indicator_confidence_tally (owner_id, type, active, confidence, n)
        select owner_id, type, active, coalesce(confidence, -1), count(*) from added group by 1, 2, 3, 4;
      return null;
    end $$`.execute(db)
  await sql`create function indicator_confidence_tally_removed() returns trigger language plpgsql as $$
    begin
      insert into indicator_confidence_tally (owner_id, type, active, confidence, n)
        select owner_id, type, active, coalesce(confidence, -1), -count(*) from removed group by 1, 2, 3, 4;
      return null;
    end $$`.execute(db)
  await sql`create function indicator_confidence_tally_moved() returns trigger language plpgsql as $$
    begin
      insert into indicator_confidence_tally (owner_id, type, active, confidence, n) values
        (old.owner_id, old.type, old.active, coalesce(old.confidence, -1), -1),
        (new.owner_id, new.type, new.active, coalesce(new.confidence, -1), 1);
      return null;
    end $$`.execute(db)
  await sql`create trigger indicator_confidence_tally_insert after insert on indicator referencing new table as added
    for each statement execute function indicator_confidence_tally_added()`.execute(db)
  await sql`create trigger indicator_confidence_tally_delete after delete on indicator referencing old table as removed
    for each statement execute function indicator_confidence_tally_removed()`.execute(db)
  // Only a change of the key touches the tally; the WHEN clause spares every other update.
  await sql`create trigger indicator_confidence_tally_update after update of owner_id, type, active, confidence
    on indicator for each row
    when (old.owner_id is distinct from new.owner_id or old.type is distinct from new.type
      or old.active is distinct from new.active or old.confidence is distinct from new.confidence)
    execute function indicator_confidence_tally_moved()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  for (const trigger of ['insert', 'delete', 'update'])
    await sql`drop trigger if exists ${sql.raw(`indicator_confidence_tally_${trigger}`)}${sql.raw(postgres ? ' on indicator' : '')}`.execute(
      db,
    )
  if (postgres)
    for (const fn of ['added', 'removed', 'moved'])
      await sql`drop function if exists ${sql.raw(`indicator_confidence_tally_${fn}`)}()`.execute(db)
  await db.schema.dropTable('indicator_confidence_tally').execute()
}
