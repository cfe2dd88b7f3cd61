/**
 * An owner's Groups and their associations as a feed serves them beside its Indicators (TAXII
 * 2.1 collections and the STIX export, docs/taxii21.md "Groups and relationships"): the Groups
 * of the types named, each with its tags, security labels and attributes, and the plain
 * associations between those Groups and between them and the owner's Indicators. Read whole:
 * an owner holds far fewer Groups than Indicators, and the protocol pages over the result.
 */
import type { Store } from '../../store/connect.js'
import { selectFeedGroupLinks, selectFeedGroups } from '../../store/repositories/feed-graph.repository.js'
import { selectLabelNamesInUse } from '../../store/repositories/feed.repository.js'
import type { Caller } from '../context.js'
import { loadAttributes, loadLabels, loadTags } from '../metadata/item-metadata.js'
import { feedOwner } from './feed.js'

export interface FeedGroup {
  id: number
  ownerId: number
  type: string
  name: string
  xid: string | null
  description: string | null
  dateAdded: string
  lastModified: string
  externalDateAdded: string | null
  externalLastModified: string | null
  firstSeen: string | null
  lastSeen: string | null
  publishDate: string | null
  tags: string[]
  securityLabels: string[]
  attributes: { type: string; value: string; displayed: boolean }[]
}

/** A plain association: a Group and a Group of higher id, or a Group and an Indicator. */
export interface FeedLink {
  groupId: number
  /** An Indicator end's source STIX id, when it is served under it (migration 0139). */
  to: { kind: 'group' | 'indicator'; id: number; stixId?: string }
  dateAdded: string
  /** When an import last changed its relationship type (absent: not since its creation). */
  lastModified?: string
  /** The type of the STIX relationship it was imported from, and whether the Group (`groupId`) was its source. */
  relationship?: { type: string; groupIsSource: boolean }
}

export interface FeedGraph {
  groups: FeedGroup[]
  links: FeedLink[]
}

export async function readFeedGraph(
  store: Store,
  caller: Caller,
  ownerId: number,
  groupTypes: readonly string[],
): Promise<FeedGraph> {
  feedOwner(caller, ownerId)
  return loadOwnerGraph(store, ownerId, groupTypes)
}

/**
 * The same graph for a caller whose access to the owner was checked otherwise (the export's
 * context, which reads the owner's Indicators under the owner's read rule).
 */
export async function loadOwnerGraph(store: Store, ownerId: number, groupTypes: readonly string[]): Promise<FeedGraph> {
  const rows = await selectFeedGroups(store.db, ownerId, groupTypes)
  const ids = rows.map((r) => r.id)
  const [tags, labels, attributes, links] = await Promise.all([
    loadTags(store.db, 'group', ids),
    loadLabels(store.db, 'group', ids),
    loadAttributes(store.db, 'group', ids),
    selectFeedGroupLinks(store.db, ownerId),
  ])
  const groups = rows.map((r): FeedGroup => ({
    id: r.id,
    ownerId,
    type: r.type,
    name: r.name,
    xid: r.xid,
    description: r.description,
    dateAdded: r.date_added,
    lastModified: r.last_modified,
    externalDateAdded: r.external_date_added,
    externalLastModified: r.external_last_modified,
    firstSeen: r.first_seen,
    lastSeen: r.last_seen,
    publishDate: r.publish_date,
    tags: (tags.get(r.id) ?? []).map((t) => t.name).sort(),
    securityLabels: (labels.get(r.id) ?? []).map((l) => l.name),
    attributes: (attributes.get(r.id) ?? []).map((a) => ({ type: a.type, value: a.value, displayed: a.displayed })),
  }))
  const served = new Set(ids)
  return {
    groups,
    links: [
      ...links.groups.map((l) => link(l, { kind: 'group', id: l.to_id })),
      ...links.indicators.map((l) =>
        link(l, { kind: 'indicator', id: l.to_id, ...(l.stix_id ? { stixId: l.stix_id } : {}) }),
      ),
    ].filter((l) => served.has(l.groupId) && (l.to.kind === 'indicator' || served.has(l.to.id))),
  }
}

function link(
  row: {
    from_id: number
    date_added: string
    last_modified: string | null
    relationship_type: string | null
    relationship_from_source: number | null
  },
  to: FeedLink['to'],
): FeedLink {
  const out: FeedLink = {
    groupId: row.from_id,
    to,
    dateAdded: row.date_added,
  }
  if (row.last_modified) out.lastModified = row.last_modified
  if (row.relationship_type)
    out.relationship = { type: row.relationship_type, groupIsSource: row.relationship_from_source === 1 }
  return out
}

/** Which of the named security labels are on at least one of the owner's Groups. */
export async function feedGroupLabelsInUse(
  store: Store,
  caller: Caller,
  ownerId: number,
  names: readonly string[],
): Promise<string[]> {
  feedOwner(caller, ownerId)
  return selectLabelNamesInUse(store.db, ownerId, names, 'group')
}
