/**
 * The baseline for the TAXII 2.1 benchmark: a bare Fastify HTTPS server with the same
 * certificate that answers GET /page/<n> with the n-th of the page bodies Bulwark served
 * (BENCH_PAGES_FILE: JSON array of strings; pages repeat cyclically), from memory, with the
 * same Content-Type: no authentication, no database, no logging. Run by bench/taxii21.ts.
 */
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const pages = (JSON.parse(readFileSync(process.env.BENCH_PAGES_FILE!, 'utf8')) as string[]).map((p) => Buffer.from(p))

const app = Fastify({
  logger: false,
  https: {
    cert: readFileSync(process.env.BENCH_TLS_CERT!, 'utf8'),
    key: readFileSync(process.env.BENCH_TLS_KEY!, 'utf8'),
  },
})
app.get<{ Params: { n: string } }>('/page/:n', async (req, reply) => {
  reply.header('content-type', 'application/taxii+json;version=2.1')
  return pages[Number(req.params.n) % pages.length]
})
await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT) })
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)))
