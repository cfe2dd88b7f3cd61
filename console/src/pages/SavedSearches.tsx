/**
 * Named TQL queries, private or shared with an owner's members: the person's own and those shared with them, each
 * to run, pin to the dashboard, and (for those they may change) rename or delete. Every name and TQL is a text node.
 */
import { useEffect, useState } from 'preact/hooks'
import type { Route } from '../route.js'
import { type SavedSearch, changeSavedSearch, deleteSavedSearch, listSavedSearches } from '../saved-searches.js'
import { searchHref } from './Dashboard.js'
import './dashboard.css'

function Row({
  search,
  onChanged,
  say,
}: {
  search: SavedSearch
  onChanged: () => void
  say: (text: string, ok: boolean) => void
}) {
  const [renaming, setRenaming] = useState(false)
  const [name, setName] = useState(search.name)
  const [confirming, setConfirming] = useState(false)
  const act = async (what: () => Promise<unknown>, done: string) => {
    try {
      await what()
      say(done, true)
      onChanged()
    } catch (error) {
      say((error as Error).message, false)
    }
  }
  return (
    <tr>
      <th scope="row">
        {renaming ? (
          <form
            onSubmit={(e) => {
              e.preventDefault()
              setRenaming(false)
              void act(() => changeSavedSearch(search.id, { name: name.trim() }), `Renamed to “${name.trim()}”.`)
            }}
          >
            <label for={`rename-${search.id}`} class="visually-hidden">
              New name of {search.name}
            </label>
            <input
              id={`rename-${search.id}`}
              value={name}
              maxLength={100}
              onInput={(e) => setName(e.currentTarget.value)}
            />
            <button type="submit">Save name</button>
          </form>
        ) : (
          search.name
        )}
      </th>
      <td>
        <code>{search.tql || '(every one)'}</code>
      </td>
      <td>{search.kind === 'groups' ? 'Groups' : 'Indicators'}</td>
      <td>{search.shared ? `Members of ${search.owner}` : 'Only me'}</td>
      <td>{search.createdBy}</td>
      <td>
        {search.kind === 'indicators' ? (
          <a href={searchHref(search.tql)} aria-label={`Run ${search.name}`}>
            Run
          </a>
        ) : (
          'On the graph'
        )}{' '}
        <button
          type="button"
          aria-label={`${search.pinned ? 'Unpin from dashboard' : 'Pin to dashboard'} ${search.name}`}
          onClick={() =>
            void act(
              () => changeSavedSearch(search.id, { pinned: !search.pinned }),
              search.pinned ? `“${search.name}” is off the dashboard.` : `“${search.name}” is on the dashboard.`,
            )
          }
        >
          {search.pinned ? 'Unpin from dashboard' : 'Pin to dashboard'}
        </button>{' '}
        {search.editable && (
          <>
            <button type="button" aria-label={`Rename ${search.name}`} onClick={() => setRenaming(true)}>
              Rename
            </button>{' '}
            {confirming ? (
              <button
                type="button"
                aria-label={`Confirm delete ${search.name}`}
                onClick={() => void act(() => deleteSavedSearch(search.id), `Deleted “${search.name}”.`)}
              >
                Confirm delete
              </button>
            ) : (
              <button type="button" aria-label={`Delete ${search.name}`} onClick={() => setConfirming(true)}>
                Delete
              </button>
            )}
          </>
        )}
      </td>
    </tr>
  )
}

function Table({
  id,
  title,
  rows,
  onChanged,
  say,
}: {
  id: string
  title: string
  rows: SavedSearch[]
  onChanged: () => void
  say: (text: string, ok: boolean) => void
}) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>
        {title} ({rows.length})
      </h2>
      {rows.length === 0 ? (
        <p>None.</p>
      ) : (
        <table class="saved-searches">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">TQL</th>
              <th scope="col">Of</th>
              <th scope="col">Visible to</th>
              <th scope="col">Saved by</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <Row key={`${s.id}-${s.lastModified}-${s.pinned}`} search={s} onChanged={onChanged} say={say} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

export function SavedSearches(_props: { navigate: (route: Route, replace?: boolean) => void }) {
  const [searches, setSearches] = useState<SavedSearch[]>()
  const [error, setError] = useState<string>()
  const [said, setSaid] = useState<{ text: string; ok: boolean }>()
  const [reload, setReload] = useState(0)
  useEffect(() => {
    listSavedSearches().then(setSearches, (e: Error) => setError(e.message))
  }, [reload])
  const say = (text: string, ok: boolean) => setSaid({ text, ok })
  const changed = () => setReload((n) => n + 1)
  return (
    <>
      <h1>Saved searches</h1>
      <p>
        Save a search from the search page (“Save this search”). A saved search is yours alone, or shared with the
        members of one owner you belong to; they can run it and pin it to their own dashboard, and only you (or an
        administrator) can rename or delete it.
      </p>
      {said &&
        (said.ok ? (
          <p role="status">{said.text}</p>
        ) : (
          <p role="alert" class="error">
            {said.text}
          </p>
        ))}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!searches && !error && <p>Loading…</p>}
      {searches && (
        <>
          <Table id="mine" title="Mine" rows={searches.filter((s) => s.mine)} onChanged={changed} say={say} />
          <Table
            id="shared"
            title="Shared with me"
            rows={searches.filter((s) => !s.mine)}
            onChanged={changed}
            say={say}
          />
        </>
      )}
      <section aria-labelledby="graph-filter">
        <h2 id="graph-filter">Graph filter</h2>
        <p>
          On an item's association graph, a saved search can be chosen as the filter: only the neighbours it matches are
          shown when a node is expanded (a search of Indicators filters Indicators, a search of Groups filters Groups).
          The graph's address keeps the choice, so a shared link shows the same filtered graph.
        </p>
      </section>
    </>
  )
}
