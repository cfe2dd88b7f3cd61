/**
 * A JSON list written as chunks of bytes of about a fixed size, each element's text copied in
 * as soon as it is made, while it is young: kept as strings until one join, the texts of a
 * 10,000-object page cost the garbage collector several times what making them did.
 */

/** Bytes a response stream hands the socket at a time. */
export const CHUNK_BYTES = 256 * 1024

/**
 * `opening`, the `count` texts of `element(i)` separated by commas, then `closing`, as Buffers
 * of at most `chunkBytes` (or one element, should that be larger), made as they are asked for.
 *
 * @example Readable.from(jsonListChunks('{"objects":[', items.length, (i) => texts[i], ']}'))
 */
export function* jsonListChunks(opening: string, count: number, element: (i: number) => string, closing: string,
  chunkBytes = CHUNK_BYTES): Generator<Buffer> {
  let chunk = Buffer.allocUnsafe(Math.max(chunkBytes, 3 * opening.length))
  let used = chunk.write(opening)
  const room = (most: number) => used + most <= chunk.length
  for (let i = 0; i < count; i++) {
    const text = element(i)
    // UTF-8 takes at most three bytes for each UTF-16 unit; one more for the comma.
    const most = 3 * text.length + 1
    if (!room(most)) {
      if (used > 0) yield chunk.subarray(0, used)
      chunk = Buffer.allocUnsafe(Math.max(chunkBytes, most))
      used = 0
    }
    if (i > 0) chunk[used++] = 0x2c
    used += chunk.write(text, used)
  }
  if (!room(3 * closing.length)) {
    yield chunk.subarray(0, used)
    chunk = Buffer.allocUnsafe(3 * closing.length)
    used = 0
  }
  used += chunk.write(closing, used)
  yield chunk.subarray(0, used)
}
