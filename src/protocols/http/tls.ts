/**
 * The HTTPS certificate: the configured files, or a self-signed pair made on first start
 * and kept in the data directory so restarts present the same certificate.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface TlsMaterial {
  key: string
  cert: string
  /** Set when the pair was generated on this start. */
  generatedAt?: string
}

export async function loadTlsMaterial(options: {
  certFile?: string
  keyFile?: string
  dataDir: string
  hostName?: string
}): Promise<TlsMaterial> {
  if (options.certFile || options.keyFile) {
    if (!options.certFile || !options.keyFile)
      throw new Error('Set both BULWARK_TLS_CERT and BULWARK_TLS_KEY, or neither')
    return { cert: readFileSync(options.certFile, 'utf8'), key: readFileSync(options.keyFile, 'utf8') }
  }
  const dir = join(options.dataDir, 'tls')
  const certFile = join(dir, 'self-signed.crt')
  const keyFile = join(dir, 'self-signed.key')
  if (existsSync(certFile) && existsSync(keyFile))
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') }
  // Loaded only here: the certificate libraries cost every start time, and most starts find a certificate.
  const { default: selfsigned } = await import('selfsigned')
  const now = new Date()
  const pems = await selfsigned.generate([{ name: 'commonName', value: options.hostName ?? 'localhost' }], {
    keySize: 2048,
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 825 * 24 * 3600 * 1000),
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  } as never)
  mkdirSync(dir, { recursive: true })
  writeFileSync(keyFile, pems.private, { mode: 0o600 })
  writeFileSync(certFile, pems.cert)
  return { cert: pems.cert, key: pems.private, generatedAt: certFile }
}
