/**
 * The baseline for the auth benchmark: a bare Fastify HTTPS server with the same
 * certificate and a route answering what GET /api/v2/owners answers, with no
 * authentication, no database and no logging. Run as a child process by bench/auth.ts.
 */
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const BODY = {
  status: 'Success',
  data: { resultCount: 1, owner: [{ id: 1, name: 'Default Organization', type: 'Organization' }] },
}

const app = Fastify({
  logger: false,
  https: {
    cert: readFileSync(process.env.BENCH_TLS_CERT!, 'utf8'),
    key: readFileSync(process.env.BENCH_TLS_KEY!, 'utf8'),
  },
})
app.get('/api/v2/owners', async () => BODY)
await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT) })
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)))
