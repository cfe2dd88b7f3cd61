/**
 * How many Indicators each owner added per UTC day, kept by the database itself, for the dashboard's
 * "added per day" (docs/console.md). Migration 0141 dropped `indicator_date_added` so that ingest pays for
 * one index fewer (issue 28); counting a month of additions through `indicator_owner_added` would read every
 * entry of the month instead, up to the whole store after a bulk load. A per-day tally is read in a few rows.
 *
 * The same shape as the Indicator tally (0125/0136): on SQLite one row per (owner, day) upserted by row
 * triggers; on PostgreSQL each statement appends its delta from the transition tables (no counter row for
 * concurrent writers to queue on) and readers sum, folding an owner's deltas when they pile up. Deleting an
 * Indicator takes it off its day, so a day's count is what a search `dateAdded` on that day finds.
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

const DAY = (row: string) => `substr(${row}date_added, 1, 10)`

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema
    .createTable('indicator_day_tally')
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('n', postgres ? 'bigint' : 'integer', (c) => c.notNull())
    .execute()
  const key = db.schema.createIndex('indicator_day_tally_key').on('indicator_day_tally').columns(['owner_id', 'day'])
  await (postgres ? key : key.unique()).execute()
  await sql`insert into indicator_day_tally (owner_id, day, n)
    select owner_id, ${sql.raw(DAY(''))}, count(*) from indicator group by owner_id, ${sql.raw(DAY(''))}`.execute(db)
  if (postgres) await postgresTriggers(db)
  else await sqliteTriggers(db)
}

async function sqliteTriggers(db: Kysely<any>) {
  const add = sql.raw(`insert into indicator_day_tally (owner_id, day, n) values (new.owner_id, ${DAY('new.')}, 1)
      on conflict (owner_id, day) do update set n = n + 1;`)
  const remove = sql.raw(
    `update indicator_day_tally set n = n - 1 where owner_id = old.owner_id and day = ${DAY('old.')};`,
  )
  await sql`create trigger indicator_day_tally_insert after insert on indicator begin ${add} end`.execute(db)
  await sql`create trigger indicator_day_tally_delete after delete on indicator begin ${remove} end`.execute(db)
  await sql`create trigger indicator_day_tally_update after update of owner_id, date_added on indicator
    when old.owner_id is not new.owner_id or ${sql.raw(DAY('old.'))} is not ${sql.raw(DAY('new.'))}
    begin ${remove} ${add} end`.execute(db)
}

async function postgresTriggers(db: Kysely<any>) {
  await sql`create function indicator_day_tally_added() returns trigger language plpgsql as $$
    begin
      insert into indicator_day_tally (owner_id, day, n)
        select owner_id, substr(date_added, 1, 10), count(*) from added group by 1, 2;
      return null;
    end $$`.execute(db)
  await sql`create function indicator_day_tally_removed() returns trigger language plpgsql as $$
    begin
      insert into indicator_day_tally (owner_id, day, n)
        select owner_id, substr(date_added, 1, 10), -count(*) from removed group by 1, 2;
      return null;
    end $$`.execute(db)
  await sql`create function indicator_day_tally_moved() returns trigger language plpgsql as $$
    begin
      insert into indicator_day_tally (owner_id, day, n) values
        (old.owner_id, substr(old.date_added, 1, 10), -1), (new.owner_id, substr(new.date_added, 1, 10), 1);
      return null;
    end $$`.execute(db)
  await sql`create trigger indicator_day_tally_insert after insert on indicator referencing new table as added
    for each statement execute function indicator_day_tally_added()`.execute(db)
  await sql`create trigger indicator_day_tally_delete after delete on indicator referencing old table as removed
    for each statement execute function indicator_day_tally_removed()`.execute(db)
  // Only an owner move or a changed day touches the tally; the WHEN clause spares every other update.
  await sql`create trigger indicator_day_tally_update after update of owner_id, date_added on indicator for each row
    when (old.owner_id is distinct from new.owner_id or substr(old.date_added, 1, 10) is distinct from substr(new.date_added, 1, 10))
    execute function indicator_day_tally_moved()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const trigger of ['indicator_day_tally_insert', 'indicator_day_tally_delete', 'indicator_day_tally_update'])
    await sql`drop trigger if exists ${sql.raw(trigger)}${sql.raw(isPostgres(db) ? ' on indicator' : '')}`.execute(db)
  if (isPostgres(db))
    for (const fn of ['indicator_day_tally_added', 'indicator_day_tally_removed', 'indicator_day_tally_moved'])
      await sql`drop function if exists ${sql.raw(fn)}()`.execute(db)
  await db.schema.dropTable('indicator_day_tally').execute()
}
