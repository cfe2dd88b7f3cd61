/**
 * When a change of metadata is a change of the item it is on. An Indicator's tags and Security
 * Labels are part of what it says: they are the `labels` and `object_marking_refs` of its STIX
 * object, and feeds (TAXII 2.1 and 1.1, v2 `modifiedSince`, TQL on lastModified) find changes by
 * lastModified. So adding or removing one, or renaming or deleting a tag or label that an
 * Indicator carries, moves the Indicator's lastModified; otherwise a reader that asked for what
 * changed since its last poll would never see it, and one STIX id and `modified` would name two
 * different objects. Other kinds keep lastModified for their own fields: nothing serves them as a
 * feed. Attributes are not part of an Indicator's STIX object and leave it alone. The batch API's
 * writer stamps every existing Indicator it touches already (write.ts updateIndicators).
 */
import type { Kysely } from 'kysely'
import type { ItemKind } from '../../model/kinds.js'
import type { Database } from '../../store/database.js'
import { stampIndicators } from '../../store/repositories/metadata.repository.js'
import { type Marker, stampIndicatorsMarkedBy } from '../../store/repositories/tag.repository.js'

/** The item's tags or labels changed; call in the same transaction as the change. */
export async function markingsChanged(
  db: Kysely<Database>,
  item: { kind: ItemKind; id: number },
  now: string,
): Promise<void> {
  if (item.kind === 'indicator') await stampIndicators(db, [item.id], now)
}

/** A tag or label is about to be renamed or deleted; call before its links go, in the same transaction. */
export async function markerChanging(db: Kysely<Database>, marker: Marker, now: string): Promise<void> {
  await stampIndicatorsMarkedBy(db, marker, now)
}
