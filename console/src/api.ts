/**
 * The console's one way to the server: same-origin fetch with the session cookie (the browser
 * sends it; no script can read it), JSON both ways, and the session's CSRF token in a header on
 * every write.
 */
export interface Session {
  userName: string
  firstName: string | null
  lastName: string | null
  csrfToken: string
  expiresAt: string
  systemRole: string
  /** Whether the administration pages are shown; the server checks every administration request all the same. */
  administrator: boolean
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

let csrfToken: string | undefined

/** Dispatched on window when the server says the session has ended (401): the shell shows the sign-in form. */
export const SESSION_ENDED = 'bulwark:session-ended'

export function rememberSession(session: Session | undefined): void {
  csrfToken = session?.csrfToken
  owners = undefined
}

export async function api<T>(path: string, options: { method?: string; body?: unknown; raw?: Blob } = {}): Promise<T> {
  const method = options.method ?? 'GET'
  const headers: Record<string, string> = { accept: 'application/json' }
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.raw) headers['content-type'] = 'application/octet-stream'
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  })
  const text = await res.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  if (!res.ok) {
    // 401 (the session ended) or 403 (the browser dropped the cookie at its Max-Age, or another refusal): ask
    // whether a session is still there, and when none is, say so.
    if ((res.status === 401 || res.status === 403) && csrfToken && !path.startsWith('/api/v3/session'))
      void currentSession().then(
        (session) => {
          if (session) return
          csrfToken = undefined
          dispatchEvent(new Event(SESSION_ENDED))
        },
        () => undefined,
      )
    const message = (body as { message?: unknown } | undefined)?.message
    throw new ApiError(res.status, typeof message === 'string' ? message : `The server answered ${res.status}`)
  }
  return body as T
}

export async function currentSession(): Promise<Session | undefined> {
  try {
    return (await api<{ data: Session }>('/api/v3/session')).data
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined
    throw error
  }
}

export async function signIn(userName: string, password: string): Promise<Session> {
  return (await api<{ data: Session }>('/api/v3/session/sign-in', { method: 'POST', body: { userName, password } }))
    .data
}

export async function signOut(): Promise<void> {
  await api('/api/v3/session/sign-out', { method: 'POST' })
}

export interface Indicator {
  id: number
  type: string
  summary: string
  ownerName?: string
  rating?: number
  confidence?: number
  description?: string
  dateAdded?: string
  lastModified?: string
  active?: boolean
  tags?: { data?: { name: string }[] }
}

export interface ListPage<T> {
  data: T[]
  next?: string
  prev?: string
  count?: number
}

/** One owner the person belongs to, with the permission vector of /api/v3/security/owners (READ, FULL, NONE…). */
export interface OwnerAccess {
  id: number
  name: string
  type: string
  ownerRole: string
  permIndicator?: string
  permGroup?: string
  permVictim?: string
  permTask?: string
  permTrack?: string
  permAttribute?: string
}

let owners: Promise<OwnerAccess[]> | undefined

/** The person's owners and what they may do in each, asked once per session. */
export function ownerAccess(): Promise<OwnerAccess[]> {
  owners ??= api<{ data: OwnerAccess[] }>('/api/v3/security/owners?resultLimit=1000').then(
    (r) => r.data,
    () => [],
  )
  return owners
}

/** Which permission of an owner lets a person change an item of this kind. */
export const WRITE_PERMISSION: Record<string, keyof OwnerAccess> = {
  indicators: 'permIndicator',
  groups: 'permGroup',
  victims: 'permVictim',
  cases: 'permTask',
  tasks: 'permTask',
}

/** Whether the person may change items of `kind` in the owner named `ownerName` (the API decides anyway). */
export function mayWrite(access: readonly OwnerAccess[], ownerName: string | undefined, kind: string): boolean {
  const owner = access.find((o) => o.name === ownerName)
  const perm = WRITE_PERMISSION[kind]
  return !!owner && !!perm && owner[perm] === 'FULL'
}
