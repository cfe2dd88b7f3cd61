/**
 * Wake-ups for batch workers when a job is queued, so a job starts at once instead of at the
 * next poll. In this process a queued job calls the listeners of the same database handle
 * directly; on PostgreSQL the queueing transaction also sends NOTIFY on BATCH_CHANNEL, which
 * reaches the workers of every node once it commits, when the store has a URL to LISTEN on
 * (behind a transaction pooler: only a direct one given to it). Polling stays as the fallback for
 * a lost or missing listening connection or a job whose lease expired.
 */
import pg from 'pg'
import type { Store } from './connect.js'

export const BATCH_CHANNEL = 'bulwark_batch_queued'

type Listener = () => void
/** Keyed by the connection handle, which transaction-scoped copies of a Store share. */
const listeners = new WeakMap<object, Set<Listener>>()

const handleOf = (store: Store): object => store.sqlite ?? store.pool ?? store.db

/** Tells this process's workers on the same database that a job is waiting. */
export function announceBatchQueued(store: Store): void {
  for (const listener of listeners.get(handleOf(store)) ?? []) listener()
}

export interface BatchWakeups {
  close(): Promise<void>
}

/**
 * Calls `wake` whenever a job is queued on this database: from this process at once, and on
 * PostgreSQL from any node through LISTEN. Rejects when the listening connection cannot be
 * opened; `onError` hears of one lost later. Either way polling carries on alone until the
 * caller watches again.
 */
export async function watchBatchQueue(
  store: Store,
  wake: Listener,
  onError?: (error: unknown) => void,
): Promise<BatchWakeups> {
  const handle = handleOf(store)
  const set = listeners.get(handle) ?? new Set<Listener>()
  listeners.set(handle, set)
  set.add(wake)
  let client: pg.Client | undefined
  // Only on a session of its own: a transaction pooler delivers no notices (store.listenUrl is
  // then a direct URL, or undefined and the workers poll).
  if (store.pool && store.listenUrl) {
    client = new pg.Client({ connectionString: store.listenUrl })
    client.on('notification', (message) => {
      if (message.channel === BATCH_CHANNEL) wake()
    })
    client.on('error', (error) => {
      client = undefined
      onError?.(error)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${BATCH_CHANNEL}`)
    } catch (error) {
      set.delete(wake)
      await client?.end().catch(() => {})
      throw error
    }
  }
  return {
    async close() {
      set.delete(wake)
      const open = client
      client = undefined
      await open?.end().catch(() => {})
    },
  }
}
