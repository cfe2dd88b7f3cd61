/**
 * Batch and import jobs of every account, newest first, 20 a page (GET /api/v3/admin/jobs?kind=…), with
 * their status and counts; choosing one lists its errors 20 a page (GET /api/v3/admin/jobs/{kind}/{id}/errors):
 * a batch job's error-file lines, an import's refusals by place. Errors quote intelligence: shown as text.
 */
import { useEffect, useState } from 'preact/hooks'
import type {
  BatchErrorLine,
  BatchJobAdminView,
  ImportJobAdminView,
  JobKind,
} from '../../../../src/domain/batch/every-job-view.js'
import type { ImportRefusal } from '../../../../src/domain/imports/import-job-view.js'
import { api } from '../../api.js'
import { Pager, when } from './Pager.js'

const PAGE = 20
type Job = BatchJobAdminView | ImportJobAdminView
type JobError = BatchErrorLine | ImportRefusal

const TITLES: Record<JobKind, string> = { batch: 'Batch jobs', import: 'Import jobs' }

function usePage<T>(path: string, start: number): { data?: T[]; count: number; error?: string } {
  const [state, setState] = useState<{ data?: T[]; count: number; error?: string }>({ count: 0 })
  useEffect(() => {
    let current = true
    const glue = path.includes('?') ? '&' : '?'
    api<{ data: T[]; count: number }>(`${path}${glue}resultStart=${start}&resultLimit=${PAGE}`).then(
      (r) => current && setState({ data: r.data, count: r.count }),
      (e: Error) => current && setState({ count: 0, error: e.message }),
    )
    return () => {
      current = false
    }
  }, [path, start])
  return state
}

function JobErrors(props: { kind: JobKind; job: Job }) {
  const { kind, job } = props
  const [start, setStart] = useState(0)
  const page = usePage<JobError>(`/api/v3/admin/jobs/${kind}/${job.id}/errors`, start)
  const what = kind === 'batch' ? 'errors' : 'refusals'
  const id = `job-errors-${kind}`
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>
        {kind === 'batch' ? `Errors of batch job ${job.id}` : `Refusals of import ${job.id}`} ({page.count})
      </h3>
      {page.error && (
        <p role="alert" class="error">
          {page.error}
        </p>
      )}
      {page.data?.length === 0 && <p>None</p>}
      {!!page.data?.length && (
        <table class="results">
          <caption class="visually-hidden">
            {what} of {kind} job {job.id}
          </caption>
          <thead>
            {kind === 'batch' ? (
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Severity</th>
                <th scope="col">Item</th>
                <th scope="col">Reason</th>
                <th scope="col">Message</th>
              </tr>
            ) : (
              <tr>
                <th scope="col">Where</th>
                <th scope="col">Reason</th>
              </tr>
            )}
          </thead>
          <tbody>
            {page.data.map((e, n) =>
              'code' in e ? (
                <tr key={start + n}>
                  <td>{e.code}</td>
                  <td>{e.severity}</td>
                  <td>{e.errorSource ?? ''}</td>
                  <td class="description">{e.errorReason}</td>
                  <td class="description">{e.errorMessage}</td>
                </tr>
              ) : (
                <tr key={start + n}>
                  <td class="summary">{e.item}</td>
                  <td class="description">{e.message}</td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      )}
      <Pager
        what={`${what} of ${kind} job ${job.id}`}
        start={start}
        size={PAGE}
        count={page.count}
        onStart={setStart}
      />
    </section>
  )
}

function JobTable(props: { kind: JobKind }) {
  const { kind } = props
  const [start, setStart] = useState(0)
  const [chosen, setChosen] = useState<Job>()
  const page = usePage<Job>(`/api/v3/admin/jobs?kind=${kind}`, start)
  const id = `jobs-${kind}`
  const label = (job: Job) => ('fileName' in job ? `Import ${job.id}` : `Batch job ${job.id}`)
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>
        {TITLES[kind]} ({page.count})
      </h2>
      {page.error && (
        <p role="alert" class="error">
          {page.error}
        </p>
      )}
      {page.data?.length === 0 && <p>None</p>}
      {!!page.data?.length && (
        <table class="results">
          <caption class="visually-hidden">{TITLES[kind]}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              {kind === 'import' && <th scope="col">File</th>}
              <th scope="col">Owner</th>
              <th scope="col">Account</th>
              <th scope="col">{kind === 'batch' ? 'Action' : 'Format'}</th>
              <th scope="col">Status</th>
              <th scope="col">Succeeded</th>
              <th scope="col">{kind === 'batch' ? 'Errors' : 'Refused'}</th>
              {kind === 'batch' && <th scope="col">Unprocessed</th>}
              <th scope="col">Added</th>
              <th scope="col">Ended</th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((job) => (
              <tr key={job.id} aria-current={job.id === chosen?.id ? 'true' : undefined}>
                <td>
                  <button type="button" class="link" onClick={() => setChosen(job)}>
                    {label(job)}
                  </button>
                </td>
                {'fileName' in job && <td class="summary">{job.fileName}</td>}
                <td>{job.owner ?? '(deleted)'}</td>
                <td>{job.userName ?? '(deleted)'}</td>
                <td>{'fileName' in job ? (job.format ?? '') : (job.action ?? '')}</td>
                <td>
                  {job.status}
                  {'message' in job && job.message ? `: ${job.message}` : ''}
                </td>
                <td>{job.successCount}</td>
                <td>{job.errorCount}</td>
                {'unprocessCount' in job && <td>{job.unprocessCount}</td>}
                <td>{when(job.dateAdded)}</td>
                <td>{when(job.completedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager what={TITLES[kind].toLowerCase()} start={start} size={PAGE} count={page.count} onStart={setStart} />
      {chosen && <JobErrors key={chosen.id} kind={kind} job={chosen} />}
    </section>
  )
}

export function JobsSection() {
  return (
    <>
      <p class="hint">Every account's jobs, newest first. Choose a job to read its errors.</p>
      <JobTable kind="batch" />
      <JobTable kind="import" />
    </>
  )
}
