/**
 * Name-based UUIDs (RFC 9562 version 5): the same name in the same namespace gives the same
 * UUID on every node and after every restart, with nothing stored.
 */
import { createHash, hash } from 'node:crypto'

const HEX = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function uuidNamespace(uuid: string): Buffer {
  if (!HEX.test(uuid)) throw new Error(`Not a UUID: ${uuid}`)
  return Buffer.from(uuid.replace(/-/g, ''), 'hex')
}

/** `namespace` as bytes (uuidNamespace) when many UUIDs share it, so it is parsed once. */
export function uuidV5(namespace: string | Buffer, name: string): string {
  const hash = createHash('sha1')
    .update(typeof namespace === 'string' ? uuidNamespace(namespace) : namespace)
    .update(name, 'utf8')
    .digest()
  hash[6] = (hash[6] & 0x0f) | 0x50
  hash[8] = (hash[8] & 0x3f) | 0x80
  const hex = hash.toString('hex', 0, 16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

/**
 * Many UUIDs in one namespace, as fast as one-shot hashing allows: the namespace bytes stay
 * in a buffer and each name is written after them (feeds derive one id per object served).
 */
export class UuidV5Namespace {
  private buffer: Buffer

  constructor(namespace: string) {
    this.buffer = Buffer.alloc(256)
    uuidNamespace(namespace).copy(this.buffer)
  }

  uuid(name: string): string {
    return this.formatted(name, '5')
  }

  /**
   * The same name-based derivation in the form of a version 4 UUID: version nibble 4, RFC 4122
   * variant, the other 122 bits from the name's SHA-1 as for uuid(). For identifiers a standard
   * requires to be version 4 (TAXII 2.1 `identifier`) that must still be the same on every node
   * and after every restart; 122 bits of a hash are as unpredictable to an outsider as random ones.
   */
  uuidVersion4Form(name: string): string {
    return this.formatted(name, '4')
  }

  private formatted(name: string, version: '4' | '5'): string {
    const hex = hash('sha1', this.named(name), 'hex')
    const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${version}${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
  }

  /** The first 32 bits of uuid(name) (its first eight hex digits, which the version and variant bits leave alone). */
  prefix(name: string): number {
    return parseInt(hash('sha1', this.named(name), 'hex').slice(0, 8), 16)
  }

  /** The namespace bytes followed by the name's. */
  private named(name: string): Buffer {
    const length = Buffer.byteLength(name, 'utf8')
    if (16 + length > this.buffer.length) {
      const larger = Buffer.alloc(2 * (16 + length))
      this.buffer.copy(larger, 0, 0, 16)
      this.buffer = larger
    }
    this.buffer.write(name, 16, 'utf8')
    return this.buffer.subarray(0, 16 + length)
  }
}
