/**
 * One search field over the Indicators of every owner the person reads (/api/v3/indicators without
 * owner=). The address holds the query, the sort and the page (with the `next` link's cursor), so a
 * reload or a shared link shows the same page. Everything shown from an Indicator is a text node.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { type Indicator, type ListPage, api } from '../api.js'
import { LIST_MAX, matchesValue, planSearch } from '../query.js'
import { type TqlKeyword, complete, completions } from '../completion.js'
import type { Route } from '../route.js'
import { BulkBar, type Selection } from './Bulk.js'
import { useAccess } from './Triage.js'
import { SaveSearch } from './SaveSearch.js'
import { mayWrite } from '../api.js'

export const PAGE_SIZE = 50

type SearchRoute = Extract<Route, { page: 'search' }>

/** The Indicator TQL keywords, asked of the server once per page load. */
let keywords: Promise<TqlKeyword[]> | undefined
function tqlKeywords(): Promise<TqlKeyword[]> {
  keywords ??= api<{ data: TqlKeyword[] }>('/api/v3/indicators/tql', { method: 'OPTIONS' }).then(
    (r) => r.data,
    () => [],
  )
  return keywords
}

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
  // A pasted list is answered whole: every Indicator any of its values names, in one page.
  if (plan.kind === 'list')
    return `/api/v3/indicators?${new URLSearchParams({ resultLimit: '10000', fields: 'tags', tql: plan.tql || 'id < 0' })}`
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
    case 'list':
      return `A list of ${plan.values.length} value${plan.values.length === 1 ? '' : 's'}`
  }
}

/** Pasted line breaks become commas: a one-line field would drop them, and a list may come one value a line. */
function pasteAsOneLine(event: ClipboardEvent, setText: (update: (old: string) => string) => void) {
  const pasted = event.clipboardData?.getData('text/plain') ?? ''
  if (!/[\r\n]/.test(pasted.trim())) return
  event.preventDefault()
  const input = event.currentTarget as HTMLInputElement
  const joined = pasted
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .join(', ')
  const start = input.selectionStart ?? input.value.length
  const end = input.selectionEnd ?? start
  setText((old) => old.slice(0, start) + joined + old.slice(end))
}

function IndicatorRows({ rows, selection }: { rows: Indicator[]; selection?: Selection }) {
  return (
    <>
      {rows.map((indicator) => (
        <tr key={indicator.id}>
          {selection && (
            <td>
              {selection.may(indicator.ownerName) && (
                <input
                  type="checkbox"
                  aria-label={`Select ${indicator.summary}`}
                  checked={selection.ids.has(indicator.id)}
                  onChange={(e) => selection.toggle([indicator.id], e.currentTarget.checked)}
                />
              )}
            </td>
          )}
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
    </>
  )
}

function IndicatorTable({ rows, caption, selection }: { rows: Indicator[]; caption: string; selection?: Selection }) {
  return (
    <table class="results">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {selection && (
            <th scope="col">
              <input
                type="checkbox"
                aria-label="Select every row of this page"
                checked={
                  rows.some((r) => selection.may(r.ownerName)) &&
                  rows.every((r) => !selection.may(r.ownerName) || selection.ids.has(r.id))
                }
                onChange={(e) =>
                  selection.toggle(
                    rows.filter((r) => selection.may(r.ownerName)).map((r) => r.id),
                    e.currentTarget.checked,
                  )
                }
              />
            </th>
          )}
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
        <IndicatorRows rows={rows} selection={selection} />
      </tbody>
    </table>
  )
}

/** Which values of a pasted list are known (with the Indicators that hold them) and which are not. */
function ListAnswer({ q, rows, selection }: { q: string; rows: Indicator[]; selection?: Selection }) {
  const plan = planSearch(q)
  if (plan.kind !== 'list') return null
  const unknown = plan.values.filter((v) => !rows.some((row) => matchesValue(v, row)))
  return (
    <>
      <h2 id="known">Known: {plan.values.length - unknown.length}</h2>
      {rows.length > 0 ? (
        <IndicatorTable rows={rows} caption="Known values" selection={selection} />
      ) : (
        <p>None of these values is known.</p>
      )}
      <h2 id="unknown">Not known: {unknown.length}</h2>
      {unknown.length > 0 && (
        <ul class="values" aria-labelledby="unknown">
          {unknown.map((v) => (
            <li key={`${v.type} ${v.summary}`}>
              <span class="type">{v.type}</span> {v.summary}
            </li>
          ))}
        </ul>
      )}
      {plan.rejected.length > 0 && (
        <>
          <h2 id="rejected">Not values: {plan.rejected.length}</h2>
          <ul class="values" aria-labelledby="rejected">
            {plan.rejected.map((r, i) => (
              <li key={i}>{r.reason}</li>
            ))}
          </ul>
        </>
      )}
      {plan.values.length + plan.rejected.length >= LIST_MAX && (
        <p role="status">Only the first {LIST_MAX} lines of a list are looked up.</p>
      )}
    </>
  )
}

export function Search({ route, navigate }: { route: SearchRoute; navigate: (route: Route) => void }) {
  const [text, setText] = useState(route.q)
  const [loaded, setLoaded] = useState<Loaded>()
  const [known, setKnown] = useState<TqlKeyword[]>([])
  const [reload, setReload] = useState(0)
  const [selected, setSelected] = useState<Set<number>>(new Set())
  const access = useAccess()
  const mayTriage = !!access?.some((o) => o.permIndicator === 'FULL')
  const selection: Selection | undefined = mayTriage
    ? {
        ids: selected,
        toggle: (ids, on) =>
          setSelected((old) => {
            const next = new Set(old)
            for (const id of ids) on ? next.add(id) : next.delete(id)
            return next
          }),
        may: (ownerName) => mayWrite(access ?? [], ownerName, 'indicators'),
      }
    : undefined
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => void tqlKeywords().then(setKnown), [])
  const suggestions = planSearch(text).kind === 'value' ? [] : completions(text, known)
  const key = requestFor(route)

  useEffect(() => setText(route.q), [route.q])
  useEffect(() => {
    let current = true
    api<ListPage<Indicator>>(key)
      .then((page) => current && setLoaded({ key, page }))
      .catch((error: Error) => current && setLoaded({ key, error: error.message }))
    return () => {
      current = false
    }
  }, [key, reload])
  useEffect(() => setSelected(new Set()), [key])

  const submit = (event: Event) => {
    event.preventDefault()
    navigate({ page: 'search', q: text.trim(), sort: route.sort, pageNumber: 1 })
  }
  const result = loaded?.key === key ? loaded : undefined
  const rows = result?.page?.data ?? []
  const isList = planSearch(route.q).kind === 'list'

  return (
    <section aria-labelledby="results-heading">
      <form class="search" role="search" onSubmit={submit}>
        <label for="search">Search</label>
        <input
          id="search"
          ref={input}
          type="search"
          name="q"
          value={text}
          placeholder="IP, host, URL, email, hash (defanged is fine) or a TQL expression"
          autocomplete="off"
          spellcheck={false}
          onInput={(e) => setText(e.currentTarget.value)}
          onPaste={(e) => pasteAsOneLine(e, setText)}
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
      {suggestions.length > 0 && (
        <div class="completions" role="group" aria-label="TQL keywords">
          <span aria-hidden="true">Keywords:</span>
          {suggestions.map((k) => (
            <button
              type="button"
              key={k.keyword}
              title={k.description}
              onClick={() => {
                setText(complete(text, k.keyword))
                input.current?.focus()
              }}
            >
              {k.keyword}
            </button>
          ))}
        </div>
      )}

      <h1 id="results-heading">{describePlan(route.q)}</h1>
      <p class="status" aria-live="polite">
        {!result
          ? 'Searching…'
          : result.error
            ? ''
            : isList
              ? `${rows.length} Indicator${rows.length === 1 ? '' : 's'} hold these values`
              : `${result.page?.count !== undefined ? `${result.page.count} found` : `${rows.length} on this page`}, page ${route.pageNumber}`}
      </p>
      {!isList && route.q.trim() !== '' && <SaveSearch tql={planSearch(route.q).tql} />}
      {selection && selected.size > 0 && <BulkBar ids={[...selected]} onDone={() => setReload((n) => n + 1)} />}
      {result?.error && (
        <p role="alert" class="error">
          {result.error}
        </p>
      )}
      {isList ? (
        result?.page && <ListAnswer q={route.q} rows={rows} selection={selection} />
      ) : (
        <>
          {result?.page && rows.length === 0 && <p>No Indicators match.</p>}
          {rows.length > 0 && <IndicatorTable rows={rows} caption="Indicators" selection={selection} />}
        </>
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
        {!isList && result?.page?.next && (
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
