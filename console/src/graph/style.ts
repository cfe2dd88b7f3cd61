/**
 * How the graph draws: a shape and colour per kind, a lighter or darker shade per type within a kind, and
 * labels drawn on the canvas (a node's summary is intelligence text: it is never HTML). Edges of a custom
 * association type carry its name and a dashed line.
 */
import type { StylesheetJson } from 'cytoscape'

export const KIND_STYLE: Record<string, { shape: string; colour: string; word: string }> = {
  groups: { shape: 'round-rectangle', colour: '#7b3fa0', word: 'Groups' },
  indicators: { shape: 'ellipse', colour: '#0b57d0', word: 'Indicators' },
  victims: { shape: 'diamond', colour: '#b3261e', word: 'Victims' },
  victimAssets: { shape: 'triangle', colour: '#c2510f', word: 'Victim Assets' },
  cases: { shape: 'hexagon', colour: '#146c2e', word: 'Cases' },
  tasks: { shape: 'rectangle', colour: '#5f6368', word: 'Tasks' },
  artifacts: { shape: 'tag', colour: '#8a6d00', word: 'Artifacts' },
  intelRequirements: { shape: 'star', colour: '#006b75', word: 'Intelligence Requirements' },
}

/** A stable shade of the kind's colour for a type, so Hosts and Addresses differ at a glance. */
export function colourOf(kind: string, type: string): string {
  const base = KIND_STYLE[kind]?.colour ?? '#444444'
  let hash = 0
  for (const c of type) hash = (hash * 31 + c.charCodeAt(0)) >>> 0
  const shift = (hash % 5) * 14 - 28
  const channel = (at: number) =>
    Math.max(0, Math.min(255, parseInt(base.slice(at, at + 2), 16) + shift))
      .toString(16)
      .padStart(2, '0')
  return `#${channel(1)}${channel(3)}${channel(5)}`
}

export const GRAPH_STYLE: StylesheetJson = [
  {
    selector: 'node',
    style: {
      shape: 'data(shape)' as never,
      'background-color': 'data(colour)',
      label: 'data(label)',
      'font-size': 10,
      color: '#1b1f24',
      'text-valign': 'bottom',
      'text-margin-y': 3,
      // Labels come shortened (Graph.tsx): cytoscape's own ellipsis measures each label character by character.
      // Labels of 2,000 nodes are what costs when zoomed out; below a readable size they are not drawn.
      'min-zoomed-font-size': 8,
      width: 22,
      height: 22,
    },
  },
  { selector: 'node.hidden', style: { display: 'none' } },
  { selector: 'node.root', style: { width: 34, height: 34, 'border-width': 3, 'border-color': '#1b1f24' } },
  { selector: 'node.expanded', style: { 'border-width': 2, 'border-color': '#1b1f24' } },
  { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#f9ab00' } },
  {
    selector: 'edge',
    style: { width: 1, 'line-color': '#9aa3ad', 'curve-style': 'haystack', 'haystack-radius': 0 },
  },
  {
    selector: 'edge[associationType]',
    style: {
      'line-style': 'dashed',
      'curve-style': 'straight',
      label: 'data(associationType)',
      'font-size': 8,
      'line-color': '#5f6368',
    },
  },
]
