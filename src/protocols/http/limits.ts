/**
 * Limits on the request head, answered in the interface's error shape instead of Node's bare
 * status line and a dropped connection. A URL longer than MAX_URL_BYTES is parsed in full and
 * answered 414 by the interface it names; a head (request line and headers) longer than
 * MAX_HEAD_BYTES stops Node's parser, and the client-error handler answers 431, then reads and
 * drops what the client still sends before closing, so the answer is not lost to a reset. A body
 * over its limit is answered 413 (TAXII 1.1: a Status_Message) by the interface, and the connection
 * is kept (keepConnectionAfterRefusedBody): Fastify would close it the moment the answer is
 * written, and a client still sending its body would see a broken pipe instead of the answer.
 */
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { v3ErrorBody } from '../v3/present.js'

/** Longest URL (path and query) served; longer ones get 414. */
export const MAX_URL_BYTES = 16 * 1024
/** Longest request line plus headers Node's parser accepts (its maxHeaderSize); longer ones get 431. */
export const MAX_HEAD_BYTES = 64 * 1024
/** How long a refused connection may go on sending before it is cut. */
const LINGER_MS = 5_000

export function uriTooLong(url: string | undefined): Error | undefined {
  if (url === undefined || url.length <= MAX_URL_BYTES) return undefined
  // A framework-style error (a status, no domain code): the REST status table has no 414.
  return Object.assign(new Error(`The URL is ${url.length} bytes long; at most ${MAX_URL_BYTES} are accepted`), {
    statusCode: 414,
  })
}

/** At most this much of a refused body is read and dropped, and for at most MAX_DRAIN_MS, before the connection is cut. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024
const MAX_DRAIN_MS = 30_000

/**
 * Keeps the connection of a request whose body was refused (too large, malformed), which Fastify
 * would close: a client that sends its whole body before it reads gets the answer instead of a
 * broken pipe, and a request the client already sent behind it on the same connection is served
 * rather than lost (or, arriving just as the connection closed, answered 400 "not valid HTTP").
 * Node reads and drops what is left of the body, as for any body a handler left unread; past
 * MAX_DRAIN_BYTES of it, or MAX_DRAIN_MS, the connection is cut.
 */
export function keepConnectionAfterRefusedBody(
  req: IncomingMessage,
  reply: { removeHeader(name: string): unknown },
): void {
  const socket = req.socket
  if (socket.destroyed) return
  reply.removeHeader('connection')
  if (req.complete) return
  const started = socket.bytesRead
  const onData = () => {
    if (socket.bytesRead - started > MAX_DRAIN_BYTES) socket.destroy()
  }
  const cut = setTimeout(() => {
    if (!req.complete) socket.destroy()
  }, MAX_DRAIN_MS)
  cut.unref()
  socket.on('data', onData)
  const done = () => {
    clearTimeout(cut)
    socket.removeListener('data', onData)
  }
  req.once('end', done)
  socket.once('close', done)
}

const answered = new WeakSet<Socket>()

/**
 * Fastify's clientErrorHandler (`this` is the app, for its log). Before routing the interface is
 * unknown, so the body is v3's error shape, which carries v2's two fields (status, message) too.
 * Each answer carries an id of its own (X-Request-Id, and in the message), logged with the parser's
 * error code and how far it read, so a refusal a client reports can be traced to its cause.
 */
export function answerClientError(
  this: { log?: { warn(o: object, m: string): void } } | undefined,
  error: Error & { code?: string; bytesParsed?: number },
  socket: Socket,
): void {
  // Node calls again for each further chunk the failed parser sees; the first answer stands.
  if (socket.destroyed || error.code === 'ECONNRESET' || answered.has(socket)) return
  answered.add(socket)
  const id = randomUUID()
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, `The request line and headers are larger than ${MAX_HEAD_BYTES} bytes`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request was not received in time']
        : error.code === 'HPE_CLOSED_CONNECTION'
          ? // Sent on a connection the server was closing: the request itself may be fine.
            [503, 'The connection was closing; send the request again on a new connection']
          : [400, `The request is not valid HTTP (request ${id})`]
  this?.log?.warn(
    { reqId: id, code: error.code, bytesParsed: error.bytesParsed, remoteAddress: socket.remoteAddress },
    'refused a request the HTTP parser could not read',
  )
  if (!socket.writable) return void socket.destroy()
  const body = JSON.stringify(v3ErrorBody('invalid', message))
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\n` +
      (status === 503 ? 'Retry-After: 0\r\n' : '') +
      `Connection: close\r\n\r\n${body}`,
  )
  socket.resume()
  socket.setTimeout(LINGER_MS, () => socket.destroy())
}
