/**
 * How many Indicators each owner holds, by type and active flag, kept by the database itself.
 *
 * A v2 listing answers with the exact `resultCount` of what it lists, and clients page by it; counting
 * an owner's 700,000 rows on every first page cost 100–230 ms. The tally turns the unfiltered count
 * into a read of a few rows. Triggers keep it, so every writer (API, batch, merges, cascades from
 * deleting an owner) is counted without knowing of it.
 *
 * SQLite has one writer at a time and row triggers only: one row per (owner, type, active), upserted.
 * PostgreSQL has concurrent writers: a counter row updated by each would serialise them and could
 * deadlock two transactions touching two counters in opposite orders, so each statement appends its
 * delta (statement triggers over the transition tables; a row trigger for the rare flag or owner
 * change) and readers sum. store/repositories/indicator-tally.repository.ts folds an owner's deltas when they pile up.
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema
    .createTable('indicator_tally')
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('n', postgres ? 'bigint' : 'integer', (c) => c.notNull())
    .execute()
  const key = db.schema.createIndex('indicator_tally_key').on('indicator_tally').columns(['owner_id', 'type', 'active'])
  await (postgres ? key : key.unique()).execute()
  await sql`insert into indicator_tally (owner_id, type, active, n)
    select owner_id, type, active, count(*) from indicator group by owner_id, type, active`.execute(db)
  if (postgres) await postgresTriggers(db)
  else await sqliteTriggers(db)
}

async function sqliteTriggers(db: Kysely<any>) {
  const add = (row: 'new') =>
    sql.raw(`insert into indicator_tally (owner_id, type, active, n) values (${row}.owner_id, ${row}.type, ${row}.active, 1)
      on conflict (owner_id, type, active) do update set n = n + 1;`)
  const remove = sql.raw(
    `update indicator_tally set n = n - 1 where owner_id = old.owner_id and type = old.type and active = old.active;`,
  )
  await sql`create trigger indicator_tally_insert after insert on indicator begin ${add('new')} end`.execute(db)
  await sql`create trigger indicator_tally_delete after delete on indicator begin ${remove} end`.execute(db)
  await sql`create trigger indicator_tally_update after update of owner_id, type, active on indicator
    when old.owner_id is not new.owner_id or old.type is not new.type or old.active is not new.active
    begin ${remove} ${add('new')} end`.execute(db)
}

async function postgresTriggers(db: Kysely<any>) {
  await sql`create function indicator_tally_added() returns trigger language plpgsql as $$
    begin
      insert into indicator_tally (owner_id, type, active, n) select owner_id, type, active, count(*) from added group by owner_id, type, active;
      return null;
    end $$`.execute(db)
  await sql`create function indicator_tally_removed() returns trigger language plpgsql as $$
    begin
      insert into indicator_tally (owner_id, type, active, n) select owner_id, type, active, -count(*) from removed group by owner_id, type, active;
      return null;
    end $$`.execute(db)
  await sql`create function indicator_tally_moved() returns trigger language plpgsql as $$
    begin
      insert into indicator_tally (owner_id, type, active, n) values (old.owner_id, old.type, old.active, -1), (new.owner_id, new.type, new.active, 1);
      return null;
    end $$`.execute(db)
  await sql`create trigger indicator_tally_insert after insert on indicator referencing new table as added
    for each statement execute function indicator_tally_added()`.execute(db)
  await sql`create trigger indicator_tally_delete after delete on indicator referencing old table as removed
    for each statement execute function indicator_tally_removed()`.execute(db)
  // A row trigger with a WHEN clause costs nothing on the updates that leave these columns alone (most of them).
  await sql`create trigger indicator_tally_update after update of owner_id, type, active on indicator for each row
    when (old.owner_id is distinct from new.owner_id or old.type is distinct from new.type or old.active is distinct from new.active)
    execute function indicator_tally_moved()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const trigger of ['indicator_tally_insert', 'indicator_tally_delete', 'indicator_tally_update']) {
    await sql`drop trigger if exists ${sql.raw(trigger)}${sql.raw(isPostgres(db) ? ' on indicator' : '')}`.execute(db)
  }
  if (isPostgres(db)) {
    for (const fn of ['indicator_tally_added', 'indicator_tally_removed', 'indicator_tally_moved'])
      await sql`drop function if exists ${sql.raw(fn)}()`.execute(db)
  }
  await db.schema.dropTable('indicator_tally').execute()
}
