import { describe, expect, it } from 'vitest'
import { DEFAULT_SORT, formatRoute, parseRoute } from './route.js'
import { safeHref } from './safe-url.js'

describe('the address as state', () => {
  it('round-trips a search with its sort, page and cursor', () => {
    const route = {
      page: 'search' as const,
      q: 'tag = "apt 1" & more',
      sort: 'rating desc',
      pageNumber: 3,
      cursor: 'MjAw',
    }
    const hash = formatRoute(route)
    expect(hash).toBe('#/search?q=tag+%3D+%22apt+1%22+%26+more&sort=rating+desc&page=3&cursor=MjAw')
    expect(parseRoute(hash)).toEqual(route)
  })

  it('reads the empty address as the first page of an empty search', () => {
    expect(parseRoute('')).toEqual({ page: 'search', q: '', sort: DEFAULT_SORT, pageNumber: 1 })
    expect(parseRoute('#/search?page=-2')).toEqual({ page: 'search', q: '', sort: DEFAULT_SORT, pageNumber: 1 })
  })

  it('reads the lookup a v2 legacy link is sent to', () => {
    const route = { page: 'lookup' as const, entity: 'host', value: 'evil.example', owner: 'Org & Co' }
    expect(parseRoute(formatRoute(route))).toEqual(route)
  })

  it('round-trips a graph with its nodes, expansions and hidden kinds', () => {
    const route = {
      page: 'graph' as const,
      kind: 'groups',
      id: 12,
      params: { nodes: 'indicators:4,groups:9', expanded: 'groups:12', hide: 'victims' },
    }
    expect(formatRoute(route)).toBe(
      '#/graph/groups/12?nodes=indicators%3A4%2Cgroups%3A9&expanded=groups%3A12&hide=victims',
    )
    expect(parseRoute(formatRoute(route))).toEqual(route)
  })

  it('reads the dashboard, saved searches and each administration section', () => {
    expect(parseRoute('#/dashboard')).toEqual({ page: 'dashboard' })
    expect(parseRoute('#/saved-searches')).toEqual({ page: 'saved-searches' })
    expect(parseRoute('#/admin')).toEqual({ page: 'admin', section: 'owners' })
    expect(parseRoute('#/admin/feeds')).toEqual({ page: 'admin', section: 'feeds' })
    expect(parseRoute('#/admin/nothing')).toEqual({ page: 'unknown', hash: '/admin/nothing' })
  })

  it("reads the API's webLink form of an item", () => {
    expect(parseRoute('#/details/indicators/55/overview')).toEqual({ page: 'details', kind: 'indicators', id: 55 })
  })
})

describe('links from intelligence', () => {
  it('are made of http and https URLs only', () => {
    expect(safeHref('https://evil.example/a')).toBe('https://evil.example/a')
    expect(safeHref('javascript:alert(1)')).toBeUndefined()
    expect(safeHref(' JaVaScRiPt:alert(1)')).toBeUndefined()
    expect(safeHref('data:text/html,<script>alert(1)</script>')).toBeUndefined()
    expect(safeHref('vbscript:msgbox')).toBeUndefined()
    expect(safeHref('evil.example')).toBeUndefined()
  })

  it('reads the creation and import pages', () => {
    expect(parseRoute('#/new')).toEqual({ page: 'new' })
    expect(parseRoute('#/import')).toEqual({ page: 'import' })
    expect(formatRoute({ page: 'new' })).toBe('#/new')
    expect(formatRoute({ page: 'import' })).toBe('#/import')
    expect(parseRoute('#/details/cases/7/overview')).toEqual({ page: 'details', kind: 'cases', id: 7 })
  })
})
