/// <reference lib="webworker" />
/**
 * The graph's layout, off the main thread: the page posts the nodes (with the positions of those already
 * placed) and edges, and gets every node's position back to apply at once.
 */
import { type LayoutInput, computeForceLayout } from './force-layout.js'

self.onmessage = (event: MessageEvent<LayoutInput & { request: number }>) => {
  const started = performance.now()
  const positions = computeForceLayout(event.data)
  self.postMessage({ request: event.data.request, positions, ms: performance.now() - started })
}
