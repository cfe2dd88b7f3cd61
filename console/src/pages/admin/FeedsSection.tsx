/**
 * Feeds: every feed with its kind, URL, owner, schedule, last run and next run (GET /api/v3/feeds, and each
 * one's newest run); adding, changing, enabling, disabling and removing one; "Run now" (POST …/run), whose run
 * is read every second until it ends; and a feed's history with each run's refusals and error.
 */
import { useEffect, useState } from 'preact/hooks'
import type { FeedRun, FeedView } from '../../../../src/domain/feeds/feed.js'
import { api, ownerAccess } from '../../api.js'
import { OutcomeLine, useChange } from '../Triage.js'
import { KIND_LABELS, intervalText } from './feed-form.js'
import { FeedEditor } from './FeedEditor.js'
import { FeedHistory } from './FeedHistory.js'
import { when } from './Pager.js'

const POLL_MS = 1000

const runSummary = (run: FeedRun) =>
  `Run ${run.id} of ${run.feed}: ${run.status} — ${run.fetched} fetched, ${run.created} created, ${run.updated} updated, ${run.unchanged} unchanged, ${run.refused} refused${run.error ? `; ${run.error}` : ''}`

export function FeedsSection() {
  const [feeds, setFeeds] = useState<FeedView[]>()
  const [lastRuns, setLastRuns] = useState<Record<number, FeedRun | undefined>>({})
  const [owners, setOwners] = useState<string[]>([])
  const [editing, setEditing] = useState<FeedView | 'new'>()
  const [history, setHistory] = useState<{ feedId: number; runId?: number }>()
  const [removing, setRemoving] = useState<FeedView>()
  const [watching, setWatching] = useState<{ feedId: number; runId: number }>()
  const [version, setVersion] = useState(0)
  const [polls, setPolls] = useState(0)
  const [loadError, setLoadError] = useState<string>()
  const [outcome, run] = useChange(() => setVersion((v) => v + 1))

  useEffect(() => {
    void ownerAccess().then((access) => setOwners(access.map((o) => o.name)))
  }, [])
  useEffect(() => {
    let current = true
    api<{ data: FeedView[] }>('/api/v3/feeds')
      .then(async ({ data }) => {
        if (!current) return
        setFeeds(data)
        // Feeds are few (an installation's sources); each one's newest run is one small read.
        const newest = await Promise.all(
          data.map((f) =>
            api<{ data: FeedRun[] }>(`/api/v3/feeds/${f.id}/runs?resultLimit=1`).then(
              (r) => [f.id, r.data[0]] as const,
              () => [f.id, undefined] as const,
            ),
          ),
        )
        if (current) setLastRuns(Object.fromEntries(newest))
      })
      .catch((e: Error) => current && setLoadError(e.message))
    return () => {
      current = false
    }
  }, [version])

  // A run started here is read every second until it ends; then it is said, and the page read again.
  useEffect(() => {
    if (!watching) return
    let current = true
    const timer = window.setTimeout(async () => {
      try {
        const runs = await api<{ data: FeedRun[] }>(`/api/v3/feeds/${watching.feedId}/runs?resultLimit=20`)
        const seen = runs.data.find((r) => r.id === watching.runId)
        if (!current) return
        setPolls((n) => n + 1)
        if (seen && seen.status !== 'Running') {
          setWatching(undefined)
          void run(async () => undefined, runSummary(seen))
        } else setWatching({ ...watching })
      } catch {
        if (current) setWatching({ ...watching })
      }
    }, POLL_MS)
    return () => {
      current = false
      window.clearTimeout(timer)
    }
  }, [watching])

  const startRun = (feed: FeedView) =>
    run(async () => {
      const started = await api<{ data: { id: number } }>(`/api/v3/feeds/${feed.id}/run`, { method: 'POST' })
      setHistory({ feedId: feed.id, runId: started.data.id })
      setWatching({ feedId: feed.id, runId: started.data.id })
    }, `Run of ${feed.name} started; it is read every second until it ends`)

  const toggle = (feed: FeedView) =>
    run(
      () => api(`/api/v3/feeds/${feed.id}`, { method: 'PUT', body: { enabled: !feed.enabled } }),
      `${feed.name} ${feed.enabled ? 'disabled' : 'enabled'}`,
    )

  const remove = (feed: FeedView) =>
    run(async () => {
      await api(`/api/v3/feeds/${feed.id}`, { method: 'DELETE' })
      setRemoving(undefined)
      if (history?.feedId === feed.id) setHistory(undefined)
    }, `${feed.name} removed; what it imported stays`)

  if (loadError)
    return (
      <p role="alert" class="error">
        {loadError}
      </p>
    )
  if (!feeds) return <p>Loading the feeds…</p>
  const historyFeed = history && feeds.find((f) => f.id === history.feedId)
  return (
    <>
      <p class="inline">
        <button type="button" onClick={() => setEditing('new')}>
          Add a feed
        </button>
      </p>
      <OutcomeLine outcome={outcome} />
      {watching && (
        <p class="status" aria-live="polite">
          Run {watching.runId} is running…
        </p>
      )}
      {editing && (
        <FeedEditor
          key={editing === 'new' ? 'new' : editing.id}
          feed={editing === 'new' ? undefined : editing}
          owners={owners}
          onCancel={() => setEditing(undefined)}
          onSaved={(saved, created) => {
            setEditing(undefined)
            void run(async () => undefined, `${saved.name} ${created ? 'added: it is due at once' : 'saved'}`)
          }}
        />
      )}
      {removing && (
        <p class="inline" role="group" aria-label="Confirm the removal">
          Remove the feed {removing.name} and its runs' record?
          <button type="button" onClick={() => void remove(removing)}>
            Yes, remove {removing.name}
          </button>
          <button type="button" onClick={() => setRemoving(undefined)}>
            Keep it
          </button>
        </p>
      )}
      {feeds.length === 0 ? (
        <p>No feed yet.</p>
      ) : (
        <table class="results">
          <caption class="visually-hidden">Feeds</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">URL</th>
              <th scope="col">Owner</th>
              <th scope="col">Credentials</th>
              <th scope="col">Every</th>
              <th scope="col">Last run</th>
              <th scope="col">Next run</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {feeds.map((feed) => {
              const last = lastRuns[feed.id]
              return (
                <tr key={feed.id}>
                  <td>{feed.name}</td>
                  <td>{KIND_LABELS[feed.kind]}</td>
                  <td class="summary">{feed.url}</td>
                  <td>{feed.owner}</td>
                  <td>{feed.credentials}</td>
                  <td>{intervalText(feed.intervalSeconds)}</td>
                  <td>
                    {last ? `${last.status}, ${when(last.finishedAt ?? last.startedAt)}` : 'never'}
                    {feed.failures > 0 ? ` (${feed.failures} failed in a row)` : ''}
                  </td>
                  <td>{feed.enabled ? when(feed.nextRunAt) : 'disabled'}</td>
                  <td>
                    <p class="inline">
                      <button type="button" onClick={() => void startRun(feed)}>
                        Run now<span class="visually-hidden"> {feed.name}</span>
                      </button>
                      <button type="button" onClick={() => setHistory({ feedId: feed.id })}>
                        History<span class="visually-hidden"> of {feed.name}</span>
                      </button>
                      <button type="button" onClick={() => setEditing(feed)}>
                        Edit<span class="visually-hidden"> {feed.name}</span>
                      </button>
                      <button type="button" onClick={() => void toggle(feed)}>
                        {feed.enabled ? 'Disable' : 'Enable'}
                        <span class="visually-hidden"> {feed.name}</span>
                      </button>
                      <button type="button" onClick={() => setRemoving(feed)}>
                        Remove<span class="visually-hidden"> {feed.name}</span>
                      </button>
                    </p>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
      {historyFeed && (
        <FeedHistory key={historyFeed.id} feed={historyFeed} selected={history.runId} refresh={`${version}:${polls}`} />
      )}
    </>
  )
}
