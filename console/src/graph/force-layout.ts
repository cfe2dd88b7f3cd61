/**
 * A small force-directed layout for the graph's worker (layout.worker.ts): springs along edges, repulsion
 * between nodes found through a grid of cells (each node pushes only those in its own and the eight cells
 * around it), so an iteration costs about the number of nodes, not its square. Nodes already placed start
 * where they are and move less, so a graph that grows keeps its shape.
 */
export interface LayoutInput {
  nodes: { id: string; x?: number; y?: number }[]
  edges: [string, string][]
  iterations?: number
}

export type Positions = Record<string, { x: number; y: number }>

const DISTANCE = 90

export function computeForceLayout(input: LayoutInput): Positions {
  const n = input.nodes.length
  const index = new Map(input.nodes.map((node, i) => [node.id, i]))
  const x = new Float64Array(n)
  const y = new Float64Array(n)
  const settled = new Uint8Array(n)
  const neighbours: number[][] = input.nodes.map(() => [])
  const edges: [number, number][] = []
  for (const [a, b] of input.edges) {
    const i = index.get(a)
    const j = index.get(b)
    if (i === undefined || j === undefined || i === j) continue
    edges.push([i, j])
    neighbours[i]!.push(j)
    neighbours[j]!.push(i)
  }
  placeNewNodes(input, x, y, settled, neighbours)
  const iterations = input.iterations ?? 120
  const cell = DISTANCE * 2
  for (let step = 0; step < iterations; step++) {
    const heat = DISTANCE * 0.5 * (1 - step / iterations) + 1
    const dx = new Float64Array(n)
    const dy = new Float64Array(n)
    const grid = new Map<string, number[]>()
    for (let i = 0; i < n; i++) {
      const key = `${Math.floor(x[i]! / cell)},${Math.floor(y[i]! / cell)}`
      const bucket = grid.get(key)
      if (bucket) bucket.push(i)
      else grid.set(key, [i])
    }
    for (let i = 0; i < n; i++) {
      const cx = Math.floor(x[i]! / cell)
      const cy = Math.floor(y[i]! / cell)
      for (let gx = cx - 1; gx <= cx + 1; gx++)
        for (let gy = cy - 1; gy <= cy + 1; gy++)
          for (const j of grid.get(`${gx},${gy}`) ?? []) {
            if (j === i) continue
            let ux = x[i]! - x[j]!
            let uy = y[i]! - y[j]!
            let d2 = ux * ux + uy * uy
            if (d2 === 0) {
              ux = ((i * 7919) % 13) - 6 || 1
              uy = ((j * 104729) % 11) - 5 || 1
              d2 = ux * ux + uy * uy
            }
            if (d2 > cell * cell) continue
            const force = (DISTANCE * DISTANCE) / d2
            dx[i] += ux * force * 0.5
            dy[i] += uy * force * 0.5
          }
    }
    for (const [i, j] of edges) {
      const ux = x[j]! - x[i]!
      const uy = y[j]! - y[i]!
      const d = Math.sqrt(ux * ux + uy * uy) || 1
      // A hub with many leaves pulls each one weakly, or the leaves would collapse onto it.
      const pull = (d - DISTANCE) / d / Math.sqrt(Math.min(neighbours[i]!.length, neighbours[j]!.length))
      dx[i] += ux * pull * 0.5
      dy[i] += uy * pull * 0.5
      dx[j] -= ux * pull * 0.5
      dy[j] -= uy * pull * 0.5
    }
    for (let i = 0; i < n; i++) {
      const limit = settled[i] ? heat * 0.25 : heat
      const d = Math.sqrt(dx[i]! * dx[i]! + dy[i]! * dy[i]!)
      if (d === 0) continue
      const move = Math.min(d, limit) / d
      x[i] += dx[i]! * move
      y[i] += dy[i]! * move
    }
  }
  const positions: Positions = {}
  input.nodes.forEach((node, i) => (positions[node.id] = { x: Math.round(x[i]!), y: Math.round(y[i]!) }))
  return positions
}

/** New nodes start on rings around a placed neighbour (the one they were found from), else around the origin. */
function placeNewNodes(
  input: LayoutInput,
  x: Float64Array,
  y: Float64Array,
  settled: Uint8Array,
  neighbours: number[][],
) {
  const children = new Map<number, number[]>()
  input.nodes.forEach((node, i) => {
    if (node.x !== undefined && node.y !== undefined) {
      x[i] = node.x
      y[i] = node.y
      settled[i] = 1
    }
  })
  const unplaced: number[] = []
  input.nodes.forEach((_, i) => {
    if (settled[i]) return
    const anchor = neighbours[i]!.find((j) => settled[j]) ?? -1
    if (anchor === -1) return unplaced.push(i)
    const list = children.get(anchor)
    if (list) list.push(i)
    else children.set(anchor, [i])
  })
  ringAround(0, 0, unplaced, x, y)
  for (const [anchor, list] of children) ringAround(x[anchor]!, y[anchor]!, list, x, y)
}

function ringAround(cx: number, cy: number, list: number[], x: Float64Array, y: Float64Array) {
  let placed = 0
  for (let ring = 1; placed < list.length; ring++) {
    const count = Math.min(Math.floor(2 * Math.PI * ring * 1.5), list.length - placed)
    for (let k = 0; k < count; k++, placed++) {
      const angle = (2 * Math.PI * k) / count + ring * 0.3
      x[list[placed]!] = cx + Math.cos(angle) * ring * DISTANCE
      y[list[placed]!] = cy + Math.sin(angle) * ring * DISTANCE
    }
  }
}
