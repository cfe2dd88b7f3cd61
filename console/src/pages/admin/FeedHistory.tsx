/**
 * A feed's runs, newest first (GET /api/v3/feeds/{id}/runs, the last 100 kept), and one run's record:
 * its counts, its error and each refusal with its place and reason. Refusals quote what the feed
 * served, written by whoever runs that server: they are shown as text.
 */
import { useEffect, useState } from 'preact/hooks'
import type { FeedRun, FeedView } from '../../../../src/domain/feeds/feed.js'
import { api } from '../../api.js'
import { Pager, when } from './Pager.js'

const RUNS_PAGE = 10

function RunRecord({ run }: { run: FeedRun }) {
  const counts: [string, string | number][] = [
    ['Status', run.status],
    ['Trigger', run.trigger],
    ['Started', when(run.startedAt)],
    ['Ended', run.finishedAt ? when(run.finishedAt) : 'not yet'],
    ['Pages stored', run.pages],
    ['Objects fetched', run.fetched],
    ['Created', run.created],
    ['Updated', run.updated],
    ['Unchanged', run.unchanged],
    ['Refused', run.refused],
  ]
  return (
    <section aria-labelledby={`run-${run.id}`}>
      <h3 id={`run-${run.id}`}>Run {run.id}</h3>
      <dl class="fields">
        {counts.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{String(value)}</dd>
          </div>
        ))}
      </dl>
      {run.error && (
        <p class="error description">
          <strong>Error:</strong> {run.error}
        </p>
      )}
      <h4>
        Refusals ({run.refused}
        {run.refused > run.refusals.length ? `, the first ${run.refusals.length} listed` : ''})
      </h4>
      {run.refusals.length === 0 ? (
        <p>None</p>
      ) : (
        <table class="results">
          <caption class="visually-hidden">Refusals of run {run.id}</caption>
          <thead>
            <tr>
              <th scope="col">Where</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {run.refusals.map((r, n) => (
              <tr key={n}>
                <td class="summary">{r.item}</td>
                <td class="description">{r.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

/** `refresh` changes when the runs are to be read again (a change, a run being watched). */
export function FeedHistory(props: { feed: FeedView; refresh: string; selected?: number }) {
  const { feed } = props
  const [start, setStart] = useState(0)
  const [page, setPage] = useState<{ data: FeedRun[]; count: number }>()
  const [chosen, setChosen] = useState<number | undefined>(props.selected)
  const [error, setError] = useState<string>()
  useEffect(() => setChosen(props.selected), [props.selected])
  useEffect(() => {
    let current = true
    api<{ data: FeedRun[]; count: number }>(
      `/api/v3/feeds/${feed.id}/runs?resultStart=${start}&resultLimit=${RUNS_PAGE}`,
    )
      .then((p) => current && setPage(p))
      .catch((e: Error) => current && setError(e.message))
    return () => {
      current = false
    }
  }, [feed.id, start, props.refresh])
  const shown = page?.data.find((r) => r.id === chosen) ?? page?.data[0]
  return (
    <section aria-labelledby="feed-history">
      <h2 id="feed-history">History of {feed.name}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!page ? (
        <p>Loading the runs…</p>
      ) : page.data.length === 0 ? (
        <p>No run yet.</p>
      ) : (
        <>
          <table class="results">
            <caption class="visually-hidden">Runs of {feed.name}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Fetched</th>
                <th scope="col">Created</th>
                <th scope="col">Updated</th>
                <th scope="col">Unchanged</th>
                <th scope="col">Refused</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((run) => (
                <tr key={run.id} aria-current={run.id === shown?.id ? 'true' : undefined}>
                  <td>
                    <button type="button" class="link" onClick={() => setChosen(run.id)}>
                      Run {run.id}
                    </button>
                  </td>
                  <td>{run.status}</td>
                  <td>{when(run.startedAt)}</td>
                  <td>{run.fetched}</td>
                  <td>{run.created}</td>
                  <td>{run.updated}</td>
                  <td>{run.unchanged}</td>
                  <td>{run.refused}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager what="runs" start={start} size={RUNS_PAGE} count={page.count} onStart={setStart} />
          {shown && <RunRecord run={shown} />}
        </>
      )}
    </section>
  )
}
