/**
 * Outbound lists: each with the URLs a firewall reads (text and CSV, copyable), and saving, changing and
 * deleting one (/api/v3/lists): its name, its TQL or a saved search over Indicators to follow (offered when the
 * person has one), the Indicator types and owners it keeps.
 */
import { useEffect, useState } from 'preact/hooks'
import { INDICATOR_TYPES } from '../../../../src/model/indicator-types.js'
import { api } from '../../api.js'
import { type SavedSearch, listSavedSearches } from '../../saved-searches.js'
import { OutcomeLine, useChange } from '../Triage.js'

interface OutboundList {
  name: string
  tql: string
  types?: string[]
  owners?: string[]
  urls: { text: string; csv: string }
  dateAdded: string
  lastModified: string
}

/** Saved searches a list may take: those over Indicators (a list serves Indicators only). */
const overIndicators = (s: SavedSearch) => s.kind === 'indicators'

function UrlField(props: { list: string; format: string; url: string; onCopied: (text: string) => void }) {
  const id = `url-${props.list}-${props.format}`.replace(/[^A-Za-z0-9_-]/g, '_')
  return (
    <p class="inline">
      <label for={id}>{props.format}</label>
      <input id={id} readOnly value={props.url} size={48} onFocus={(e) => e.currentTarget.select()} />
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard.writeText(props.url).then(
            () => props.onCopied(`The ${props.format} URL of ${props.list} is copied`),
            () => props.onCopied(`Select the ${props.format} URL of ${props.list} and copy it`),
          )
        }
      >
        Copy
        <span class="visually-hidden">
          {' '}
          the {props.format} URL of {props.list}
        </span>
      </button>
    </p>
  )
}

function ListEditor(props: {
  list?: OutboundList
  savedSearches?: SavedSearch[]
  onSaved: (name: string) => void
  onCancel: () => void
}) {
  const { list } = props
  const [name, setName] = useState(list?.name ?? '')
  const [tql, setTql] = useState(list?.tql ?? '')
  const [savedSearch, setSavedSearch] = useState('')
  const [types, setTypes] = useState<string[]>(list?.types ?? [])
  const [owners, setOwners] = useState((list?.owners ?? []).join(', '))
  const [error, setError] = useState<string>()

  const save = async (e: Event) => {
    e.preventDefault()
    setError(undefined)
    const body: Record<string, unknown> = {
      ...(savedSearch ? { savedSearch: Number(savedSearch) } : { tql }),
      types,
      owners: owners
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    }
    try {
      if (list) await api(`/api/v3/lists/${encodeURIComponent(list.name)}`, { method: 'PUT', body })
      else await api('/api/v3/lists', { method: 'POST', body: { name: name.trim(), ...body } })
      props.onSaved(list?.name ?? name.trim())
    } catch (failure) {
      setError((failure as Error).message)
    }
  }

  const searches = props.savedSearches?.filter(overIndicators)
  return (
    <section aria-labelledby="list-editor">
      <h2 id="list-editor">{list ? `Change the list ${list.name}` : 'New outbound list'}</h2>
      <form class="stack" onSubmit={save}>
        {!list && (
          <>
            <label for="list-name">Name (part of its URL; cannot change)</label>
            <input
              id="list-name"
              value={name}
              required
              pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,63}"
              autocomplete="off"
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </>
        )}
        {searches && searches.length > 0 && (
          <>
            <label for="list-saved-search">From a saved search</label>
            <select id="list-saved-search" value={savedSearch} onChange={(e) => setSavedSearch(e.currentTarget.value)}>
              <option value="">No: the TQL below</option>
              {searches.map((s) => (
                <option key={s.id} value={String(s.id)}>
                  {s.name}
                </option>
              ))}
            </select>
          </>
        )}
        {!savedSearch && (
          <>
            <label for="list-tql">TQL over Indicators (empty: every active Indicator)</label>
            <textarea id="list-tql" rows={3} value={tql} onInput={(e) => setTql(e.currentTarget.value)} />
          </>
        )}
        <fieldset>
          <legend>Only these Indicator types (none: every type)</legend>
          {INDICATOR_TYPES.map((t) => (
            <label key={t.name} class="choice">
              <input
                type="checkbox"
                checked={types.includes(t.name)}
                onChange={(e) =>
                  setTypes(e.currentTarget.checked ? [...types, t.name] : types.filter((n) => n !== t.name))
                }
              />{' '}
              {t.name}
            </label>
          ))}
        </fieldset>
        <label for="list-owners">Only these owners (comma-separated names; none: every owner the reader reads)</label>
        <input id="list-owners" value={owners} autocomplete="off" onInput={(e) => setOwners(e.currentTarget.value)} />
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <p class="inline">
          <button type="submit">{list ? 'Save the list' : 'Create the list'}</button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </p>
      </form>
    </section>
  )
}

export function ListsSection() {
  const [lists, setLists] = useState<OutboundList[]>()
  const [savedSearches, setSavedSearches] = useState<SavedSearch[]>()
  const [editing, setEditing] = useState<OutboundList | 'new'>()
  const [deleting, setDeleting] = useState<OutboundList>()
  const [version, setVersion] = useState(0)
  const [loadError, setLoadError] = useState<string>()
  const [outcome, run] = useChange(() => setVersion((v) => v + 1))

  useEffect(() => {
    api<{ data: OutboundList[] }>('/api/v3/lists').then(
      (r) => setLists(r.data),
      (e: Error) => setLoadError(e.message),
    )
  }, [version])
  useEffect(() => {
    listSavedSearches().then(setSavedSearches, () => setSavedSearches([]))
  }, [])

  if (loadError)
    return (
      <p role="alert" class="error">
        {loadError}
      </p>
    )
  if (!lists) return <p>Loading the lists…</p>
  return (
    <>
      <p class="inline">
        <button type="button" onClick={() => setEditing('new')}>
          New outbound list
        </button>
      </p>
      <OutcomeLine outcome={outcome} />
      {editing && (
        <ListEditor
          key={editing === 'new' ? '' : editing.name}
          list={editing === 'new' ? undefined : editing}
          savedSearches={savedSearches}
          onCancel={() => setEditing(undefined)}
          onSaved={(name) => {
            setEditing(undefined)
            void run(async () => undefined, `${name} saved`)
          }}
        />
      )}
      {deleting && (
        <p class="inline" role="group" aria-label="Confirm the deletion">
          Delete the list {deleting.name}? Its URLs will answer 404.
          <button
            type="button"
            onClick={() =>
              void run(async () => {
                await api(`/api/v3/lists/${encodeURIComponent(deleting.name)}`, { method: 'DELETE' })
                setDeleting(undefined)
              }, `${deleting.name} deleted`)
            }
          >
            Yes, delete {deleting.name}
          </button>
          <button type="button" onClick={() => setDeleting(undefined)}>
            Keep it
          </button>
        </p>
      )}
      {lists.length === 0 ? (
        <p>No outbound list yet.</p>
      ) : (
        <table class="results">
          <caption class="visually-hidden">Outbound lists</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">TQL</th>
              <th scope="col">Types</th>
              <th scope="col">Owners</th>
              <th scope="col">URLs</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {lists.map((list) => (
              <tr key={list.name}>
                <td>{list.name}</td>
                <td class="description">{list.tql || 'every active Indicator'}</td>
                <td>{list.types?.join(', ') ?? 'every type'}</td>
                <td>{list.owners?.join(', ') ?? 'every owner the reader reads'}</td>
                <td>
                  <UrlField
                    list={list.name}
                    format="Text"
                    url={list.urls.text}
                    onCopied={(t) => void run(async () => undefined, t)}
                  />
                  <UrlField
                    list={list.name}
                    format="CSV"
                    url={list.urls.csv}
                    onCopied={(t) => void run(async () => undefined, t)}
                  />
                </td>
                <td>
                  <p class="inline">
                    <button type="button" onClick={() => setEditing(list)}>
                      Edit<span class="visually-hidden"> {list.name}</span>
                    </button>
                    <button type="button" onClick={() => setDeleting(list)}>
                      Delete<span class="visually-hidden"> {list.name}</span>
                    </button>
                  </p>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  )
}
