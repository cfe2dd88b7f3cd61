/**
 * A second reference for bench/v3-object.ts: the plainest server that answers an authenticated
 * read of one Indicator. Fastify over HTTPS with the bare route's certificate, plus the two steps
 * no such read can skip: the API token's SHA-256 found in a Map, and one prepared read of the
 * Indicator's row, through the driver's ordinary API, from the very database the Bulwark server
 * under test uses (sent as JSON without its empty columns). No owners, roles, presenters, hooks or
 * logging. Set beside the bare route, it shows what the read itself costs on this stack; set
 * beside GET /v3/indicators/{id}, whether Bulwark's own work adds to it.
 *
 * Environment: BENCH_PORT, BENCH_TLS_CERT, BENCH_TLS_KEY, BENCH_TOKEN (the token to accept, sent as
 * `TC-Token <token>`), BENCH_DATABASE (`sqlite:<path>` or a postgres:// URL).
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import Fastify from 'fastify'
import pg from 'pg'

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const accounts = new Map([[sha256(process.env.BENCH_TOKEN!), { name: 'bench' }]])
const target = process.env.BENCH_DATABASE!

type ReadRow = (id: number) => Promise<Record<string, unknown> | undefined>
let readRow: ReadRow
if (target.startsWith('sqlite:')) {
  const db = new Database(target.slice('sqlite:'.length), { fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  const statement = db.prepare('SELECT * FROM indicator WHERE id = ?')
  readRow = async (id) => statement.get(id) as Record<string, unknown> | undefined
} else {
  const pool = new pg.Pool({ connectionString: target, max: 10 })
  readRow = async (id) =>
    (await pool.query({ name: 'minimal_read', text: 'SELECT * FROM indicator WHERE id = $1', values: [id] })).rows[0]
}

const app = Fastify({
  logger: false,
  https: {
    cert: readFileSync(process.env.BENCH_TLS_CERT!, 'utf8'),
    key: readFileSync(process.env.BENCH_TLS_KEY!, 'utf8'),
  },
})
app.get<{ Params: { id: string } }>('/api/v3/indicators/:id', async (req, reply) => {
  const token = /^TC-Token (.+)$/.exec(req.headers.authorization ?? '')?.[1]
  if (!token || !accounts.has(sha256(token))) return reply.code(401).send({ status: 'Error', message: 'Unauthorized' })
  const row = await readRow(Number(req.params.id))
  if (!row) return reply.code(404).send({ status: 'Error', message: 'Not found' })
  const data: Record<string, unknown> = {}
  for (const key in row) if (row[key] !== null) data[key] = row[key]
  return { data, status: 'Success' }
})
await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT) })
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)))
