/**
 * The triggers that keep a per-owner tally of Indicators by one column (the confidence tally of 0271, the
 * ThreatAssess score tally of 0273): one row a key (owner, type, active flag, value; the value -1 where the column is
 * NULL) on SQLite, upserted by row triggers; on PostgreSQL each statement appends its deltas from the transition
 * tables, and readers sum and fold them (store/repositories/indicator-tally.repository.ts). The rating tally (0125,
 * 0136) is the same shape, written before this helper existed.
 */
import { type Kysely, sql } from 'kysely'
import { isPostgres } from './schema-helpers.js'

export interface ColumnTally {
  /** The tally table, its key index (`<table>_key`), triggers (`<table>_insert`…) and functions (`<table>_added`…). */
  table: string
  /** The tally's column holding the value. */
  column: string
  /** The Indicator column tallied. */
  source: string
}

const value = (tally: ColumnTally, row: string) => `coalesce(${row}${tally.source}, -1)`

export async function createColumnTally(db: Kysely<any>, tally: ColumnTally): Promise<void> {
  const postgres = isPostgres(db)
  await db.schema
    .createTable(tally.table)
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn(tally.column, 'integer', (c) => c.notNull())
    .addColumn('n', postgres ? 'bigint' : 'integer', (c) => c.notNull())
    .execute()
  const key = db.schema
    .createIndex(`${tally.table}_key`)
    .on(tally.table)
    .columns(['owner_id', 'type', 'active', tally.column])
  await (postgres ? key : key.unique()).execute()
  await sql`insert into ${sql.table(tally.table)} (owner_id, type, active, ${sql.ref(tally.column)}, n)
    select owner_id, type, active, ${sql.raw(value(tally, ''))}, count(*) from indicator group by 1, 2, 3, 4`.execute(
    db,
  )
  if (postgres) await postgresTriggers(db, tally)
  else await sqliteTriggers(db, tally)
}

async function sqliteTriggers(db: Kysely<any>, tally: ColumnTally) {
  const { table, column, source } = tally
  const add = sql.raw(`insert into ${table} (owner_id, type, active, ${column}, n)
      values (new.owner_id, new.type, new.active, ${value(tally, 'new.')}, 1)
      on conflict (owner_id, type, active, ${column}) do update set n = n + 1;`)
  const remove = sql.raw(`update ${table} set n = n - 1 where owner_id = old.owner_id
      and type = old.type and active = old.active and ${column} = ${value(tally, 'old.')};`)
  await sql`create trigger ${sql.raw(`${table}_insert`)} after insert on indicator begin ${add} end`.execute(db)
  await sql`create trigger ${sql.raw(`${table}_delete`)} after delete on indicator begin ${remove} end`.execute(db)
  await sql`create trigger ${sql.raw(`${table}_update`)} after update of owner_id, type, active, ${sql.raw(source)}
    on indicator
    when old.owner_id is not new.owner_id or old.type is not new.type or old.active is not new.active
      or old.${sql.raw(source)} is not new.${sql.raw(source)}
    begin ${remove} ${add} end`.execute(db)
}

async function postgresTriggers(db: Kysely<any>, tally: ColumnTally) {
  const { table, column, source } = tally
  const name = (suffix: string) => sql.raw(`${table}_${suffix}`)
  const statementFunction = (suffix: string, transition: string, sign: string) =>
    sql`create function ${name(suffix)}() returns trigger language plpgsql as $$
    begin
      insert into ${sql.raw(table)} (owner_id, type, active, ${sql.raw(column)}, n)
        select owner_id, type, active, ${sql.raw(value(tally, ''))}, ${sql.raw(sign)}count(*) from ${sql.raw(transition)} group by 1, 2, 3, 4;
      return null;
    end $$`.execute(db)
  await statementFunction('added', 'added', '')
  await statementFunction('removed', 'removed', '-')
  await sql`create function ${name('moved')}() returns trigger language plpgsql as $$
    begin
      insert into ${sql.raw(table)} (owner_id, type, active, ${sql.raw(column)}, n) values
        (old.owner_id, old.type, old.active, ${sql.raw(value(tally, 'old.'))}, -1),
        (new.owner_id, new.type, new.active, ${sql.raw(value(tally, 'new.'))}, 1);
      return null;
    end $$`.execute(db)
  await sql`create trigger ${name('insert')} after insert on indicator referencing new table as added
    for each statement execute function ${name('added')}()`.execute(db)
  await sql`create trigger ${name('delete')} after delete on indicator referencing old table as removed
    for each statement execute function ${name('removed')}()`.execute(db)
  // Only a change of the key touches the tally; the WHEN clause spares every other update.
  await sql`create trigger ${name('update')} after update of owner_id, type, active, ${sql.raw(source)}
    on indicator for each row
    when (old.owner_id is distinct from new.owner_id or old.type is distinct from new.type
      or old.active is distinct from new.active or old.${sql.raw(source)} is distinct from new.${sql.raw(source)})
    execute function ${name('moved')}()`.execute(db)
}

export async function dropColumnTally(db: Kysely<any>, tally: ColumnTally): Promise<void> {
  const postgres = isPostgres(db)
  for (const trigger of ['insert', 'delete', 'update'])
    await sql`drop trigger if exists ${sql.raw(`${tally.table}_${trigger}`)}${sql.raw(postgres ? ' on indicator' : '')}`.execute(
      db,
    )
  if (postgres)
    for (const fn of ['added', 'removed', 'moved'])
      await sql`drop function if exists ${sql.raw(`${tally.table}_${fn}`)}()`.execute(db)
  await db.schema.dropTable(tally.table).execute()
}
