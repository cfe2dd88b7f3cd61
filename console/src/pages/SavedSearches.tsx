/** Named TQL queries, private or shared with an owner's members. */
import type { Route } from '../route.js'

export function SavedSearches(_props: { navigate: (route: Route, replace?: boolean) => void }) {
  return <h1>Saved searches</h1>
}
