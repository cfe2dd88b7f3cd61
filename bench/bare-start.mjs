// The floor for bench/start.ts: plain Node answering HTTPS with the same certificate, no framework,
// no database, no TypeScript. What any server pays to spawn, boot Node and set up TLS.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'

const server = createServer({ cert: readFileSync(process.env.BULWARK_TLS_CERT, 'utf8'), key: readFileSync(process.env.BULWARK_TLS_KEY, 'utf8') }, (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"Success"}')
})
server.listen(Number(process.env.BULWARK_PORT), process.env.BULWARK_HOST)
process.once('SIGTERM', () => server.close(() => process.exit(0)))
