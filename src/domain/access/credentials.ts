/**
 * Secret handling: how tokens and passwords are hashed, how HMAC secret keys are sealed at
 * rest, and how signatures are checked. Secrets are compared in constant time and never logged.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hash,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto'
import { promisify } from 'node:util'

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>

/**
 * API tokens are long random strings, so a fast SHA-256 is a sufficient one-way store. Every
 * token request hashes once; the one-shot `hash` costs a fifth of a Hash object's create, update
 * and digest.
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex')
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url')
}

/** Access ids are numeric strings, like the platform's (20 digits). */
export function generateAccessId(): string {
  let id = ''
  for (const byte of randomBytes(20)) id += String(byte % 10)
  return id.replace(/^0/, '1')
}

export function generateSecretKey(): string {
  return randomBytes(48).toString('base64url')
}

const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }

/** Passwords (TAXII accounts, human users): scrypt with a per-password salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(password, salt, 32, SCRYPT)
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$')
  if (scheme !== 'scrypt' || !keyB64) return false
  const expected = Buffer.from(keyB64, 'base64')
  const key = await scryptAsync(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  })
  return timingSafeEqual(key, expected)
}

/**
 * Seals HMAC secret keys with AES-256-GCM under the server key, which every node shares
 * (from BULWARK_SECRET_KEY or the data directory). The server must read a secret to check
 * a signature, so a one-way hash cannot serve here.
 */
export class SecretBox {
  private readonly key: Buffer

  constructor(serverKey: string) {
    this.key = createHash('sha256').update(serverKey).digest()
  }

  seal(plain: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return `v1.${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${body.toString('base64')}`
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.')
    if (version !== 'v1' || !body) throw new Error('Unrecognized sealed secret')
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'))
    decipher.setAuthTag(Buffer.from(tag, 'base64'))
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8')
  }
}

/** The platform's signature: base64(HMAC-SHA256(secret, `<path+query>:<METHOD>:<timestamp>`)). */
export function signRequest(secretKey: string, pathAndQuery: string, method: string, timestamp: string): string {
  return createHmac('sha256', secretKey).update(`${pathAndQuery}:${method.toUpperCase()}:${timestamp}`).digest('base64')
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  // Compare against itself on length mismatch so the time taken does not reveal the length.
  if (left.length !== right.length) {
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}
