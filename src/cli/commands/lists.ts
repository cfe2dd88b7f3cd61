/**
 * `bulwark lists add|update|list|show|remove`: outbound lists (domain/lists/, docs/lists.md), managed
 * by the operator as the API lets system administrators. Each answer carries the list's URLs under
 * the server's public URL (BULWARK_PUBLIC_URL), ready to paste into a firewall.
 */
import { isoNow } from '../../core/time.js'
import {
  addOutboundList,
  changeOutboundList,
  listOutboundListViews,
  removeOutboundList,
  showOutboundList,
} from '../../domain/lists/lists.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'

export interface ListArgs {
  name: string
  tql?: string
  /** The id of a saved search whose current TQL the list follows, instead of `tql`. */
  savedSearch?: string
  /** Comma-separated Indicator types (`Address,CIDR`); an empty text removes the narrowing. */
  types?: string
  /** Comma-separated owner names; an empty text removes the narrowing. */
  owners?: string
}

const names = (text: string | undefined) => (text === undefined ? undefined : text.split(','))
const searchId = (text: string | undefined) =>
  text === undefined ? undefined : /^\d{1,15}$/.test(text) ? Number(text) : NaN

export async function addListCommand(store: Store, services: Services, args: ListArgs) {
  const list = await addOutboundList(
    store,
    services.publicUrl,
    {
      name: args.name,
      tql: args.tql ?? (args.savedSearch === undefined ? '' : undefined),
      savedSearch: searchId(args.savedSearch),
      types: names(args.types),
      owners: names(args.owners),
    },
    null,
    isoNow(),
  )
  return { ...list }
}

export async function updateListCommand(store: Store, services: Services, args: ListArgs) {
  const list = await changeOutboundList(
    store,
    services.publicUrl,
    args.name,
    { tql: args.tql, savedSearch: searchId(args.savedSearch), types: names(args.types), owners: names(args.owners) },
    isoNow(),
  )
  return { ...list }
}

export async function listListsCommand(store: Store, services: Services) {
  const lists = await listOutboundListViews(store, services.publicUrl)
  return {
    lists: lists.map((l) => ({
      name: l.name,
      tql: l.tql,
      ...(l.savedSearch ? { savedSearch: l.savedSearch.id } : {}),
      types: l.types,
      owners: l.owners,
      text: l.urls.text,
    })),
  }
}

export async function showListCommand(store: Store, services: Services, args: { name: string }) {
  return { ...(await showOutboundList(store, services.publicUrl, args.name)) }
}

export async function removeListCommand(store: Store, _services: Services, args: { name: string }) {
  await removeOutboundList(store, args.name)
  return { removed: args.name }
}
