/**
 * The one way a feed reaches the network (domain/feeds/pull.ts, FeedHttp): every hop's host checked
 * by addresses.ts and the connection pinned to the checked address, redirects followed by hand and
 * checked again, TLS verified (with the feed's own CA when it has one), the feed's credentials added
 * and kept to the origin asked for, the body held to its limits as it streams, and every error in
 * words without credentials. docs/feeds.md, "Network safety".
 */
import { constants as bufferConstants } from 'node:buffer'
import { X509Certificate } from 'node:crypto'
import { lookup as dnsLookup } from 'node:dns/promises'
import http, { type IncomingMessage, STATUS_CODES } from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import tls, { type SecureContext } from 'node:tls'
import type { FeedCredentials, FeedDefinition } from '../../domain/feeds/feed.js'
import { type FeedHttp, FeedFetchError, type FeedRequest, type FeedResponse } from '../../domain/feeds/pull.js'
import { addressVerdict, hostNameVerdict } from './addresses.js'
import { type BodyLimits, decodedBody, decodersFor, formatBytes } from './body.js'
import { parseRetryAfter, summarizeErrorBody } from './status.js'

export { addressVerdict, classifyAddress, hostNameVerdict } from './addresses.js'
export type { AddressKind, AddressVerdict } from './addresses.js'

export interface ResolvedAddress {
  address: string
  family: number
}

export interface FeedHttpOptions {
  /** The setting feedsAllowPrivateNetworks: loopback, private, CGNAT and unspecified addresses become reachable. */
  allowPrivateNetworks: boolean
  /** Per request (each redirect hop): connecting, waiting for the headers, and each silence of the body. */
  timeoutMs?: number
  /** Bytes on the wire, before decompression. */
  maxResponseBytes?: number
  /** Bytes after decompression (the same as on the wire for an answer not compressed). */
  maxDecompressedBytes?: number
  maxRedirects?: number
  /** Resolves a host name to every address it has; the system resolver when absent (tests stub it). */
  lookup?: (hostName: string) => Promise<ResolvedAddress[]>
  userAgent?: string
  /** Stops every request of this client and the reading of its bodies (the run's signal). */
  signal?: AbortSignal
}

export const FEED_HTTP_DEFAULTS = {
  timeoutMs: 60_000,
  maxResponseBytes: 1024 ** 3,
  maxDecompressedBytes: 1024 ** 3,
  maxRedirects: 5,
  userAgent: 'Bulwark feeds',
} as const

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

/** Headers the client sets itself, or that would let a caller bend the request past the checks. */
const CONTROLLED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'accept-encoding',
])

/** Headers that prove who asks: they do not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie']

/** Query parameters that commonly carry a key, shown as *** in messages. */
const SECRET_PARAMETER = /key|token|secret|pass|auth|sig|session|credential/i

/** Error summaries read this much of a refusing answer's body, and wait this long for it. */
const ERROR_BODY_BYTES = 16 * 1024
const ERROR_BODY_MS = 5000

export function createFeedHttp(
  feed: Pick<FeedDefinition, 'credentials' | 'caPem'>,
  options: FeedHttpOptions,
): FeedHttp {
  const config = {
    timeoutMs: options.timeoutMs ?? FEED_HTTP_DEFAULTS.timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? FEED_HTTP_DEFAULTS.maxResponseBytes,
    maxDecompressedBytes: options.maxDecompressedBytes ?? FEED_HTTP_DEFAULTS.maxDecompressedBytes,
    maxRedirects: options.maxRedirects ?? FEED_HTTP_DEFAULTS.maxRedirects,
    userAgent: options.userAgent ?? FEED_HTTP_DEFAULTS.userAgent,
  }
  const lookup = options.lookup ?? systemLookup
  let secureContext: SecureContext | undefined

  /** The feed's CA on top of Node's roots, for this feed only; made once, when first needed. */
  function tlsOptions(): { secureContext?: SecureContext } {
    if (!feed.caPem) return {}
    if (!secureContext) {
      try {
        // Text without a certificate is silently ignored as a CA: refuse it rather than verify without it.
        const pems = feed.caPem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? []
        if (pems.length === 0) throw new Error('no certificate')
        for (const pem of pems) new X509Certificate(pem)
        secureContext = tls.createSecureContext({ ca: [...tls.rootCertificates, ...pems] })
      } catch {
        throw new FeedFetchError('tls', "the feed's CA certificate (PEM) could not be read")
      }
    }
    return { secureContext }
  }

  async function request(url: string, init: FeedRequest, redact: (text: string) => string): Promise<FeedResponse> {
    const first = parseUrl(url)
    const credential = credentialHeader(feed.credentials ?? userinfoCredentials(first))
    const origin = first.origin
    let target = first
    let method: string = init.method ?? 'GET'
    let body = init.body
    const headers = callerHeaders(init.headers)
    let withCredential = true
    const visited = new Set([`${method} ${withoutFragment(target)}`])
    for (let hop = 0; ; hop++) {
      const where = `${method} ${displayUrl(target)}`
      const sent: Record<string, string> = {
        ...headers,
        'user-agent': config.userAgent,
        'accept-encoding': 'gzip, deflate, br',
      }
      if (credential && withCredential) sent[credential.name] = credential.value
      const res = await send(target, method, sent, body, where)
      const status = res.statusCode ?? 0
      if (REDIRECT_STATUSES.has(status)) {
        const location = res.headers.location
        res.destroy()
        if (!location) throw new FeedFetchError('status', `${where} answered ${status} without a Location`, { status })
        if (hop >= config.maxRedirects)
          throw new FeedFetchError('refused-redirect', `${where}: more than ${config.maxRedirects} redirects`)
        const next = redirectTarget(target, location, where)
        if (method === 'POST' && (status === 301 || status === 302 || status === 303)) {
          // As browsers do: the redirected request is a GET without the body.
          method = 'GET'
          body = undefined
          delete headers['content-type']
        }
        const key = `${method} ${withoutFragment(next)}`
        if (visited.has(key))
          throw new FeedFetchError(
            'refused-redirect',
            `${where}: redirect loop, ${displayUrl(next)} was already visited in this request`,
          )
        visited.add(key)
        if (next.origin !== origin && withCredential) {
          // Once the chain leaves the origin asked for, no credential goes along, even back to it.
          withCredential = false
          for (const name of [...CREDENTIAL_HEADERS, credential?.name]) if (name) delete headers[name]
        }
        target = next
        continue
      }
      if ((status >= 200 && status < 300) || status === 304)
        return feedResponse(res, target, method, where, redact, status === 304 || status === 204)
      throw await statusError(res, status, where)
    }
  }

  /** One hop: the host checked and resolved once, the connection pinned to the checked addresses. */
  async function send(
    target: URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    where: string,
  ): Promise<IncomingMessage> {
    if (options.signal?.aborted) throw new FeedFetchError('network', `${where}: stopped`)
    const started = Date.now()
    const host = target.hostname.replace(/^\[|\]$/g, '')
    const named = hostNameVerdict(host)
    if (!named.allowed) throw new FeedFetchError('refused-address', `${where}: ${named.reason}`)
    let pinned: LookupFunction | undefined
    if (isIP(host)) {
      const verdict = addressVerdict(host, options.allowPrivateNetworks)
      if (!verdict.allowed) throw new FeedFetchError('refused-address', `${where}: ${verdict.reason}`)
    } else {
      const addresses = await resolve(host, where, config.timeoutMs)
      const verdicts = addresses.map((a) => ({
        ...a,
        verdict: addressVerdict(a.address, options.allowPrivateNetworks),
      }))
      const allowed = verdicts.filter((a) => a.verdict.allowed)
      if (allowed.length === 0) {
        const refusal = verdicts[0].verdict as { reason: string }
        throw new FeedFetchError('refused-address', `${where}: ${host} resolves to ${refusal.reason}`)
      }
      pinned = pinnedLookup(host, allowed)
    }
    const tlsContext = target.protocol === 'https:' ? tlsOptions() : {}
    const outgoing = { ...headers } as Record<string, string | number>
    if (body !== undefined) outgoing['content-length'] = Buffer.byteLength(body)
    return new Promise<IncomingMessage>((resolvePromise, reject) => {
      let req: http.ClientRequest
      const fail = (error: unknown) => {
        clearTimeout(timer)
        options.signal?.removeEventListener('abort', onAbort)
        reject(requestError(error, where))
      }
      const onAbort = () => req.destroy(new FeedFetchError('network', `${where}: stopped`))
      const timer = setTimeout(
        () => req.destroy(new FeedFetchError('timeout', `${where}: no answer within ${config.timeoutMs / 1000} s`)),
        Math.max(1, config.timeoutMs - (Date.now() - started)),
      )
      try {
        req = (target.protocol === 'https:' ? https : http).request(
          {
            protocol: target.protocol,
            hostname: host,
            port: target.port || undefined,
            path: `${target.pathname}${target.search}`,
            method,
            headers: outgoing,
            // A fresh connection per request: no pooled socket outlives the check that opened it.
            agent: false,
            lookup: pinned,
            ...tlsContext,
          },
          (res) => {
            clearTimeout(timer)
            options.signal?.removeEventListener('abort', onAbort)
            // Errors of the body surface where it is read; unheard, an abort would end the process.
            res.on('error', () => {})
            resolvePromise(res)
          },
        )
      } catch (error) {
        fail(error)
        return
      }
      req.on('error', fail)
      options.signal?.addEventListener('abort', onAbort, { once: true })
      req.end(body)
    })
  }

  async function feedResponse(
    res: IncomingMessage,
    target: URL,
    method: string,
    where: string,
    redact: (text: string) => string,
    empty: boolean,
  ): Promise<FeedResponse> {
    const limits: BodyLimits = {
      maxResponseBytes: config.maxResponseBytes,
      maxDecompressedBytes: config.maxDecompressedBytes,
      idleMs: config.timeoutMs,
    }
    let decoders: ReturnType<typeof decodersFor> = []
    if (!empty) {
      const declared = Number(res.headers['content-length'])
      try {
        decoders = decodersFor(res.headers['content-encoding'], where)
        const limit = decoders.length
          ? config.maxResponseBytes
          : Math.min(config.maxResponseBytes, config.maxDecompressedBytes)
        if (Number.isFinite(declared) && declared > limit)
          throw new FeedFetchError(
            'too-large',
            `${where}: the answer declares ${formatBytes(declared)}, more than the limit of ${formatBytes(limit)}`,
          )
      } catch (error) {
        res.destroy()
        throw error
      }
    } else {
      res.resume()
    }
    const onAbort = () => res.destroy(new FeedFetchError('network', `${where}: stopped`))
    options.signal?.addEventListener('abort', onAbort, { once: true })
    res.once('close', () => options.signal?.removeEventListener('abort', onAbort))
    let read = false
    const answered = new URL(target)
    answered.username = ''
    answered.password = ''
    const chunks = (): AsyncIterable<Buffer> => {
      if (read) throw new Error(`${method} ${displayUrl(target)}: the body of this answer was already read`)
      read = true
      if (empty) return (async function* () {})()
      return safely(decodedBody(res, decoders, limits, where), redact)
    }
    return {
      status: res.statusCode ?? 0,
      url: answered.href,
      header: (name) => {
        const value = res.headers[name.toLowerCase()]
        return Array.isArray(value) ? value.join(', ') : value
      },
      chunks,
      async text() {
        const parts: Buffer[] = []
        let length = 0
        for await (const chunk of chunks()) {
          length += chunk.length
          if (length > bufferConstants.MAX_STRING_LENGTH)
            throw new FeedFetchError('too-large', `${where}: the answer is too large to be read as one text`)
          parts.push(chunk)
        }
        return new TextDecoder('utf-8').decode(Buffer.concat(parts, length))
      },
    }
  }

  /** The refusal of a status other than 2xx, 3xx and 304, with a safe line from its body. */
  async function statusError(res: IncomingMessage, status: number, where: string): Promise<FeedFetchError> {
    const retryAfterMs =
      status === 429 || status === 503 ? parseRetryAfter(res.headers['retry-after'] as string | undefined) : undefined
    let summary: string | undefined
    try {
      const decoders = decodersFor(res.headers['content-encoding'], where)
      const parts: Buffer[] = []
      let length = 0
      const read = (async () => {
        const limits = {
          maxResponseBytes: 4 * ERROR_BODY_BYTES,
          maxDecompressedBytes: ERROR_BODY_BYTES,
          idleMs: ERROR_BODY_MS,
        }
        try {
          for await (const chunk of decodedBody(res, decoders, limits, where)) {
            parts.push(chunk)
            length += chunk.length
          }
        } catch {
          // What came before a limit or a stall is still worth a line.
        }
      })()
      let timer: NodeJS.Timeout | undefined
      await Promise.race([read, new Promise((done) => (timer = setTimeout(done, ERROR_BODY_MS)))])
      clearTimeout(timer)
      summary = summarizeErrorBody(
        res.headers['content-type'],
        new TextDecoder('utf-8').decode(Buffer.concat(parts, length)),
      )
    } catch {
      summary = undefined
    } finally {
      res.destroy()
    }
    const hint = status === 401 || status === 403 ? " (check the feed's credentials)" : ''
    const reason = STATUS_CODES[status] ?? 'Unknown'
    return new FeedFetchError(
      'status',
      `${where} answered ${status} ${reason}${hint}${summary ? `: ${summary}` : ''}`,
      {
        status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      },
    )
  }

  async function resolve(host: string, where: string, timeoutMs: number): Promise<ResolvedAddress[]> {
    let timer: NodeJS.Timeout | undefined
    try {
      const addresses = await Promise.race([
        lookup(host),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(new FeedFetchError('timeout', `${where}: ${host} did not resolve within ${timeoutMs / 1000} s`)),
            timeoutMs,
          )
        }),
      ])
      if (addresses.length === 0) throw new FeedFetchError('network', `${where}: ${host} has no address`)
      return addresses
    } catch (error) {
      if (error instanceof FeedFetchError) throw error
      const code = (error as NodeJS.ErrnoException)?.code ?? 'error'
      throw new FeedFetchError('network', `${where}: ${host} could not be resolved (${code})`)
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    async request(url, init = {}) {
      let redact = redactor(feed.credentials)
      try {
        const parsed = parseUrl(url)
        redact = redactor(feed.credentials ?? userinfoCredentials(parsed), parsed)
      } catch {
        // parseUrl's refusal is thrown again below, by request.
      }
      try {
        return await request(url, init, redact)
      } catch (error) {
        throw safeError(error, redact)
      }
    },
  }
}

async function systemLookup(hostName: string): Promise<ResolvedAddress[]> {
  return dnsLookup(hostName, { all: true, verbatim: true })
}

/**
 * The lookup the connection uses: it answers only the addresses already checked, so the name is not
 * resolved a second time and a rebinding resolver cannot swap in another address.
 */
function pinnedLookup(host: string, addresses: ResolvedAddress[]): LookupFunction {
  return ((hostname: string, options: unknown, callback?: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      error: NodeJS.ErrnoException | null,
      address: string | ResolvedAddress[],
      family?: number,
    ) => void
    const opts = (typeof options === 'object' && options ? options : {}) as { family?: number | string; all?: boolean }
    const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : Number(opts.family ?? 0)
    const wanted = addresses.filter((a) => hostname === host && (!family || a.family === family))
    if (wanted.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no checked address for ${hostname}`)
      error.code = 'ENOTFOUND'
      cb(error, '')
      return
    }
    if (opts.all)
      cb(
        null,
        wanted.map(({ address, family }) => ({ address, family })),
      )
    else cb(null, wanted[0].address, wanted[0].family)
  }) as LookupFunction
}

function parseUrl(url: string): URL {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new FeedFetchError('refused-address', 'the feed URL is not a valid URL')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new FeedFetchError(
      'refused-address',
      `the feed URL must be http or https, not ${parsed.protocol.slice(0, 20)}`,
    )
  return parsed
}

function redirectTarget(from: URL, location: string, where: string): URL {
  let next: URL
  try {
    next = new URL(location, from)
  } catch {
    throw new FeedFetchError('refused-redirect', `${where}: redirected to something that is not a URL`)
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    throw new FeedFetchError('refused-redirect', `${where}: redirected to a ${next.protocol.slice(0, 20)} URL`)
  if (from.protocol === 'https:' && next.protocol === 'http:')
    throw new FeedFetchError(
      'refused-redirect',
      `${where}: redirected from https to http (${displayUrl(next)}), which would send the request unprotected`,
    )
  // Userinfo in a Location is never sent.
  next.username = ''
  next.password = ''
  return next
}

function withoutFragment(url: URL): string {
  const copy = new URL(url)
  copy.hash = ''
  return copy.href
}

/** A URL as messages show it: no userinfo, no fragment, key-like query values masked, not too long. */
export function displayUrl(url: URL): string {
  const copy = new URL(url)
  copy.username = ''
  copy.password = ''
  copy.hash = ''
  for (const name of [...new Set(copy.searchParams.keys())])
    if (SECRET_PARAMETER.test(name)) copy.searchParams.set(name, '***')
  const text = copy.href
  return text.length > 300 ? `${text.slice(0, 299)}…` : text
}

function callerHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    const key = name.toLowerCase()
    if (!CONTROLLED_HEADERS.has(key)) out[key] = value
  }
  return out
}

function credentialHeader(credentials: FeedCredentials | undefined): { name: string; value: string } | undefined {
  if (!credentials) return undefined
  switch (credentials.kind) {
    case 'basic':
      return {
        name: 'authorization',
        value: `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`, 'utf8').toString('base64')}`,
      }
    case 'bearer':
      return { name: 'authorization', value: `Bearer ${credentials.token}` }
    case 'header':
      return { name: credentials.name.toLowerCase(), value: credentials.value }
  }
}

/** user:password in the feed's URL, for a feed without credentials of its own. */
function userinfoCredentials(url: URL): FeedCredentials | undefined {
  if (!url.username && !url.password) return undefined
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text)
    } catch {
      return text
    }
  }
  return { kind: 'basic', user: decode(url.username), password: decode(url.password) }
}

/**
 * Replaces every form of the credentials in a text (as given, URL-encoded, Basic-encoded) with ***, and
 * the values of the URL's key-like query parameters, which a server may echo in its error.
 */
function redactor(credentials: FeedCredentials | undefined, url?: URL): (text: string) => string {
  const secrets = new Set<string>()
  const add = (value: string | undefined, minimum = 1) => {
    if (!value || value.length < minimum) return
    secrets.add(value)
    secrets.add(encodeURIComponent(value))
  }
  if (credentials?.kind === 'basic') {
    add(credentials.password)
    // A user name alone is not secret, and a short one would mask half a message.
    add(credentials.user, 4)
    add(Buffer.from(`${credentials.user}:${credentials.password}`, 'utf8').toString('base64'))
  } else if (credentials?.kind === 'bearer') add(credentials.token)
  else if (credentials?.kind === 'header') add(credentials.value)
  for (const [name, value] of url?.searchParams ?? []) if (SECRET_PARAMETER.test(name)) add(value, 4)
  const ordered = [...secrets].sort((a, b) => b.length - a.length)
  return (text) => ordered.reduce((out, secret) => out.split(secret).join('***'), text)
}

function safeError(error: unknown, redact: (text: string) => string): FeedFetchError {
  if (error instanceof FeedFetchError) return new FeedFetchError(error.code, redact(error.message), error.details)
  return new FeedFetchError('network', redact(`the request failed: ${(error as Error)?.message ?? String(error)}`))
}

async function* safely(body: AsyncIterable<Buffer>, redact: (text: string) => string): AsyncGenerator<Buffer> {
  try {
    yield* body
  } catch (error) {
    throw safeError(error, redact)
  }
}

/** OpenSSL's verification failures, as Node names them on the error's code. */
const CERTIFICATE_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_REJECTED',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'PATH_LENGTH_EXCEEDED',
  'HOSTNAME_MISMATCH',
  'EPROTO',
])

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  EPIPE: 'the connection closed while the request was sent',
  ENOTFOUND: 'the host could not be resolved',
}

function requestError(error: unknown, where: string): FeedFetchError {
  if (error instanceof FeedFetchError) return error
  const e = error as NodeJS.ErrnoException & { library?: string; reason?: string }
  const code = e?.code ?? ''
  if (
    CERTIFICATE_CODES.has(code) ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    /SSL/i.test(e?.library ?? '')
  )
    return new FeedFetchError('tls', `${where}: TLS failed: ${e?.message ?? code}`)
  if (code.startsWith('ERR_INVALID') || code.startsWith('ERR_HTTP'))
    // Node's text for a bad header may quote its value; only the code is kept.
    return new FeedFetchError('network', `${where}: the request is not valid HTTP (${code}); check the feed's headers`)
  const reason = NETWORK_REASONS[code]
  return new FeedFetchError('network', `${where}: ${reason ?? 'the request failed'} (${e?.message ?? code})`)
}
