/**
 * Limits on the request head, answered in the interface's error shape instead of Node's bare
 * status line and a dropped connection. A URL longer than MAX_URL_BYTES is parsed in full and
 * answered 414 by the interface it names; a head (request line and headers) longer than
 * MAX_HEAD_BYTES stops Node's parser, and the client-error handler answers 431, then reads and
 * drops what the client still sends before closing, so the answer is not lost to a reset.
 */
import { STATUS_CODES } from 'node:http'
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
