/**
 * The console's shell: who is signed in (or the sign-in page), the header, and the page the
 * address names. A script error in a page shows as a message in that page, never a blank screen.
 */
import { Component, type ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { SESSION_ENDED, type Session, currentSession, rememberSession, signOut } from './api.js'
import { type Route, formatRoute, parseRoute } from './route.js'
import { SignIn } from './pages/SignIn.js'
import { Search } from './pages/Search.js'
import { IndicatorPage } from './pages/IndicatorPage.js'
import { Lookup } from './pages/Lookup.js'
import { ItemPage, isItemKind } from './pages/ItemPage.js'
import { NewItem } from './pages/NewItem.js'
import { ImportPage } from './pages/ImportPage.js'
import { Dashboard } from './pages/Dashboard.js'
import { Graph } from './pages/Graph.js'
import { SavedSearches } from './pages/SavedSearches.js'
import { Administration } from './pages/admin/Administration.js'

function useRoute(): [Route, (route: Route, replace?: boolean) => void] {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash))
    addEventListener('hashchange', onChange)
    return () => removeEventListener('hashchange', onChange)
  }, [])
  const navigate = (next: Route, replace = false) => {
    const hash = formatRoute(next)
    if (replace) history.replaceState(null, '', hash)
    else if (location.hash !== hash) history.pushState(null, '', hash)
    setRoute(parseRoute(hash))
  }
  return [route, navigate]
}

class PageBoundary extends Component<{ children: ComponentChildren }, { error?: string }> {
  override state: { error?: string } = {}
  override componentDidCatch(error: unknown) {
    this.setState({ error: error instanceof Error ? error.message : String(error) })
  }
  override render() {
    if (this.state.error)
      return (
        <div role="alert" class="error">
          This page failed: {this.state.error}. Reload to try again.
        </div>
      )
    return this.props.children
  }
}

export function App() {
  const [session, setSession] = useState<Session | undefined | null>(null)
  const [failure, setFailure] = useState<string>()
  const [route, navigate] = useRoute()

  useEffect(() => {
    currentSession()
      .then((s) => {
        rememberSession(s)
        setSession(s)
      })
      .catch((error: Error) => setFailure(error.message))
    // A session that ends while a page is open (expiry, sign-out elsewhere, a new password) brings back the
    // sign-in form; the address, and so the view, stays for after the sign-in.
    const ended = () => setSession(undefined)
    addEventListener(SESSION_ENDED, ended)
    return () => removeEventListener(SESSION_ENDED, ended)
  }, [])

  if (failure)
    return (
      <main class="narrow">
        <p role="alert" class="error">
          The server could not be reached: {failure}
        </p>
      </main>
    )
  if (session === null)
    return (
      <main class="narrow">
        <p>Loading…</p>
      </main>
    )
  if (session === undefined)
    return (
      <SignIn
        onSignedIn={(s) => {
          rememberSession(s)
          setSession(s)
        }}
      />
    )

  const leave = async () => {
    await signOut().catch(() => undefined)
    rememberSession(undefined)
    setSession(undefined)
  }
  return (
    <>
      <header class="top">
        <a class="brand" href="#/search">
          Bulwark
        </a>
        <nav class="main-nav" aria-label="Console">
          <a href="#/dashboard">Dashboard</a>
          <a href="#/search">Search</a>
          <a href="#/saved-searches">Saved searches</a>
          <a href="#/new">New</a>
          <a href="#/import">Import</a>
          {session.administrator && <a href="#/admin">Administration</a>}
        </nav>
        <span class="who">
          Signed in as <strong>{session.userName}</strong>
        </span>
        <button type="button" onClick={leave}>
          Sign out
        </button>
      </header>
      <main>
        {/* A graph writes its state into the address as it grows: it stays mounted while its root is the same. */}
        <PageBoundary key={route.page === 'graph' ? `graph/${route.kind}/${route.id}` : formatRoute(route)}>
          {route.page === 'search' ? (
            <Search route={route} navigate={navigate} />
          ) : route.page === 'details' && route.kind === 'indicators' ? (
            <IndicatorPage id={route.id} />
          ) : route.page === 'details' && isItemKind(route.kind) ? (
            <ItemPage kind={route.kind} id={route.id} />
          ) : route.page === 'new' ? (
            <NewItem navigate={navigate} />
          ) : route.page === 'import' ? (
            <ImportPage />
          ) : route.page === 'dashboard' ? (
            <Dashboard />
          ) : route.page === 'graph' ? (
            <Graph route={route} navigate={navigate} />
          ) : route.page === 'saved-searches' ? (
            <SavedSearches navigate={navigate} />
          ) : route.page === 'admin' ? (
            session.administrator ? (
              <Administration section={route.section} />
            ) : (
              <p role="alert">Administration is for system administrators.</p>
            )
          ) : route.page === 'lookup' ? (
            <Lookup route={route} navigate={navigate} />
          ) : (
            <p role="alert">
              Nothing here yet. <a href="#/search">Search</a>
            </p>
          )}
        </PageBoundary>
      </main>
    </>
  )
}
