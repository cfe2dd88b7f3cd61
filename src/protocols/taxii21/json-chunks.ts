/**
 * A JSON envelope whose last member is a list, gathered as chunks of bytes: each element's
 * text is copied in as soon as it is made, while it is young. Kept as strings until one join,
 * the texts of a 10,000-object page cost the garbage collector several times what making them
 * did. The filled chunks can be handed over while the list grows, so a page goes to the
 * client as it is read instead of after it.
 */

/** Bytes of a chunk (and so of a write to the socket). */
export const CHUNK_BYTES = 256 * 1024

/**
 * @example
 *   const list = new JsonListWriter('{"more":false}', 'objects')
 *   for (const o of objects) list.add(JSON.stringify(o))
 *   Readable.from([...list.takeFilled(), ...list.finish()])   // {"more":false,"objects":[…]}
 */
export class JsonListWriter {
  /** The head's members and the list's key, written before the first element. */
  private readonly opening: string
  private filled: Buffer[] = []
  private chunk: Buffer
  private used = 0
  /** Elements added so far. */
  count = 0

  /**
   * `head` is a JSON object's text: its members come before the list. An empty list is left
   * out (TAXII and STIX lists are never empty), so the envelope is then `head` as it is.
   */
  constructor(
    private readonly head: string,
    key: string,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {
    this.opening = `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}${JSON.stringify(key)}:[`
    this.chunk = Buffer.allocUnsafe(chunkBytes)
  }

  /** One element's JSON text. */
  add(text: string): void {
    const prefix = this.count === 0 ? this.opening : ','
    // UTF-8 takes at most three bytes for each UTF-16 unit.
    const most = 3 * (text.length + prefix.length)
    if (this.used + most > this.chunk.length) {
      if (this.used > 0) this.filled.push(this.chunk.subarray(0, this.used))
      this.chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, most))
      this.used = 0
    }
    if (this.count > 0) this.chunk[this.used++] = 0x2c
    else this.used += this.chunk.write(prefix, this.used)
    this.used += this.chunk.write(text, this.used)
    this.count++
  }

  /** The chunks filled since the last call, in order; the writer keeps only the one it is filling. */
  takeFilled(): Buffer[] {
    const filled = this.filled
    this.filled = []
    return filled
  }

  /** Whatever has not been taken, then the envelope's end; the writer is spent. */
  finish(): Buffer[] {
    if (this.count === 0) return [Buffer.from(this.head)]
    const rest = this.takeFilled()
    rest.push(this.chunk.subarray(0, this.used), Buffer.from(']}'))
    return rest
  }
}
