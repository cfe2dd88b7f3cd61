/**
 * A JSON list gathered as chunks of bytes: each element's text is copied in as soon as it is
 * made, while it is young. Kept as strings until one join, the texts of a 10,000-object page
 * cost the garbage collector several times what making them did.
 */

/** Bytes of a chunk (and so of a write to the socket). */
export const CHUNK_BYTES = 256 * 1024

/**
 * @example
 *   const list = new JsonListWriter()
 *   for (const o of objects) list.add(JSON.stringify(o))
 *   Readable.from(list.finish('{"objects":[', ']}'))
 */
export class JsonListWriter {
  private readonly chunks: Buffer[] = []
  private chunk: Buffer
  private used = 0
  /** Elements added so far. */
  count = 0

  constructor(private readonly chunkBytes = CHUNK_BYTES) {
    this.chunk = Buffer.allocUnsafe(chunkBytes)
  }

  /** One element's JSON text. */
  add(text: string): void {
    // UTF-8 takes at most three bytes for each UTF-16 unit; one more for the comma.
    const most = 3 * text.length + 1
    if (this.used + most > this.chunk.length) {
      if (this.used > 0) this.chunks.push(this.chunk.subarray(0, this.used))
      this.chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, most))
      this.used = 0
    }
    if (this.count > 0) this.chunk[this.used++] = 0x2c
    this.used += this.chunk.write(text, this.used)
    this.count++
  }

  /** `opening`, the elements separated by commas, then `closing`; the writer is spent. */
  finish(opening: string, closing: string): Buffer[] {
    const body = this.used > 0 ? [...this.chunks, this.chunk.subarray(0, this.used)] : this.chunks
    return [Buffer.from(opening), ...body, Buffer.from(closing)]
  }
}
