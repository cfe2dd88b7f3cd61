/**
 * Hears that another node (or the admin CLI) changed what nodes cache — accounts, memberships,
 * tokens, keys, owners, settings — and empties this process's caches at once, so the change applies
 * on every node within milliseconds; the caches' one-second bound stays as the fallback when no
 * notice can arrive.
 *
 * PostgreSQL: the tables' statement triggers send NOTIFY on CHANGES_CHANNEL (migration 0270); a
 * session of its own LISTENs on the store's listen URL (a direct connection: a transaction pooler
 * delivers no notices), reconnecting after a loss. Without a listen URL nothing listens.
 * SQLite: `PRAGMA data_version` moves when another connection commits to the file; it is read every
 * SQLITE_POLL_MS (a read of the shared WAL index, no I/O). Any commit counts, so a busy writer in
 * another process empties the caches that often: one reload per cached key a poll at most.
 */
import pg from 'pg'
import type { Store } from './connect.js'
import { forgetCredentials } from './engine/credential-cache.js'

export const CHANGES_CHANNEL = 'bulwark_changes'
export const SQLITE_POLL_MS = 25
const RECONNECT_MS = 1000

export interface ChangeNotices {
  close(): Promise<void>
}

/**
 * Starts hearing change notices for `store`; `onChange` (default: empty the caches) runs on each.
 * `log` hears of a lost or refused listening connection (the caches' second bounds staleness then).
 */
export function watchChanges(
  store: Store,
  options: { onChange?: () => void; log?: (message: string, error?: unknown) => void } = {},
): ChangeNotices {
  const onChange = options.onChange ?? forgetCredentials
  if (store.sqlite) {
    const sqlite = store.sqlite
    if (sqlite.memory) return { close: async () => {} }
    let seen = sqlite.pragma('data_version', { simple: true })
    const timer = setInterval(() => {
      if (!sqlite.open) return
      const now = sqlite.pragma('data_version', { simple: true })
      if (now !== seen) {
        seen = now
        onChange()
      }
    }, SQLITE_POLL_MS)
    timer.unref()
    return { close: async () => clearInterval(timer) }
  }
  const url = store.listenUrl
  if (!url) return { close: async () => {} }
  let closed = false
  let client: pg.Client | undefined
  let retry: NodeJS.Timeout | undefined
  const connect = async () => {
    const next = new pg.Client({ connectionString: url })
    client = next
    next.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) onChange()
    })
    const lost = (error?: unknown) => {
      if (client !== next) return
      client = undefined
      void next.end().catch(() => {})
      if (closed) return
      options.log?.('lost the connection that hears change notices; caches fall back to their one-second bound', error)
      // Whatever changed while nobody listened is not known: forget it all, once now and once when back.
      onChange()
      retry = setTimeout(() => void connect(), RECONNECT_MS)
      retry.unref()
    }
    next.on('error', lost)
    next.on('end', () => lost())
    try {
      await next.connect()
      await next.query(`LISTEN ${CHANGES_CHANNEL}`)
      if (client === next) onChange()
    } catch (error) {
      lost(error)
    }
  }
  void connect()
  return {
    async close() {
      closed = true
      if (retry) clearTimeout(retry)
      const open = client
      client = undefined
      await open?.end().catch(() => {})
    },
  }
}
