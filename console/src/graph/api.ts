/** The graph's requests: an item with its neighbour counts, a page of neighbours, the saved searches. */
import { type SavedSearch, listSavedSearches } from '../saved-searches.js'
import { api } from '../api.js'
import type { NodeKey } from './state.js'

export interface GraphNode {
  id: number
  kind: string
  type: string
  summary: string
  owner: string
  rating: number | null
}

export interface NeighbourCount {
  kind: string
  type: string
  associationType: string | null
  count: number
}

export type Neighbour = GraphNode & { degree: number; degreeCapped?: boolean; associationType: string | null }

export const PAGE = 25
/** The most the server gives in one page; a rebuild asks for kept ids this many at a time. */
export const MAX_PAGE = 100

const base = (node: NodeKey) => `/api/v3/graph/${encodeURIComponent(node.kind)}/${node.id}`

export async function fetchGraphNode(node: NodeKey) {
  return (await api<{ data: GraphNode & { neighbours: NeighbourCount[]; degree: number } }>(base(node))).data
}

export async function fetchNeighbours(
  node: NodeKey,
  options: {
    resultStart?: number
    resultLimit?: number
    tql?: string
    kind?: string
    ids?: number[]
    associationType?: string
  },
) {
  const params = new URLSearchParams()
  if (options.associationType) params.set('associationType', options.associationType)
  if (options.kind) params.set('kind', options.kind)
  if (options.ids) params.set('ids', options.ids.join(','))
  if (options.tql) params.set('tql', options.tql)
  params.set('resultStart', String(options.resultStart ?? 0))
  params.set('resultLimit', String(options.resultLimit ?? PAGE))
  return api<{ data: Neighbour[]; count: number }>(`${base(node)}/neighbours?${params}`)
}

/** The saved searches offered as filters: those over Indicators, the kind a neighbour page's `tql` narrows. */
export async function fetchSavedSearches(): Promise<SavedSearch[]> {
  return (await listSavedSearches()).filter((s) => s.kind === 'indicators')
}
