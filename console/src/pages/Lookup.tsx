/**
 * Where a v2 legacy link of an Indicator lands: its type (the link's entity), value and owner become a
 * v3 TQL look-up with the person's own session; the Indicator is then shown at its details address.
 */
import { useEffect, useState } from 'preact/hooks'
import { INDICATOR_TYPES } from '../../../src/model/indicator-types.js'
import { type Indicator, type ListPage, api } from '../api.js'
import { tqlString } from '../query.js'
import type { Route } from '../route.js'

type LookupRoute = Extract<Route, { page: 'lookup' }>

export function lookupTql(route: LookupRoute): string | undefined {
  const type = INDICATOR_TYPES.find((t) => t.apiEntity.toLowerCase() === route.entity.toLowerCase())
  if (!type || !route.value) return undefined
  const owner = route.owner ? ` and ownerName = ${tqlString(route.owner)}` : ''
  return `typeName = ${tqlString(type.name)} and summary = ${tqlString(route.value)}${owner}`
}

export function Lookup({
  route,
  navigate,
}: {
  route: LookupRoute
  navigate: (route: Route, replace?: boolean) => void
}) {
  const [error, setError] = useState<string>()
  useEffect(() => {
    const tql = lookupTql(route)
    if (!tql) return setError('This link names no Indicator type Bulwark knows')
    api<ListPage<Indicator>>(`/api/v3/indicators?${new URLSearchParams({ tql, resultLimit: '1' })}`)
      .then((page) => {
        const found = page.data[0]
        if (found) navigate({ page: 'details', kind: 'indicators', id: found.id }, true)
        else setError('No Indicator of this link is one you may read')
      })
      .catch((e: Error) => setError(e.message))
  }, [route.entity, route.value, route.owner])
  if (!error) return <p>Looking up {route.value}…</p>
  return (
    <p role="alert" class="error">
      {error}: {route.value}
    </p>
  )
}
