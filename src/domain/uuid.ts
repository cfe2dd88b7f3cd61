/**
 * Name-based UUIDs (RFC 9562 version 5): the same name in the same namespace gives the same
 * UUID on every node and after every restart, with nothing stored.
 */
import { createHash } from 'node:crypto'

const HEX = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function uuidNamespace(uuid: string): Buffer {
  if (!HEX.test(uuid)) throw new Error(`Not a UUID: ${uuid}`)
  return Buffer.from(uuid.replace(/-/g, ''), 'hex')
}

/** `namespace` as bytes (uuidNamespace) when many UUIDs share it, so it is parsed once. */
export function uuidV5(namespace: string | Buffer, name: string): string {
  const hash = createHash('sha1').update(typeof namespace === 'string' ? uuidNamespace(namespace) : namespace).update(name, 'utf8').digest()
  hash[6] = (hash[6] & 0x0f) | 0x50
  hash[8] = (hash[8] & 0x3f) | 0x80
  const hex = hash.toString('hex', 0, 16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}
