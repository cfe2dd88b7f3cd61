/**
 * A bounded, counted list of an item's related records (its attributes, its associations): one page of
 * PAGE rows at a time from a v3 list with `count=true`, with previous and next. Never the whole set at once.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { type ListPage, api } from '../api.js'

const PAGE = 10

export function PagedList<T extends { id: number }>({
  title,
  path,
  tql,
  columns,
  row,
  version = 0,
  action,
}: {
  title: string
  /** The v3 list, e.g. `/api/v3/groups`. */
  path: string
  tql: string
  columns: string[]
  row: (item: T) => ComponentChildren
  /** Bumped after a change, to read the page again. */
  version?: number
  /** A button on each row (Dissociate, Delete), for a person allowed to use it. */
  action?: { label: (item: T) => string; text: string; run: (item: T) => Promise<void> }
}) {
  const [start, setStart] = useState(0)
  const [state, setState] = useState<{ page?: ListPage<T>; count?: number; error?: string }>({})
  useEffect(() => {
    let current = true
    const params = new URLSearchParams({ tql, resultStart: String(start), resultLimit: String(PAGE), count: 'true' })
    api<ListPage<T>>(`${path}?${params}`)
      .then((page) => current && setState((old) => ({ page, count: page.count ?? old.count })))
      .catch((error: Error) => current && setState({ error: error.message }))
    return () => {
      current = false
    }
  }, [path, tql, start, version])
  const id = `list-${title.replace(/\W+/g, '-').toLowerCase()}`
  const rows = state.page?.data ?? []
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>
        {title}
        {state.count !== undefined ? ` (${state.count})` : ''}
      </h2>
      {state.error ? (
        <p role="alert" class="error">
          {state.error}
        </p>
      ) : !state.page ? (
        <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p>None</p>
      ) : (
        <table class="results">
          <thead>
            <tr>
              {columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
              {action && <th scope="col">Change</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((item) => (
              <tr key={item.id}>
                {row(item)}
                {action && (
                  <td>
                    <button type="button" aria-label={action.label(item)} onClick={() => void action.run(item)}>
                      {action.text}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(start > 0 || state.page?.next) && (
        <nav class="pager" aria-label={`${title}: pages`}>
          {start > 0 && (
            <button type="button" onClick={() => setStart(Math.max(0, start - PAGE))}>
              Previous {title.toLowerCase()}
            </button>
          )}
          {state.page?.next && (
            <button type="button" onClick={() => setStart(start + PAGE)}>
              Next {title.toLowerCase()}
            </button>
          )}
        </nav>
      )}
    </section>
  )
}
