/**
 * One search field over the Indicators of every owner the person reads (/api/v3/indicators without
 * owner=). The address holds the query, the sort and the page (with the `next` link's cursor), so a
 * reload or a shared link shows the same page. Everything shown from an Indicator is a text node.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { type Indicator, type ListPage, api } from '../api.js'
import { planSearch } from '../query.js'
import type { Route } from '../route.js'

export const PAGE_SIZE = 50

type SearchRoute = Extract<Route, { page: 'search' }>

const SORTS: [value: string, label: string][] = [
  ['dateAdded desc', 'Newest first'],
  ['dateAdded asc', 'Oldest first'],
  ['lastModified desc', 'Last modified'],
  ['rating desc', 'Highest rating'],
  ['summary asc', 'Summary, A to Z'],
]

interface Loaded {
  key: string
  page?: ListPage<Indicator>
  error?: string
}

function requestFor(route: SearchRoute): string {
  const plan = planSearch(route.q)
  const params = new URLSearchParams({ resultLimit: String(PAGE_SIZE), fields: 'tags', sorting: route.sort })
  if (plan.tql) params.set('tql', plan.tql)
  params.set('resultStart', String((route.pageNumber - 1) * PAGE_SIZE))
  if (route.pageNumber === 1) params.set('count', 'true')
  if (route.cursor) params.set('cursor', route.cursor)
  return `/api/v3/indicators?${params}`
}

/** Where the `next` link points, as a page number and cursor of this console's address. */
function nextOf(next: string): { pageNumber: number; cursor?: string } {
  const params = new URL(next, location.origin).searchParams
  return {
    pageNumber: Math.floor(Number(params.get('resultStart') ?? '0') / PAGE_SIZE) + 1,
    cursor: params.get('cursor') ?? undefined,
  }
}

function describePlan(q: string): string {
  const plan = planSearch(q)
  switch (plan.kind) {
    case 'empty':
      return 'All Indicators'
    case 'value':
      return `${plan.type} ${plan.summary}`
    case 'tql':
      return `TQL: ${plan.tql}`
    case 'text':
      return `Summaries containing “${q.trim()}”`
  }
}

export function Search({ route, navigate }: { route: SearchRoute; navigate: (route: Route) => void }) {
  const [text, setText] = useState(route.q)
  const [loaded, setLoaded] = useState<Loaded>()
  const key = requestFor(route)
  const heading = useRef<HTMLHeadingElement>(null)

  useEffect(() => setText(route.q), [route.q])
  useEffect(() => {
    let current = true
    api<ListPage<Indicator>>(key)
      .then((page) => current && setLoaded({ key, page }))
      .catch((error: Error) => current && setLoaded({ key, error: error.message }))
    return () => {
      current = false
    }
  }, [key])

  const submit = (event: Event) => {
    event.preventDefault()
    navigate({ page: 'search', q: text.trim(), sort: route.sort, pageNumber: 1 })
  }
  const result = loaded?.key === key ? loaded : undefined
  const rows = result?.page?.data ?? []

  return (
    <section aria-labelledby="results-heading">
      <form class="search" role="search" onSubmit={submit}>
        <label for="search">Search</label>
        <input
          id="search"
          type="search"
          name="q"
          value={text}
          placeholder="IP, host, URL, email, hash (defanged is fine) or a TQL expression"
          autocomplete="off"
          spellcheck={false}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit">Find</button>
        <label for="sort">Sort by</label>
        <select
          id="sort"
          value={route.sort}
          onChange={(e) => navigate({ page: 'search', q: route.q, sort: e.currentTarget.value, pageNumber: 1 })}
        >
          {SORTS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </form>

      <h1 id="results-heading" ref={heading}>
        {describePlan(route.q)}
      </h1>
      <p class="status" aria-live="polite">
        {!result
          ? 'Searching…'
          : result.error
            ? ''
            : `${result.page?.count !== undefined ? `${result.page.count} found` : `${rows.length} on this page`}, page ${route.pageNumber}`}
      </p>
      {result?.error && (
        <p role="alert" class="error">
          {result.error}
        </p>
      )}
      {result?.page && rows.length === 0 && <p>No Indicators match.</p>}
      {rows.length > 0 && (
        <table class="results">
          <caption class="visually-hidden">Indicators</caption>
          <thead>
            <tr>
              <th scope="col">Summary</th>
              <th scope="col">Type</th>
              <th scope="col">Owner</th>
              <th scope="col">Rating</th>
              <th scope="col">Confidence</th>
              <th scope="col">Tags</th>
              <th scope="col">Description</th>
              <th scope="col">Added</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((indicator) => (
              <tr key={indicator.id}>
                <td class="summary">
                  <a href={`#/details/indicators/${Number(indicator.id)}/overview`}>{indicator.summary}</a>
                </td>
                <td>{indicator.type}</td>
                <td>{indicator.ownerName}</td>
                <td>{indicator.rating ?? ''}</td>
                <td>{indicator.confidence ?? ''}</td>
                <td>
                  {(indicator.tags?.data ?? []).map((tag) => (
                    <span class="tag" key={tag.name}>
                      {tag.name}
                    </span>
                  ))}
                </td>
                <td class="description">{indicator.description ?? ''}</td>
                <td>{indicator.dateAdded?.slice(0, 10) ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Pages">
        {route.pageNumber > 1 && (
          <button
            type="button"
            onClick={() => navigate({ page: 'search', q: route.q, sort: route.sort, pageNumber: route.pageNumber - 1 })}
          >
            Previous page
          </button>
        )}
        {result?.page?.next && (
          <button
            type="button"
            onClick={() => navigate({ page: 'search', q: route.q, sort: route.sort, ...nextOf(result.page!.next!) })}
          >
            Next page
          </button>
        )}
      </nav>
    </section>
  )
}
