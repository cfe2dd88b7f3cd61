/**
 * The association graph of one item (`#/graph/<kind>/<id>?expanded=…&nodes=…&hide=…&filter=…`), drawn by
 * cytoscape.js on a canvas (labels are canvas text, never HTML). It grows a bounded page at a time: expanding
 * an item first shows its neighbour counts, then fetches one page of 25 and offers the next page with how many
 * are left. The layout runs in a Web Worker (graph/layout.worker.ts); the main thread only applies positions.
 * The address is the state (graph/state.ts): a reload or a shared link rebuilds the same graph from its ids.
 */
import type { Core, ElementDefinition } from 'cytoscape'
import type { SavedSearch } from '../saved-searches.js'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { Route } from '../route.js'
import {
  type GraphNode,
  MAX_PAGE,
  type NeighbourCount,
  type Neighbour,
  PAGE,
  fetchGraphNode,
  fetchNeighbours,
  fetchSavedSearches,
} from '../graph/api.js'
import {
  type GraphState,
  type NodeKey,
  expansionKeyOf,
  formatGraphState,
  keyOf,
  parseGraphState,
} from '../graph/state.js'
import { GRAPH_STYLE, KIND_STYLE, colourOf } from '../graph/style.js'
import '../graph/graph.css'

type GraphRoute = Extract<Route, { page: 'graph' }>

interface NodeData extends GraphNode {
  degree: number
  /** The server stopped counting (1,000 of a kind): there are more. */
  degreeCapped?: boolean
}

interface Selected extends NodeData {
  key: string
  counts?: NeighbourCount[]
  /** Neighbours the expansion can reach in all (with the filter), once known. */
  total?: number
  loaded?: number
}

const LABEL_LENGTH = 48

/** One edge per pair and association type: an Indicator may be linked to another plainly and by a custom type. */
const edgeIdOf = (parent: NodeKey, node: NodeKey, associationType?: string | null) =>
  `${keyOf(parent)}>${keyOf(node)}${associationType ? `!${associationType}` : ''}`
const CYTOSCAPE_STYLESHEET = '__________cytoscape_stylesheet'

function elementOf(node: NodeData, root: boolean): ElementDefinition {
  const style = KIND_STYLE[node.kind]
  const summary = node.summary.length > LABEL_LENGTH ? `${node.summary.slice(0, LABEL_LENGTH - 1)}…` : node.summary
  const more = root ? 0 : node.degree - 1
  return {
    group: 'nodes',
    data: {
      ...node,
      // cytoscape's id is the `kind:id` key; the item's own id is kept beside it.
      id: keyOf(node),
      itemId: node.id,
      label: more > 0 ? `${summary} +${more}${node.degreeCapped ? '+' : ''}` : summary,
      shape: style?.shape ?? 'ellipse',
      colour: colourOf(node.kind, node.type),
    },
    classes: root ? 'root' : '',
  }
}

export function Graph(props: { route: GraphRoute; navigate: (route: Route, replace?: boolean) => void }) {
  const { route, navigate } = props
  const container = useRef<HTMLDivElement>(null)
  const cyRef = useRef<Core | undefined>(undefined)
  const stateRef = useRef<GraphState>(parseGraphState(route.params))
  const totals = useRef(new Map<string, number>())
  const written = useRef<string>('')
  const layout = useRef<{
    worker?: Worker
    request: number
    running: boolean
    pending: boolean
    placed: Set<string>
    started?: number
    /** A rebuild's batch, ended once its layout is applied. */
    drawOnce?: boolean
  }>({
    request: 0,
    running: false,
    pending: false,
    placed: new Set(),
  })
  const [status, setStatus] = useState('Loading the graph…')
  const [error, setError] = useState<string>()
  const [selected, setSelected] = useState<Selected>()
  const [searches, setSearches] = useState<SavedSearch[]>([])
  // The canvas's handlers are made once, at mount: they read the saved searches through this.
  const searchesRef = useRef<SavedSearch[]>([])
  const selectCalls = useRef(0)
  const [hidden, setHidden] = useState<string[]>(stateRef.current.hidden)
  const [filter, setFilter] = useState<string | undefined>(stateRef.current.filter)
  const [kinds, setKinds] = useState<string[]>([])
  const [busy, setBusy] = useState(false)
  const [rootSummary, setRootSummary] = useState<string>()
  const rootKey = keyOf(route)

  const writeAddress = () => {
    const params = formatGraphState(stateRef.current)
    written.current = JSON.stringify(params)
    navigate({ page: 'graph', kind: route.kind, id: route.id, params }, true)
  }

  const filterTql = () => searchesRef.current.find((s) => String(s.id) === stateRef.current.filter)?.tql

  const runLayout = () => {
    const cy = cyRef.current
    const l = layout.current
    if (!cy || !l.worker) return
    if (l.running) return void (l.pending = true)
    l.running = true
    l.pending = false
    const request = ++l.request
    const nodes = cy.nodes().map((n) => {
      const placed = l.placed.has(n.id())
      return placed ? { id: n.id(), x: n.position('x'), y: n.position('y') } : { id: n.id() }
    })
    const edges = cy.edges().map((e) => [e.source().id(), e.target().id()] as [string, string])
    setStatus(`Laying out ${nodes.length} items…`)
    l.started = performance.now()
    l.worker.postMessage({ request, nodes, edges })
  }

  const applyLayout = (positions: Record<string, { x: number; y: number }>) => {
    const cy = cyRef.current
    if (!cy) return
    // The view follows the graph as it grows; a layout that only settled what was shown keeps the person's view.
    const grew = Object.keys(positions).some((id) => !layout.current.placed.has(id))
    // One batch: the positions cost one redraw, not one per item.
    cy.batch(() => {
      cy.nodes().forEach((n) => {
        const at = positions[n.id()]
        if (at) n.position(at)
      })
    })
    if (layout.current.drawOnce) {
      layout.current.drawOnce = false
      cy.endBatch()
    }
    if (grew) {
      cy.fit(undefined, 30)
      if (cy.zoom() > 1.5) cy.zoom({ level: 1.5, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } })
      cy.center()
    }
    for (const id of Object.keys(positions)) layout.current.placed.add(id)
    setKinds([...new Set(cy.nodes().map((n) => String(n.data('kind'))))].sort())
    setStatus(`${cy.nodes().length} items, ${cy.edges().length} associations`)
    document.body.dataset.graphNodes = String(cy.nodes().length)
  }

  /** Adds neighbours found from `parent`, each with its edge; returns the tokens not seen before. */
  const addNeighbours = (parent: NodeKey, neighbours: Neighbour[]) => {
    const cy = cyRef.current!
    const parentId = keyOf(parent)
    const parentNode = cy.getElementById(parentId)
    const at = parentNode.nonempty() ? parentNode.position() : { x: 0, y: 0 }
    const elements: ElementDefinition[] = []
    const fresh: NodeKey[] = []
    for (const n of neighbours) {
      const id = keyOf(n)
      const edgeId = edgeIdOf(parent, n, n.associationType)
      if (cy.getElementById(edgeId).nonempty()) continue
      fresh.push(n)
      if (cy.getElementById(id).empty()) elements.push({ ...elementOf(n, false), position: { ...at } })
      elements.push({
        group: 'edges',
        data: {
          id: edgeId,
          source: parentId,
          target: id,
          ...(n.associationType ? { associationType: n.associationType } : {}),
        },
      })
    }
    const added = cy.add(elements)
    added.nodes().forEach((n) => {
      if (stateRef.current.hidden.includes(String(n.data('kind')))) n.addClass('hidden')
    })
    return fresh
  }

  /** Loads the next page of an item's neighbours (its first page when it was not expanded yet). */
  const loadPage = async (node: NodeKey, associationType?: string) => {
    const state = stateRef.current
    const key = expansionKeyOf(node, associationType)
    let index = state.expanded.findIndex((e) => expansionKeyOf(e, e.associationType) === key)
    if (index === -1) {
      state.expanded.push({ ...node, loaded: 0, ...(associationType ? { associationType } : {}) })
      index = state.expanded.length - 1
    }
    const expansion = state.expanded[index]!
    const page = await fetchNeighbours(node, {
      resultStart: expansion.loaded,
      resultLimit: PAGE,
      tql: filterTql(),
      associationType,
    })
    totals.current.set(key, page.count)
    expansion.loaded += page.data.length
    for (const n of addNeighbours(node, page.data))
      state.nodes.push({ parent: index, node: { kind: n.kind, id: n.id } })
    cyRef.current?.getElementById(keyOf(node)).addClass('expanded')
    writeAddress()
    runLayout()
    return { total: page.count, loaded: expansion.loaded }
  }

  /** Selecting shows an item's details; expanding first asks for its counts, then one page. */
  const select = async (key: string, expand: boolean) => {
    const cy = cyRef.current
    const element = cy?.getElementById(key)
    if (!cy || !element || element.empty()) return
    const data = { ...element.data(), id: Number(element.data('itemId')) } as NodeData
    const node = { kind: data.kind, id: data.id }
    // A double-click also selects: only the latest call's answer is shown.
    const call = ++selectCalls.current
    const show = (next: Selected) => call === selectCalls.current && setSelected(next)
    setSelected({ ...data, key })
    setBusy(true)
    setError(undefined)
    try {
      const counted = await fetchGraphNode(node)
      const expansion = stateRef.current.expanded.find((e) => keyOf(e) === key && !e.associationType)
      let total = totals.current.get(key)
      if (expansion && total === undefined) {
        total = (await fetchNeighbours(node, { resultLimit: 1, tql: filterTql() })).count
        totals.current.set(key, total)
      }
      show({ ...data, key, counts: counted.neighbours, total, loaded: expansion?.loaded })
      if (expand && !expansion) {
        const page = await loadPage(node)
        show({ ...data, key, counts: counted.neighbours, ...page })
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }

  /** The next page of the plain association, or of a custom association type's (which keeps the plain totals). */
  const more = async (associationType?: string) => {
    if (!selected) return
    setBusy(true)
    try {
      const page = await loadPage({ kind: selected.kind, id: selected.id }, associationType)
      setSelected(associationType ? { ...selected } : { ...selected, ...page })
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }

  /** Rebuilds the graph the address describes: the root, then each expansion's kept neighbours by id. */
  const rebuild = async (searchList: SavedSearch[]) => {
    const cy = cyRef.current!
    const state = stateRef.current
    // Nothing is drawn until the rebuilt graph is laid out: drawing thousands of items piled on their parent,
    // page after page, would cost the main thread a frame of every item each time.
    if (state.nodes.length > 0) {
      cy.startBatch()
      layout.current.drawOnce = true
    }
    const root = await fetchGraphNode(route)
    setRootSummary(root.summary)
    cy.add(elementOf(root, true))
    for (const [index, expansion] of state.expanded.entries()) {
      const byKind = new Map<string, number[]>()
      for (const { parent, node } of state.nodes)
        if (parent === index) byKind.set(node.kind, [...(byKind.get(node.kind) ?? []), node.id])
      for (const [kind, ids] of byKind)
        for (let at = 0; at < ids.length; at += MAX_PAGE) {
          setStatus(`Loading items… (${cy.nodes().length})`)
          const page = await fetchNeighbours(expansion, {
            kind,
            ids: ids.slice(at, at + MAX_PAGE),
            resultLimit: MAX_PAGE,
            associationType: expansion.associationType,
          })
          addNeighbours(expansion, page.data)
        }
      cy.getElementById(keyOf(expansion)).addClass('expanded')
    }
    // Items that are no longer there (deleted, or no longer readable) leave the address.
    state.nodes = state.nodes.filter(({ parent, node }) => {
      const expansion = state.expanded[parent]!
      return cy.getElementById(edgeIdOf(expansion, node, expansion.associationType)).nonempty()
    })
    if (state.filter && !searchList.some((s) => String(s.id) === state.filter)) {
      state.filter = undefined
      setFilter(undefined)
    }
    writeAddress()
    runLayout()
    if (state.expanded.length === 0) cy.getElementById(rootKey).select()
  }

  useEffect(() => {
    let cancelled = false
    const l = layout.current
    l.worker = new Worker(new URL('../graph/layout.worker.ts', import.meta.url), { type: 'module' })
    l.worker.onmessage = (
      event: MessageEvent<{ request: number; ms: number; positions: Record<string, { x: number; y: number }> }>,
    ) => {
      l.running = false
      // How long the main thread waited for the worker: the browser test holds the main thread to it.
      performance.measure('graph layout', {
        start: l.started,
        detail: {
          nodes: Object.keys(event.data.positions).length,
          workerMs: event.data.ms,
          receivedAt: performance.now(),
        },
      })
      if (cancelled) return
      applyLayout(event.data.positions)
      if (l.pending) runLayout()
    }
    l.worker.onerror = () => setError('The layout could not run')
    void (async () => {
      try {
        const [{ default: cytoscape }, searchList] = await Promise.all([import('cytoscape'), fetchSavedSearches()])
        if (cancelled || !container.current) return
        // cytoscape puts a <style> element in the head unless an element with its id is there. The
        // Content-Security-Policy refuses inline styles, and graph.css positions the container already.
        if (!document.getElementById(CYTOSCAPE_STYLESHEET)) {
          const placeholder = document.createElement('meta')
          placeholder.id = CYTOSCAPE_STYLESHEET
          document.head.append(placeholder)
        }
        setSearches(searchList)
        searchesRef.current = searchList
        const cy = cytoscape({
          container: container.current,
          style: GRAPH_STYLE,
          // Big graphs pan and zoom on a snapshot and without edges; the full drawing follows when they stop.
          textureOnViewport: true,
          hideEdgesOnViewport: true,
          pixelRatio: 1,
          minZoom: 0.05,
          maxZoom: 4,
          selectionType: 'single',
          boxSelectionEnabled: false,
        })
        cyRef.current = cy
        // The browser test measures and drives the canvas through it; a page script of this origin is all that sees it.
        ;(window as unknown as { __graph?: Core }).__graph = cy
        cy.on('select', 'node', (event) => void select(event.target.id(), false))
        cy.on('dbltap', 'node', (event) => void select(event.target.id(), true))
        cy.on('unselect', 'node', () => setSelected(undefined))
        await rebuild(searchList)
      } catch (e) {
        if (!cancelled) setError(e instanceof Error ? e.message : String(e))
      }
    })()
    return () => {
      cancelled = true
      l.worker?.terminate()
      cyRef.current?.destroy()
      cyRef.current = undefined
    }
  }, [])

  const toggleKind = (kind: string, show: boolean) => {
    const state = stateRef.current
    state.hidden = show ? state.hidden.filter((k) => k !== kind) : [...state.hidden, kind]
    setHidden(state.hidden)
    cyRef.current?.nodes(`[kind = "${kind}"]`).toggleClass('hidden', !show)
    writeAddress()
  }

  const chooseFilter = (id: string) => {
    stateRef.current.filter = id || undefined
    setFilter(stateRef.current.filter)
    totals.current.clear()
    // Paging positions were in the other filter's list: the next page starts the new one from its beginning
    // (what is shown already is not added twice).
    for (const expansion of stateRef.current.expanded) expansion.loaded = 0
    writeAddress()
  }

  const left = selected?.total !== undefined ? Math.max(0, selected.total - (selected.loaded ?? 0)) : undefined
  const expanded = selected && stateRef.current.expanded.some((e) => keyOf(e) === selected.key && !e.associationType)
  const typedLoaded = (associationType: string) =>
    (selected &&
      stateRef.current.expanded.find((e) => keyOf(e) === selected.key && e.associationType === associationType)
        ?.loaded) ??
    0
  return (
    <article class="graph-page">
      <h1>Graph of {rootSummary ?? `${route.kind} ${route.id}`}</h1>
      <div class="graph-controls">
        <fieldset>
          <legend>Show</legend>
          {kinds.map((kind) => (
            <label key={kind}>
              <input
                type="checkbox"
                checked={!hidden.includes(kind)}
                onChange={(e) => toggleKind(kind, (e.target as HTMLInputElement).checked)}
              />{' '}
              {KIND_STYLE[kind]?.word ?? kind}
            </label>
          ))}
        </fieldset>
        <label>
          Filter Indicators by a saved search{' '}
          <select value={filter ?? ''} onChange={(e) => chooseFilter((e.target as HTMLSelectElement).value)}>
            <option value="">No filter</option>
            {searches.map((s) => (
              <option key={String(s.id)} value={String(s.id)}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <p class="status" role="status">
          {status}
        </p>
      </div>
      {error && <p role="alert">{error}</p>}
      <div class="graph-body">
        <div class="graph-canvas" ref={container} aria-label="Association graph" role="img" />
        <aside class="graph-panel" aria-label="Selected item">
          {!selected ? (
            <p>Select an item to see it; double-click one to expand it.</p>
          ) : (
            <>
              <p class="kind">
                {KIND_STYLE[selected.kind]?.word ?? selected.kind}: {selected.type}
              </p>
              <h2 class="summary">{selected.summary}</h2>
              <dl class="fields">
                <div>
                  <dt>Owner</dt>
                  <dd>{selected.owner}</dd>
                </div>
                {selected.rating !== null && (
                  <div>
                    <dt>Rating</dt>
                    <dd>{selected.rating}</dd>
                  </div>
                )}
                <div>
                  <dt>Neighbours</dt>
                  <dd>{selected.counts ? selected.counts.reduce((sum, c) => sum + c.count, 0) : selected.degree}</dd>
                </div>
              </dl>
              <p>
                <a href={`#/details/${selected.kind}/${selected.id}/overview`}>Open</a>
              </p>
              {selected.counts && (
                <table class="graph-counts">
                  <caption>Neighbours by kind and type</caption>
                  <tbody>
                    {selected.counts.map((c) => (
                      <tr key={`${c.kind}/${c.type}/${c.associationType}`}>
                        <td>{KIND_STYLE[c.kind]?.word ?? c.kind}</td>
                        <td>
                          {c.type}
                          {c.associationType ? ` (${c.associationType})` : ''}
                        </td>
                        <td class="count">{c.count}</td>
                        {c.associationType && (
                          <td>
                            {c.count > typedLoaded(c.associationType) && (
                              <button
                                type="button"
                                disabled={busy}
                                onClick={() => void more(c.associationType ?? undefined)}
                              >
                                Show {Math.min(PAGE, c.count - typedLoaded(c.associationType))}
                              </button>
                            )}
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              {!expanded ? (
                <button type="button" disabled={busy} onClick={() => void select(selected.key, true)}>
                  Expand ({PAGE} at most)
                </button>
              ) : left !== undefined && left > 0 ? (
                <button type="button" disabled={busy} onClick={() => void more()}>
                  Load {Math.min(PAGE, left)} more ({left} left)
                </button>
              ) : (
                left !== undefined && <p>Every neighbour is shown.</p>
              )}
            </>
          )}
        </aside>
      </div>
      <p class="graph-root">
        <a href={`#/details/${route.kind}/${route.id}/overview`}>The item's page</a>
      </p>
    </article>
  )
}
