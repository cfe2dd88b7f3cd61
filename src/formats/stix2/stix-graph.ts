/**
 * An owner's Groups and associations as STIX 2.1 objects (docs/taxii21.md "Groups and
 * relationships"), for TAXII 2.1 collections and the STIX export alike: each Group of a type
 * model/group.ts maps to a STIX domain object becomes that object, under the STIX id it was
 * imported with (its xid) or else an id derived as an Indicator's is; each association between
 * two served objects becomes a `relationship`, or, where one end is a Report (or an Event's
 * grouping), an entry of that object's `object_refs`.
 */
import type { FeedGraph, FeedGroup, FeedLink } from '../../domain/listing/feed-graph.js'
import { GROUP_SUBTYPES } from '../../model/group.js'
import { killChainPhases } from './kill-chain.js'
import { STIX_EXTRA_ATTRIBUTE, STIX_ID_ATTRIBUTE, type StixIds, type StixMarking, markingOf } from './stix.js'

/**
 * The Group types served, with their STIX type: every type whose declared STIX 2.1 object is a
 * domain object Bulwark can fill. Signature (an indicator whose pattern is the file's text in
 * another language) and Email (an observable with references to address objects) are not served.
 */
export const SERVED_GROUP_TYPES: ReadonlyMap<string, string> = new Map(
  GROUP_SUBTYPES.flatMap((s): [string, string][] => {
    const type = (s.stix21 as { type?: string }).type
    return type && type !== 'indicator' && type !== 'email-message' ? [[s.name, type]] : []
  }),
)

/** STIX types whose associations are their `object_refs`, not relationships. */
const CONTAINERS = new Set(['report', 'grouping'])

/** STIX types with `first_seen` / `last_seen`, and with `aliases`. */
const SEEN = new Set(['threat-actor', 'intrusion-set', 'campaign', 'malware'])
const ALIASED = new Set(['threat-actor', 'intrusion-set', 'campaign', 'malware', 'tool'])
/** STIX types with `kill_chain_phases` (an indicator's are served by stix.ts). */
const PHASED = new Set(['attack-pattern', 'malware', 'tool'])

/**
 * The relationship type of an association, by the types of its two ends: the first rule that
 * fits either way round (so its direction is the rule's), else `related-to`. From STIX 2.1's
 * relationship summaries (§4), for the types served.
 */
const RELATIONSHIP_RULES: readonly [source: string, type: string, targets: readonly string[]][] = [
  ['indicator', 'indicates', ['attack-pattern', 'campaign', 'intrusion-set', 'malware', 'threat-actor', 'tool']],
  ['course-of-action', 'mitigates', ['attack-pattern', 'indicator', 'malware', 'tool', 'vulnerability']],
  ['campaign', 'attributed-to', ['intrusion-set', 'threat-actor']],
  ['intrusion-set', 'attributed-to', ['threat-actor']],
  ['campaign', 'uses', ['attack-pattern', 'malware', 'tool']],
  ['intrusion-set', 'uses', ['attack-pattern', 'malware', 'tool']],
  ['threat-actor', 'uses', ['attack-pattern', 'malware', 'tool']],
  ['malware', 'uses', ['attack-pattern', 'tool']],
  ['attack-pattern', 'uses', ['malware', 'tool']],
  ['tool', 'delivers', ['malware']],
  ['campaign', 'targets', ['vulnerability']],
  ['intrusion-set', 'targets', ['vulnerability']],
  ['threat-actor', 'targets', ['vulnerability']],
  ['malware', 'targets', ['vulnerability']],
  ['tool', 'targets', ['vulnerability']],
  ['attack-pattern', 'targets', ['vulnerability']],
]

export function relationshipType(a: string, b: string): { type: string; reversed: boolean } {
  for (const [source, type, targets] of RELATIONSHIP_RULES) {
    if (source === a && targets.includes(b)) return { type, reversed: false }
    if (source === b && targets.includes(a)) return { type, reversed: true }
  }
  return { type: 'related-to', reversed: false }
}

/** A STIX identifier of the given type (RFC 4122 UUID, as the STIX 2.1 schemas check it). */
const isStixId = (id: string, type: string) =>
  id.startsWith(`${type}--`) &&
  /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id.slice(type.length + 2))

/** A served object with what TAXII orders and filters it by. */
export interface GraphObject {
  id: string
  type: string
  /** TAXII date_added (stored form): the Group's last change, the association's creation. */
  dateAdded: string
  /** STIX `modified`: the object's version. */
  version: string
  object: Record<string, unknown>
  /** The marking it names, when any. */
  marking?: StixMarking
}

const later = (a: string, b: string) => (a > b ? a : b)

/** The Group's STIX id: its xid when that is a STIX id of its type, else derived from its database id. */
export function groupStixId(ids: StixIds, g: FeedGroup): string | undefined {
  const type = SERVED_GROUP_TYPES.get(g.type)
  if (!type) return undefined
  return g.xid && isStixId(g.xid, type) ? g.xid : ids.group(g.ownerId, type, g.id)
}

/** External references back from the attributes an import made of them (graph.ts groupAttributes). */
function externalReferences(g: FeedGroup): Record<string, string>[] {
  const refs: Record<string, string>[] = []
  for (const a of g.attributes) {
    if (a.type === STIX_ID_ATTRIBUTE) {
      const at = a.value.indexOf(': ')
      if (at > 0 && !a.value.includes('--'))
        refs.push({ source_name: a.value.slice(0, at), external_id: a.value.slice(at + 2) })
    } else if (a.type === 'Source' && /^https?:\/\/[^\s/]+/i.test(a.value)) {
      refs.push({ source_name: new URL(a.value).hostname || 'url', url: a.value })
    }
  }
  return refs
}

function extra(g: FeedGroup, key: string): string | undefined {
  const prefix = `${key}: `
  return g.attributes
    .find((a) => a.type === STIX_EXTRA_ATTRIBUTE && a.value.startsWith(prefix))
    ?.value.slice(prefix.length)
}

function groupObject(g: FeedGroup, id: string, type: string, refs: readonly string[]): GraphObject | undefined {
  if (CONTAINERS.has(type) && refs.length === 0) return undefined
  const created = g.externalDateAdded ?? g.dateAdded
  const modified = later(g.externalLastModified ?? g.lastModified, created)
  const o: Record<string, unknown> = { type, spec_version: '2.1', id, created, modified, name: g.name }
  // The API keeps a Group's description as its displayed Description attribute (the import writes it so).
  const description =
    g.description ||
    (
      g.attributes.find((a) => a.type === 'Description' && a.displayed) ??
      g.attributes.find((a) => a.type === 'Description')
    )?.value
  if (description) o.description = description
  switch (type) {
    case 'malware':
      o.is_family = true
      break
    case 'report':
      o.published = g.publishDate ?? created
      o.object_refs = refs
      break
    case 'grouping':
      o.context = 'suspicious-activity'
      o.object_refs = refs
      break
    case 'threat-actor':
      if (g.type === 'Threat') o.threat_actor_types = ['unknown']
      break
  }
  if (SEEN.has(type)) {
    if (g.firstSeen) o.first_seen = g.firstSeen
    if (g.lastSeen && (!g.firstSeen || g.lastSeen >= g.firstSeen)) o.last_seen = g.lastSeen
  }
  if (ALIASED.has(type)) {
    const aliases = extra(g, 'aliases')
      ?.split(', ')
      .filter((a) => a !== '')
    if (aliases?.length) o.aliases = aliases
  }
  if (PHASED.has(type)) {
    const phases = killChainPhases(g.attributes)
    if (phases.length) o.kill_chain_phases = phases
  }
  const confidence = Number(extra(g, 'confidence'))
  if (Number.isInteger(confidence) && confidence >= 0 && confidence <= 100) o.confidence = confidence
  if (g.tags.length) o.labels = g.tags
  const references = externalReferences(g)
  if (references.length) o.external_references = references
  const marking = markingOf(g.securityLabels)
  if (marking) o.object_marking_refs = [marking.id]
  return { id, type, dateAdded: g.lastModified, version: modified, object: o, marking }
}

/**
 * The served objects of an owner's graph, sorted by date_added then id: its Groups (a Report or
 * Event only with at least one reference, as STIX requires) and one relationship per association
 * between two served objects that is not a container's reference.
 */
export function stixGraphObjects(ids: StixIds, graph: FeedGraph): GraphObject[] {
  const byId = new Map<number, { group: FeedGroup; id: string; type: string }>()
  for (const group of graph.groups) {
    const id = groupStixId(ids, group)
    if (id) byId.set(group.id, { group, id, type: SERVED_GROUP_TYPES.get(group.type)! })
  }
  const refs = new Map<number, string[]>()
  const relationships: GraphObject[] = []
  const addRef = (groupId: number, ref: string) => {
    const list = refs.get(groupId)
    if (list) list.push(ref)
    else refs.set(groupId, [ref])
  }
  for (const link of graph.links) {
    const from = byId.get(link.groupId)
    const to =
      link.to.kind === 'group'
        ? byId.get(link.to.id)
        : {
            id: link.to.stixId ?? ids.indicator(from?.group.ownerId ?? 0, link.to.id),
            type: 'indicator',
            group: undefined,
          }
    if (!from || !to) continue
    const container = CONTAINERS.has(from.type) || CONTAINERS.has(to.type)
    if (CONTAINERS.has(from.type)) addRef(link.groupId, to.id)
    if (to.group && CONTAINERS.has(to.type)) addRef(to.group.id, from.id)
    if (!container) relationships.push(relationship(ids, from.group.ownerId, link, from, to))
  }
  const objects = [...byId.values()].flatMap(({ group, id, type }) => {
    const o = groupObject(group, id, type, (refs.get(group.id) ?? []).sort())
    return o ? [o] : []
  })
  return [...objects, ...relationships].sort((a, b) =>
    a.dateAdded < b.dateAdded ? -1 : a.dateAdded > b.dateAdded ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  )
}

function relationship(
  ids: StixIds,
  ownerId: number,
  link: FeedLink,
  from: { id: string; type: string },
  to: { id: string; type: string },
): GraphObject {
  // The type and direction an import kept, else the pair's rule; an indicator end is the source of a
  // relationship no rule names (`indicator related-to …`), as the import reads them.
  const rule = link.relationship
    ? { type: link.relationship.type, reversed: !link.relationship.groupIsSource }
    : relationshipType(from.type, to.type)
  const [source, target] =
    rule.reversed || (!link.relationship && rule.type === 'related-to' && to.type === 'indicator')
      ? [to, from]
      : [from, to]
  const id = ids.relationship(ownerId, `group:${link.groupId}`, `${link.to.kind}:${link.to.id}`)
  // A type changed by a later import is a new version of the relationship, added then.
  const modified = link.lastModified ?? link.dateAdded
  return {
    id,
    type: 'relationship',
    dateAdded: modified,
    version: modified,
    object: {
      type: 'relationship',
      spec_version: '2.1',
      id,
      created: link.dateAdded,
      modified,
      relationship_type: rule.type,
      source_ref: source.id,
      target_ref: target.id,
    },
  }
}
