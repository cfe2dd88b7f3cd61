/**
 * The Indicator tally (migration 0125) by rating as well: one row (SQLite) or delta (PostgreSQL) per
 * (owner, type, active, rating), the rating -1 for an unrated Indicator. A v2 list filtered by rating
 * (`filters=rating>2`, the commonest filter of feed clients) answers its exact `resultCount` from a sum over a few
 * tally rows instead of counting the owner's rows (43–71 ms at 100,000 Indicators, 127–133 ms at 1,000,000,
 * growing with the owner). Ratings are 0–5 in steps the API allows, so an owner has at most a few dozen keys a type.
 * The triggers now also follow rating changes (a re-sent Indicator often carries a new rating).
 */
import { type Kysely, sql } from 'kysely'
import * as tally0125 from './0125-indicator-tally.js'
import { isPostgres } from './schema-helpers.js'

const RATING = sql.raw('coalesce(rating, -1)')

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await dropTriggers(db)
  await db.schema.dropIndex('indicator_tally_key').execute()
  await db.schema
    .alterTable('indicator_tally')
    .addColumn('rating', postgres ? 'double precision' : 'real', (c) => c.notNull().defaultTo(-1))
    .execute()
  await sql`delete from indicator_tally`.execute(db)
  await sql`insert into indicator_tally (owner_id, type, active, rating, n)
    select owner_id, type, active, ${RATING}, count(*) from indicator group by owner_id, type, active, ${RATING}`.execute(
    db,
  )
  const key = db.schema
    .createIndex('indicator_tally_key')
    .on('indicator_tally')
    .columns(['owner_id', 'type', 'active', 'rating'])
  await (postgres ? key : key.unique()).execute()
  if (postgres) await postgresTriggers(db)
  else await sqliteTriggers(db)
}

async function dropTriggers(db: Kysely<any>) {
  for (const trigger of ['indicator_tally_insert', 'indicator_tally_delete', 'indicator_tally_update'])
    await sql`drop trigger if exists ${sql.raw(trigger)}${sql.raw(isPostgres(db) ? ' on indicator' : '')}`.execute(db)
}

async function sqliteTriggers(db: Kysely<any>) {
  const add = sql.raw(`insert into indicator_tally (owner_id, type, active, rating, n)
      values (new.owner_id, new.type, new.active, coalesce(new.rating, -1), 1)
      on conflict (owner_id, type, active, rating) do update set n = n + 1;`)
  const remove = sql.raw(`update indicator_tally set n = n - 1
      where owner_id = old.owner_id and type = old.type and active = old.active and rating = coalesce(old.rating, -1);`)
  await sql`create trigger indicator_tally_insert after insert on indicator begin ${add} end`.execute(db)
  await sql`create trigger indicator_tally_delete after delete on indicator begin ${remove} end`.execute(db)
  await sql`create trigger indicator_tally_update after update of owner_id, type, active, rating on indicator
    when old.owner_id is not new.owner_id or old.type is not new.type or old.active is not new.active
      or old.rating is not new.rating
    begin ${remove} ${add} end`.execute(db)
}

async function postgresTriggers(db: Kysely<any>) {
  await sql`create or replace function indicator_tally_added() returns trigger language plpgsql as $$
    begin
      insert into indicator_tally (owner_id, type, active, rating, n)
        select owner_id, type, active, coalesce(rating, -1), count(*) from added group by owner_id, type, active, coalesce(rating, -1);
      return null;
    end $$`.execute(db)
  await sql`create or replace function indicator_tally_removed() returns trigger language plpgsql as $$
    begin
      insert into indicator_tally (owner_id, type, active, rating, n)
        select owner_id, type, active, coalesce(rating, -1), -count(*) from removed group by owner_id, type, active, coalesce(rating, -1);
      return null;
    end $$`.execute(db)
  await sql`create or replace function indicator_tally_moved() returns trigger language plpgsql as $$
    begin
      insert into indicator_tally (owner_id, type, active, rating, n) values
        (old.owner_id, old.type, old.active, coalesce(old.rating, -1), -1),
        (new.owner_id, new.type, new.active, coalesce(new.rating, -1), 1);
      return null;
    end $$`.execute(db)
  await sql`create trigger indicator_tally_insert after insert on indicator referencing new table as added
    for each statement execute function indicator_tally_added()`.execute(db)
  await sql`create trigger indicator_tally_delete after delete on indicator referencing old table as removed
    for each statement execute function indicator_tally_removed()`.execute(db)
  await sql`create trigger indicator_tally_update after update of owner_id, type, active, rating on indicator for each row
    when (old.owner_id is distinct from new.owner_id or old.type is distinct from new.type
      or old.active is distinct from new.active or old.rating is distinct from new.rating)
    execute function indicator_tally_moved()`.execute(db)
}

/** The tally of 0125 again, counted anew from the rows. */
export async function down(db: Kysely<any>): Promise<void> {
  await tally0125.down(db)
  await tally0125.up(db)
}
