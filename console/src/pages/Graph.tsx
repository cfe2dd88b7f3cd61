/** The association graph of one item; its state (nodes, expansions, hidden kinds) is the address. */
import type { Route } from '../route.js'

export function Graph(props: {
  route: Extract<Route, { page: 'graph' }>
  navigate: (route: Route, replace?: boolean) => void
}) {
  return (
    <h1>
      Graph of {props.route.kind} {props.route.id}
    </h1>
  )
}
