/**
 * The baseline for the TAXII 1.1 benchmark: a bare Fastify HTTPS server with the same
 * certificate whose one POST route streams `n` bytes of XML-like text (query string `n`,
 * `ttfb`), in 64 KiB pieces from a Readable, with no database, no authentication and no
 * logging. Run as a child process by bench/taxii11.ts.
 */
import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import Fastify from 'fastify'

const PIECE = Buffer.from('<stix:Indicator>x</stix:Indicator>'.repeat(2048).slice(0, 65_536))

const app = Fastify({
  logger: false,
  https: {
    cert: readFileSync(process.env.BENCH_TLS_CERT!, 'utf8'),
    key: readFileSync(process.env.BENCH_TLS_KEY!, 'utf8'),
  },
})
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body))
app.post('/stream', async (req, reply) => {
  let left = Number((req.query as { n?: string }).n ?? 0)
  async function* pieces() {
    while (left > 0) {
      const piece = left >= PIECE.length ? PIECE : PIECE.subarray(0, left)
      left -= piece.length
      yield piece
    }
  }
  return reply.type('application/xml').send(Readable.from(pieces(), { objectMode: false }))
})
await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT) })
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)))
