/**
 * Limits on the request head, answered in the interface's error shape instead of Node's bare
 * status line and a dropped connection. A URL longer than MAX_URL_BYTES is parsed in full and
 * answered 414 by the interface it names; a head (request line and headers) longer than
 * MAX_HEAD_BYTES stops Node's parser, and the client-error handler answers 431, then reads and
 * drops what the client still sends before closing, so the answer is not lost to a reset. A body
 * over its limit is answered 413 (TAXII 1.1: a Status_Message) by the interface, and the connection
 * is closed the same way (drainBeforeClosing): Node would otherwise destroy it the moment the
 * answer is written, and a client still sending its body sees a broken pipe instead of the answer.
 */
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
 * Answers a request whose body is refused without closing the connection under the client: the
 * answer keeps the connection (Fastify asks to close it), and Node reads and drops the rest of the
 * body as it does for any body a handler left unread, so a client that sends its whole body
 * before it reads gets the answer, and may send its next request. Past MAX_DRAIN_BYTES of body, or
 * MAX_DRAIN_MS, the connection is cut.
 */
export function drainBeforeClosing(req: IncomingMessage, reply: { removeHeader(name: string): unknown }): void {
  const socket = req.socket
  if (socket.destroyed || req.complete) return
  reply.removeHeader('connection')
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
 * Fastify's clientErrorHandler. Before routing the interface is unknown, so the body is v3's error
 * shape, which carries v2's two fields (status, message) too.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // Node calls again for each further chunk the failed parser sees; the first answer stands.
  if (socket.destroyed || error.code === 'ECONNRESET' || answered.has(socket)) return
  answered.add(socket)
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, `The request line and headers are larger than ${MAX_HEAD_BYTES} bytes`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request was not received in time']
        : [400, 'The request is not valid HTTP']
  if (!socket.writable) return void socket.destroy()
  const body = JSON.stringify(v3ErrorBody('invalid', message))
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
  socket.resume()
  socket.setTimeout(LINGER_MS, () => socket.destroy())
}
