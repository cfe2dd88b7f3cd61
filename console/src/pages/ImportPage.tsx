/**
 * Import: a file of any format Bulwark reads uploaded raw into an owner the person may write
 * (POST /api/v3/imports), its progress read every second (GET /api/v3/imports/:id) until it ends, and
 * every refusal with its place and reason, 20 a page (GET /api/v3/imports/:id/errors). The person's
 * recent imports are listed below. Refusals quote intelligence: they are shown as text.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api } from '../api.js'
import { OutcomeLine, useAccess, useChange } from './Triage.js'
import { writableOwners } from '../writes.js'
import { INDICATOR_TYPES } from '../../../src/model/indicator-types.js'
import type {
  ImportJobView as ImportJob,
  ImportRefusal as Refusal,
} from '../../../src/domain/imports/import-job-view.js'

/** The formats `bulwark import --format` names; by default the server tells from the name and the first megabyte. */
const FORMATS: [value: string, label: string][] = [
  ['', 'Detect from the file'],
  ['stix', 'STIX 2.0 or 2.1'],
  ['batch', 'V2 batch file'],
  ['csv', 'CSV'],
  ['list', 'Plain list or free text'],
]

const ERRORS_PAGE = 20
const POLL_MS = 1000
const ENDED = new Set(['Completed', 'Failed'])

function Refusals({ job }: { job: ImportJob }) {
  const [start, setStart] = useState(0)
  const [page, setPage] = useState<{ data: Refusal[]; count: number }>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    api<{ data: Refusal[]; count: number }>(
      `/api/v3/imports/${job.id}/errors?resultStart=${start}&resultLimit=${ERRORS_PAGE}`,
    ).then(setPage, (e: Error) => setError(e.message))
  }, [job.id, start, job.status])
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    )
  if (!page) return <p>Loading the refusals…</p>
  return (
    <section aria-labelledby="refusals">
      <h2 id="refusals">
        Refusals ({job.errorCount}
        {job.errorCount > job.errorsListed ? `, the first ${job.errorsListed} listed` : ''})
      </h2>
      {page.data.length === 0 ? (
        <p>None</p>
      ) : (
        <table class="results">
          <thead>
            <tr>
              <th scope="col">Where</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((r, n) => (
              <tr key={start + n}>
                <td>{r.item}</td>
                <td class="description">{r.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Refusals: pages">
        {start > 0 && (
          <button type="button" onClick={() => setStart(Math.max(0, start - ERRORS_PAGE))}>
            Previous refusals
          </button>
        )}
        {start + ERRORS_PAGE < page.count && (
          <button type="button" onClick={() => setStart(start + ERRORS_PAGE)}>
            Next refusals
          </button>
        )}
      </nav>
    </section>
  )
}

function Progress({ job }: { job: ImportJob }) {
  const rows: [string, string | number][] = [
    ['File', job.fileName],
    ['Owner', job.owner],
    ['Status', job.status],
    ['Format', job.format ?? 'not known yet'],
    ['Size', `${job.bytes} bytes`],
    ['Items read', job.items],
    ['Imported', job.successCount],
    ['Refused', job.errorCount],
  ]
  return (
    <section aria-labelledby="progress">
      <h2 id="progress">Import {job.id}</h2>
      <dl class="fields" aria-live="polite">
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{String(value)}</dd>
          </div>
        ))}
      </dl>
      {job.message && (
        <p role="alert" class="error">
          {job.message}
        </p>
      )}
      {ENDED.has(job.status) && <Refusals job={job} />}
    </section>
  )
}

export function ImportPage() {
  const access = useAccess()
  const [owner, setOwner] = useState('')
  const [file, setFile] = useState<File>()
  const [format, setFormat] = useState('')
  const [type, setType] = useState('')
  const [map, setMap] = useState('')
  const [job, setJob] = useState<ImportJob>()
  const [recent, setRecent] = useState<ImportJob[]>([])
  const [outcome, run] = useChange(() => undefined)
  const timer = useRef<number | undefined>(undefined)
  const owners = access ? writableOwners(access, 'permIndicator') : []
  useEffect(() => {
    if (owners.length && !owner) setOwner(owners[0].name)
  }, [owners.length])
  useEffect(() => {
    api<{ data: ImportJob[] }>('/api/v3/imports').then(
      (r) => setRecent(r.data),
      () => undefined,
    )
  }, [job?.id, job?.status])
  // Progress: read the job every second until it has ended.
  useEffect(() => {
    if (!job || ENDED.has(job.status)) return
    timer.current = window.setTimeout(() => {
      api<{ data: ImportJob }>(`/api/v3/imports/${job.id}`).then(
        (r) => setJob(r.data),
        () => undefined,
      )
    }, POLL_MS)
    return () => window.clearTimeout(timer.current)
  }, [job])

  const upload = async () => {
    if (!file) throw new Error('Choose a file first')
    const params = new URLSearchParams({ owner, fileName: file.name })
    if (format) params.set('format', format)
    if (type) params.set('type', type)
    if (map.trim()) params.set('map', map.trim())
    const created = await api<{ data: ImportJob }>(`/api/v3/imports?${params}`, { method: 'POST', raw: file })
    setJob(created.data)
  }

  if (!access) return <p>Loading…</p>
  return (
    <section aria-labelledby="import-heading">
      <h1 id="import-heading">Import a file</h1>
      {owners.length === 0 ? (
        <p role="alert">You may not import into any owner.</p>
      ) : (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault()
            void run(upload, 'Uploaded')
          }}
        >
          <label for="import-owner">Owner</label>
          <select id="import-owner" value={owner} onChange={(e) => setOwner(e.currentTarget.value)}>
            {owners.map((o) => (
              <option key={o.id} value={o.name}>
                {o.name}
              </option>
            ))}
          </select>
          <label for="import-file">File</label>
          <input id="import-file" type="file" onChange={(e) => setFile(e.currentTarget.files?.[0])} />
          <p class="hint">Any format Bulwark reads: STIX, V2 batch files, CSV, plain lists and free text.</p>
          <label for="import-format">Format</label>
          <select id="import-format" value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
            {FORMATS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <label for="import-type">Every value is of type (lists and CSV; optional)</label>
          <select id="import-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">Detect each value's type</option>
            {INDICATOR_TYPES.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name}
              </option>
            ))}
          </select>
          <label for="import-map">CSV columns (optional, e.g. value=IOC,type=Kind)</label>
          <input id="import-map" value={map} onInput={(e) => setMap(e.currentTarget.value)} autocomplete="off" />
          <button type="submit">Upload</button>
        </form>
      )}
      <OutcomeLine outcome={outcome} />
      {job && <Progress job={job} />}
      <h2 id="recent">Your recent imports</h2>
      {recent.length === 0 ? (
        <p>None</p>
      ) : (
        <table class="results" aria-labelledby="recent">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Owner</th>
              <th scope="col">Status</th>
              <th scope="col">Imported</th>
              <th scope="col">Refused</th>
              <th scope="col">Added</th>
            </tr>
          </thead>
          <tbody>
            {recent.map((r) => (
              <tr key={r.id}>
                <td>
                  <button type="button" class="link" onClick={() => setJob(r)}>
                    {r.fileName}
                  </button>
                </td>
                <td>{r.owner}</td>
                <td>{r.status}</td>
                <td>{r.successCount}</td>
                <td>{r.errorCount}</td>
                <td>{r.dateAdded.slice(0, 19).replace('T', ' ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
