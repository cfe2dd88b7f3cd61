/**
 * The console's address is its state: `#/search?q=…&sort=…&page=…&cursor=…` for a search,
 * `#/details/indicators/<id>/overview` for an item (the form the API's webLink gives). A reload or
 * a shared link shows the same view.
 */
export type Route =
  | { page: 'search'; q: string; sort: string; pageNumber: number; cursor?: string }
  | { page: 'details'; kind: string; id: number }
  /** A v2 legacy link of an Indicator, by type, value and owner: looked up, then shown at its details address. */
  | { page: 'lookup'; entity: string; value: string; owner: string }
  | { page: 'new' }
  | { page: 'import' }
  | { page: 'unknown'; hash: string }

export const DEFAULT_SORT = 'dateAdded desc'

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, '')
  const question = text.indexOf('?')
  const path = question === -1 ? text : text.slice(0, question)
  const params = new URLSearchParams(question === -1 ? '' : text.slice(question + 1))
  if (path === '' || path === '/' || path === '/search') {
    const pageNumber = Number(params.get('page') ?? '1')
    return {
      page: 'search',
      q: params.get('q') ?? '',
      sort: params.get('sort') || DEFAULT_SORT,
      pageNumber: Number.isInteger(pageNumber) && pageNumber >= 1 ? pageNumber : 1,
      ...(params.get('cursor') ? { cursor: params.get('cursor')! } : {}),
    }
  }
  if (path === '/new') return { page: 'new' }
  if (path === '/import') return { page: 'import' }
  if (path === '/lookup/indicators')
    return {
      page: 'lookup',
      entity: params.get('entity') ?? '',
      value: params.get('value') ?? '',
      owner: params.get('owner') ?? '',
    }
  const details = /^\/details\/([A-Za-z]+)\/(\d{1,15})(?:\/overview)?$/.exec(path)
  if (details) return { page: 'details', kind: details[1], id: Number(details[2]) }
  return { page: 'unknown', hash: text }
}

export function formatRoute(route: Route): string {
  if (route.page === 'details') return `#/details/${route.kind}/${route.id}/overview`
  if (route.page === 'unknown') return `#${route.hash}`
  if (route.page === 'new') return '#/new'
  if (route.page === 'import') return '#/import'
  if (route.page === 'lookup')
    return `#/lookup/indicators?${new URLSearchParams({ entity: route.entity, value: route.value, owner: route.owner })}`
  const params = new URLSearchParams()
  if (route.q) params.set('q', route.q)
  if (route.sort !== DEFAULT_SORT) params.set('sort', route.sort)
  if (route.pageNumber > 1) params.set('page', String(route.pageNumber))
  if (route.cursor) params.set('cursor', route.cursor)
  const query = params.toString()
  return `#/search${query ? `?${query}` : ''}`
}
