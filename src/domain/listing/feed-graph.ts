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
  to: { kind: 'group' | 'indicator'; id: number }
  dateAdded: string
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
      ...links.groups.map((l) => ({
        groupId: l.from_id,
        to: { kind: 'group' as const, id: l.to_id },
        dateAdded: l.date_added,
      })),
      ...links.indicators.map((l) => ({
        groupId: l.from_id,
        to: { kind: 'indicator' as const, id: l.to_id },
        dateAdded: l.date_added,
      })),
    ].filter((l) => served.has(l.groupId) && (l.to.kind === 'indicator' || served.has(l.to.id))),
  }
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
