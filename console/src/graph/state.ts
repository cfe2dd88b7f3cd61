/**
 * The graph's state as the address holds it, so a reload or a shared link rebuilds the same graph:
 * - `expanded`: the items whose neighbours were asked for, `kind:id~loaded` (how many of its neighbours were
 *   paged in, so "more" resumes there), with `!<type>` for the neighbours by a custom association type (an item
 *   may appear once plain and once per such type); the root is one of them once expanded;
 * - `nodes`: the items shown beyond the root, each `n.kind:id`, n being the index in `expanded` of the item it
 *   was found from (one token per edge: an item found from two expanded items has two);
 * - `hide`: kinds hidden; `filter`: the id of a saved search whose TQL narrows the neighbouring Indicators.
 */
export interface NodeKey {
  kind: string
  id: number
}

export interface Expansion extends NodeKey {
  loaded: number
  /** A custom association type's name; absent for the plain association. */
  associationType?: string
}

export interface GraphState {
  expanded: Expansion[]
  /** Edges from expanded[parent] to the node. */
  nodes: { parent: number; node: NodeKey }[]
  hidden: string[]
  filter?: string
}

export const keyOf = (node: NodeKey) => `${node.kind}:${node.id}`

/** An expansion's identity: its item and association type. */
export const expansionKeyOf = (node: NodeKey, associationType?: string) =>
  `${keyOf(node)}${associationType ? `!${associationType}` : ''}`

const KEY = /^([A-Za-z]+):(\d{1,15})$/

function parseKey(text: string): NodeKey | undefined {
  const match = KEY.exec(text)
  return match ? { kind: match[1]!, id: Number(match[2]) } : undefined
}

const list = (text: string | undefined) => (text ? text.split(',').filter((part) => part !== '') : [])

export function parseGraphState(params: Record<string, string>): GraphState {
  const expanded: Expansion[] = []
  for (const token of list(params.expanded)) {
    const bang = token.indexOf('!')
    const [key, loaded] = (bang === -1 ? token : token.slice(0, bang)).split('~')
    const node = parseKey(key ?? '')
    let associationType: string | undefined
    try {
      associationType = bang === -1 ? undefined : decodeURIComponent(token.slice(bang + 1)) || undefined
    } catch {
      continue
    }
    if (node)
      expanded.push({
        ...node,
        loaded: Math.max(0, Number(loaded) || 0),
        ...(associationType ? { associationType } : {}),
      })
  }
  const nodes: GraphState['nodes'] = []
  for (const token of list(params.nodes)) {
    const dot = token.indexOf('.')
    const parent = Number(token.slice(0, dot))
    const node = parseKey(token.slice(dot + 1))
    if (dot > 0 && node && Number.isInteger(parent) && parent >= 0 && parent < expanded.length)
      nodes.push({ parent, node })
  }
  return {
    expanded,
    nodes,
    hidden: list(params.hide),
    ...(params.filter ? { filter: params.filter } : {}),
  }
}

export function formatGraphState(state: GraphState): Record<string, string> {
  const params: Record<string, string> = {}
  if (state.expanded.length)
    params.expanded = state.expanded
      .map(
        (e) =>
          `${keyOf(e)}${e.loaded ? `~${e.loaded}` : ''}${e.associationType ? `!${encodeURIComponent(e.associationType)}` : ''}`,
      )
      .join(',')
  if (state.nodes.length) params.nodes = state.nodes.map((n) => `${n.parent}.${keyOf(n.node)}`).join(',')
  if (state.hidden.length) params.hide = state.hidden.join(',')
  if (state.filter) params.filter = state.filter
  return params
}
