/**
 * A feed answer's body as it streams: bytes on the wire counted against one limit, the decoded bytes
 * (gzip, deflate, br) against another, each checked chunk by chunk so a compression bomb stops at the
 * limit instead of being inflated first, and a stalled body ends in a timeout.
 */
import type { IncomingMessage } from 'node:http'
import { Readable, type Transform, pipeline } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib'
import { FeedFetchError } from '../../domain/feeds/pull.js'

/** Makes one stage of the body's pipeline: a zlib stream, or a generator where the stream cannot decide alone. */
export type DecoderStage = () => Transform | ((source: AsyncIterable<Buffer>) => AsyncIterable<Buffer>)

export interface BodyLimits {
  maxResponseBytes: number
  maxDecompressedBytes: number
  /** How long the body may stay silent while it is waited for. */
  idleMs: number
}

/** `1 MiB`, `1.5 GiB`, `512 bytes`: limits as an administrator set them. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${unit === 0 ? value : Number(value.toFixed(2))} ${units[unit]}`
}

/** The decoders of a Content-Encoding, in the order they apply; throws for an encoding not asked for. */
export function decodersFor(contentEncoding: string | undefined, where: string): DecoderStage[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity')
  return codings.reverse().map((coding) => {
    if (coding === 'gzip' || coding === 'x-gzip') return () => createGunzip()
    if (coding === 'deflate') return () => inflateEither
    if (coding === 'br') return () => createBrotliDecompress()
    throw new FeedFetchError(
      'network',
      `${where}: the answer is encoded as ${coding.slice(0, 40)}, which was not asked for`,
    )
  })
}

/**
 * "deflate" is meant to be zlib-wrapped, but some servers send raw deflate: the first byte of a zlib
 * stream names method 8 and its first two bytes are a multiple of 31, which raw deflate rarely is.
 */
async function* inflateEither(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const input = source[Symbol.asyncIterator]()
  const first = await input.next()
  if (first.done) return
  const head: Buffer = first.value
  const zlib = head.length < 2 || ((head[0] & 0x0f) === 8 && ((head[0] << 8) | head[1]) % 31 === 0)
  async function* all(): AsyncGenerator<Buffer> {
    yield head
    for (let next = await input.next(); !next.done; next = await input.next()) yield next.value
  }
  yield* pipeline(Readable.from(all()), zlib ? createInflate() : createInflateRaw(), () => {})
}

/**
 * The decoded body of `res`, chunk by chunk, within the limits. Throws a FeedFetchError (`too-large`,
 * `timeout`, `network`); leaving the loop early, or an error, destroys the connection.
 */
export async function* decodedBody(
  res: IncomingMessage,
  decoders: DecoderStage[],
  limits: BodyLimits,
  where: string,
): AsyncGenerator<Buffer> {
  let onWire = 0
  async function* countWire(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      onWire += chunk.length
      if (onWire > limits.maxResponseBytes)
        throw new FeedFetchError(
          'too-large',
          `${where}: the answer is larger than ${formatBytes(limits.maxResponseBytes)} on the wire (the limit)`,
        )
      yield chunk
    }
  }
  const stages = [res, countWire, ...decoders.map((make) => make())] as const
  const output: Readable = (pipeline as unknown as (...s: unknown[]) => Readable)(...stages, () => {})
  const iterator = output[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  let decoded = 0
  let finished = false
  try {
    for (;;) {
      const next = await withIdleTimeout(iterator.next(), limits.idleMs, where)
      if (next.done) {
        finished = true
        return
      }
      decoded += next.value.length
      if (decoded > limits.maxDecompressedBytes)
        throw new FeedFetchError(
          'too-large',
          `${where}: the answer is larger than ${formatBytes(limits.maxDecompressedBytes)} decompressed (the limit)`,
        )
      yield next.value
    }
  } catch (error) {
    throw bodyError(error, where)
  } finally {
    if (!finished) {
      output.destroy()
      res.destroy()
    }
  }
}

function withIdleTimeout<T>(promise: Promise<T>, ms: number, where: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new FeedFetchError('timeout', `${where}: the answer's body stalled for ${ms / 1000} s`)),
      ms,
    )
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

function bodyError(error: unknown, where: string): FeedFetchError {
  if (error instanceof FeedFetchError) return error
  const code = (error as NodeJS.ErrnoException)?.code
  if (typeof code === 'string' && code.startsWith('Z_'))
    return new FeedFetchError('network', `${where}: the answer's body could not be decompressed (${code})`)
  if (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || (error as Error)?.message === 'aborted')
    return new FeedFetchError('network', `${where}: the connection closed before the answer's body was complete`)
  return new FeedFetchError('network', `${where}: the answer's body could not be read (${code ?? 'error'})`)
}
