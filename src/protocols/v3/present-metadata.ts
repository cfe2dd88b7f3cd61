/** v3 shapes shared by many endpoints: attributes, tags, security labels, user references. */
import type { AttributeView } from '../../domain/metadata/item-metadata.js'
import type { SecurityLabel } from '../../domain/metadata/security-labels.js'
import type { Tag } from '../../domain/metadata/tags.js'
import { toApiTime } from '../../core/time.js'
import type { UserRef } from '../../domain/access/user-refs.js'

/** Drops undefined and null so absent values are left out, as the platform does. */
export function compact(value: Record<string, unknown>): Record<string, unknown> {
  // Every presented object passes here. for…in over a plain object reads each value through V8's
  // enum cache, where a loop over Object.keys made a keyed look-up per field (and the key array).
  const out: Record<string, unknown> = {}
  for (const key in value) {
    const v = value[key]
    if (v !== undefined && v !== null) out[key] = v
  }
  return out
}

export function presentUser(user: UserRef | null | undefined): Record<string, unknown> | undefined {
  if (!user) return undefined
  return compact({
    id: user.id,
    userName: user.userName,
    firstName: user.firstName,
    lastName: user.lastName,
    pseudonym: user.pseudonym,
    owner: user.owner,
  })
}

export function presentAttribute(a: AttributeView): Record<string, unknown> {
  return compact({
    id: a.id,
    dateAdded: toApiTime(a.dateAdded),
    type: a.type,
    value: a.value,
    source: a.source,
    lastModified: toApiTime(a.lastModified),
    pinned: a.pinned,
    default: a.displayed,
  })
}

export function presentLabel(l: SecurityLabel): Record<string, unknown> {
  return compact({
    id: l.id,
    name: l.name,
    description: l.description,
    color: l.color,
    dateAdded: toApiTime(l.dateAdded),
    owner: l.ownerName,
  })
}

export function presentTag(t: Tag): Record<string, unknown> {
  return compact({
    id: t.id,
    name: t.name,
    owner: t.ownerName,
    description: t.description,
    lastUsed: toApiTime(t.lastUsed),
    techniqueId: t.techniqueId,
  })
}
