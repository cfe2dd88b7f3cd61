/** A throwaway PostgreSQL database for one benchmark run. */
import pg from 'pg'

export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres'

export async function createDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now()}`
  const run = async (text: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
    await client.connect()
    try {
      await client.query(text)
    } finally {
      await client.end()
    }
  }
  await run(`CREATE DATABASE ${name}`)
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}
