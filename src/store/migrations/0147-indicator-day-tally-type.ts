/**
 * The day tally of migration 0146 by type and active flag as well: one row (SQLite) or delta (PostgreSQL) per
 * (owner, day, type, active). A v2 list filtered by `dateAdded` is an owner's active Indicators by default, often of
 * one type (`/v2/indicators/hosts?filters=dateAdded>2026-11-01`); its exact `resultCount` then sums the tally's days
 * inside the window and counts rows only on the window's boundary days (store/repositories/indicator-tally.repository.ts),
 * where it read every matching row through `indicator_owner_added` (issue 28, point 4). An owner has at most twenty
 * keys a day, and the dashboard's per-day sums read them alike.
 */
import { type Kysely, sql } from 'kysely'
import * as dayTally0146 from './0146-indicator-day-tally.js'
import { isPostgres } from './schema-helpers.js'

const KEY = ['owner_id', 'day', 'type', 'active'] as const

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await dropTriggers(db)
  await db.schema.dropIndex('indicator_day_tally_key').execute()
  await db.schema
    .alterTable('indicator_day_tally')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await db.schema
    .alterTable('indicator_day_tally')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()
  await sql`delete from indicator_day_tally`.execute(db)
  await sql`insert into indicator_day_tally (owner_id, day, type, active, n)
    select owner_id, substr(date_added, 1, 10), type, active, count(*) from indicator group by 1, 2, 3, 4`.execute(db)
  const key = db.schema
    .createIndex('indicator_day_tally_key')
    .on('indicator_day_tally')
    .columns([...KEY])
  await (postgres ? key : key.unique()).execute()
  if (postgres) await postgresTriggers(db)
  else await sqliteTriggers(db)
}

async function dropTriggers(db: Kysely<any>) {
  for (const trigger of ['indicator_day_tally_insert', 'indicator_day_tally_delete', 'indicator_day_tally_update'])
    await sql`drop trigger if exists ${sql.raw(trigger)}${sql.raw(isPostgres(db) ? ' on indicator' : '')}`.execute(db)
}

const sameKey = (old: string, now: string) =>
  `${old}owner_id is not ${now}owner_id or substr(${old}date_added, 1, 10) is not substr(${now}date_added, 1, 10)
      or ${old}type is not ${now}type or ${old}active is not ${now}active`

async function sqliteTriggers(db: Kysely<any>) {
  const add = sql.raw(`insert into indicator_day_tally (owner_id, day, type, active, n)
      values (new.owner_id, substr(new.date_added, 1, 10), new.type, new.active, 1)
      on conflict (owner_id, day, type, active) do update set n = n + 1;`)
  const remove = sql.raw(`update indicator_day_tally set n = n - 1 where owner_id = old.owner_id
      and day = substr(old.date_added, 1, 10) and type = old.type and active = old.active;`)
  await sql`create trigger indicator_day_tally_insert after insert on indicator begin ${add} end`.execute(db)
  await sql`create trigger indicator_day_tally_delete after delete on indicator begin ${remove} end`.execute(db)
  await sql`create trigger indicator_day_tally_update after update of owner_id, date_added, type, active on indicator
    when ${sql.raw(sameKey('old.', 'new.'))}
    begin ${remove} ${add} end`.execute(db)
}

async function postgresTriggers(db: Kysely<any>) {
  await sql`create or replace function indicator_day_tally_added() returns trigger language plpgsql as $$
    begin
      insert into indicator_day_tally (owner_id, day, type, active, n)
        select owner_id, substr(date_added, 1, 10), type, active, count(*) from added group by 1, 2, 3, 4;
      return null;
    end $$`.execute(db)
  await sql`create or replace function indicator_day_tally_removed() returns trigger language plpgsql as $$
    begin
      insert into indicator_day_tally (owner_id, day, type, active, n)
        select owner_id, substr(date_added, 1, 10), type, active, -count(*) from removed group by 1, 2, 3, 4;
      return null;
    end $$`.execute(db)
  await sql`create or replace function indicator_day_tally_moved() returns trigger language plpgsql as $$
    begin
      insert into indicator_day_tally (owner_id, day, type, active, n) values
        (old.owner_id, substr(old.date_added, 1, 10), old.type, old.active, -1),
        (new.owner_id, substr(new.date_added, 1, 10), new.type, new.active, 1);
      return null;
    end $$`.execute(db)
  await sql`create trigger indicator_day_tally_insert after insert on indicator referencing new table as added
    for each statement execute function indicator_day_tally_added()`.execute(db)
  await sql`create trigger indicator_day_tally_delete after delete on indicator referencing old table as removed
    for each statement execute function indicator_day_tally_removed()`.execute(db)
  // Only a change of the key touches the tally; the WHEN clause spares every other update.
  await sql`create trigger indicator_day_tally_update after update of owner_id, date_added, type, active on indicator
    for each row when (old.owner_id is distinct from new.owner_id
      or substr(old.date_added, 1, 10) is distinct from substr(new.date_added, 1, 10)
      or old.type is distinct from new.type or old.active is distinct from new.active)
    execute function indicator_day_tally_moved()`.execute(db)
}

/** The day tally of 0146 again, counted anew from the rows. */
export async function down(db: Kysely<any>): Promise<void> {
  await dayTally0146.down(db)
  await dayTally0146.up(db)
}
