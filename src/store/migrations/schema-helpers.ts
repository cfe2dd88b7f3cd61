/**
 * The few places where SQLite and PostgreSQL DDL differ, named once so that every
 * migration reads the same on both dialects.
 */
import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely'

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/** Adds an auto-incrementing integer primary key called `id`. */
export function withId<T extends string>(
  db: Kysely<any>,
  table: CreateTableBuilder<T, any>,
): CreateTableBuilder<T, any> {
  return isPostgres(db)
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
}

export function blobType(db: Kysely<any>) {
  return isPostgres(db) ? sql`bytea` : sql`blob`
}

export const DOUBLE = 'double precision' as const
