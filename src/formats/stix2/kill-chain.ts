/**
 * A STIX object's `kill_chain_phases`, kept as attributes of the Indicators and Groups it makes
 * (docs/import.md "Kill chain phases") and served back from them. A phase of Lockheed Martin's
 * kill chain is the platform's own `Attack Phase` attribute (its seven values are that chain's
 * phases), so analysts see and filter it as they do one they set; a phase of any other chain
 * (ATT&CK's tactics, a vendor's) is `Additional Analysis and Context` as
 * `kill_chain_phase: <kill_chain_name>: <phase_name>`, as the import keeps confidence and aliases.
 */
import { STIX_EXTRA_ATTRIBUTE } from './stix.js'

export const ATTACK_PHASE_ATTRIBUTE = 'Attack Phase'
const LOCKHEED = 'lockheed-martin-cyber-kill-chain'
const KEY = 'kill_chain_phase: '

/** Lockheed Martin's phases as STIX names them, and as the Attack Phase attribute's values (model/reference-data.ts). */
const ATTACK_PHASES: ReadonlyMap<string, string> = new Map([
  ['reconnaissance', 'Reconnaissance'],
  ['weaponization', 'Weaponization'],
  ['delivery', 'Delivery'],
  ['exploitation', 'Exploitation'],
  ['installation', 'Installation'],
  ['command-and-control', 'Command and Control'],
  ['actions-on-objectives', 'Actions on Objectives'],
])
const PHASE_OF_ATTACK_PHASE = new Map([...ATTACK_PHASES].map(([phase, value]) => [value, phase]))

/** What the import keeps of a name: the phase names STIX recommends are lower case and hyphenated; others are kept as given. */
const NAME = /^[^\s:][^:]{0,199}$/

/** The attributes of an object's kill chain phases, one per phase (no two alike). */
export function killChainAttributes(o: Record<string, unknown>): { type: string; value: string }[] {
  const phases = Array.isArray(o.kill_chain_phases) ? o.kill_chain_phases : []
  const out = new Map<string, { type: string; value: string }>()
  for (const p of phases as Record<string, unknown>[]) {
    if (!p || typeof p !== 'object') continue
    const chain = p.kill_chain_name
    const phase = p.phase_name
    if (typeof chain !== 'string' || typeof phase !== 'string' || !NAME.test(chain) || !NAME.test(phase.trim()))
      continue
    const lockheed = chain === LOCKHEED ? ATTACK_PHASES.get(phase) : undefined
    const attribute = lockheed
      ? { type: ATTACK_PHASE_ATTRIBUTE, value: lockheed }
      : { type: STIX_EXTRA_ATTRIBUTE, value: `${KEY}${chain}: ${phase.trim()}` }
    out.set(`${attribute.type}|${attribute.value}`, attribute)
  }
  return [...out.values()]
}

/** The kill chain phases an item's attributes hold (those killChainAttributes makes, and Attack Phases set otherwise), sorted. */
export function killChainPhases(
  attributes: readonly { type: string; value: string }[],
): { kill_chain_name: string; phase_name: string }[] {
  const out = new Map<string, { kill_chain_name: string; phase_name: string }>()
  for (const a of attributes) {
    let phase: { kill_chain_name: string; phase_name: string } | undefined
    if (a.type === ATTACK_PHASE_ATTRIBUTE) {
      const name = PHASE_OF_ATTACK_PHASE.get(a.value)
      if (name) phase = { kill_chain_name: LOCKHEED, phase_name: name }
    } else if (a.type === STIX_EXTRA_ATTRIBUTE && a.value.startsWith(KEY)) {
      const rest = a.value.slice(KEY.length)
      const at = rest.indexOf(': ')
      if (at > 0 && at + 2 < rest.length) phase = { kill_chain_name: rest.slice(0, at), phase_name: rest.slice(at + 2) }
    }
    if (phase) out.set(`${phase.kill_chain_name}\n${phase.phase_name}`, phase)
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p)
}
