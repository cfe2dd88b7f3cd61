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
  | { page: 'dashboard' }
  /**
   * An association graph from one item. `nodes` are the items shown beyond the root, `expanded` those whose
   * neighbours were asked for, `hidden` kinds hidden, `filter` a saved search applied to the neighbours; each a
   * comma-separated list of `kind:id` (nodes, expanded) or words. Graph.tsx owns how they read.
   */
  | { page: 'graph'; kind: string; id: number; params: Record<string, string> }
  | { page: 'saved-searches' }
  | { page: 'admin'; section: AdminSection }
  | { page: 'unknown'; hash: string }

export const ADMIN_SECTIONS = [
  'owners',
  'people',
  'memberships',
  'tokens',
  'taxii',
  'settings',
  'feeds',
  'lists',
  'jobs',
] as const
export type AdminSection = (typeof ADMIN_SECTIONS)[number]
const isAdminSection = (text: string): text is AdminSection => (ADMIN_SECTIONS as readonly string[]).includes(text)

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
  if (path === '/dashboard') return { page: 'dashboard' }
  if (path === '/saved-searches') return { page: 'saved-searches' }
  if (path === '/admin') return { page: 'admin', section: 'owners' }
  const admin = /^\/admin\/([a-z]+)$/.exec(path)
  if (admin && isAdminSection(admin[1])) return { page: 'admin', section: admin[1] }
  const graph = /^\/graph\/([A-Za-z]+)\/(\d{1,15})$/.exec(path)
  if (graph) return { page: 'graph', kind: graph[1], id: Number(graph[2]), params: Object.fromEntries(params) }
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
  if (route.page === 'dashboard') return '#/dashboard'
  if (route.page === 'saved-searches') return '#/saved-searches'
  if (route.page === 'admin') return `#/admin/${route.section}`
  if (route.page === 'graph') {
    const query = new URLSearchParams(route.params).toString()
    return `#/graph/${route.kind}/${route.id}${query ? `?${query}` : ''}`
  }
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
