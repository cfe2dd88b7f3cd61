/**
 * An outbound list: a named TQL query over Indicators, saved by an administrator, that a firewall
 * (Palo Alto EDL, FortiGate threat feed, pfSense alias …) reads at a stable URL as one value per
 * line, or as CSV (docs/lists.md). It is a saved search: the console may list and reuse the same
 * definitions. What it serves to a reader is always narrowed to what that reader may read.
 */
import { invalid } from '../../core/errors.js'
import { findIndicatorType } from '../../model/indicator-types.js'

/** A list's name is part of its URL, so it stays to characters a URL carries as they are. */
export const LIST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export const LIST_FORMATS = ['text', 'csv'] as const
export type ListFormat = (typeof LIST_FORMATS)[number]

/** The file name a format is served under, after the list's name. */
export const LIST_FILES: Record<ListFormat, string> = { text: 'values.txt', csv: 'values.csv' }

/** A list as administrators see it. */
export interface OutboundList {
  name: string
  /** The list's TQL: the saved search's current TQL when it follows one. */
  tql: string
  /** The saved search whose TQL the list follows (docs/lists.md). */
  savedSearch?: { id: number; name: string }
  /** Indicator type names the list keeps; absent: every type. */
  types?: string[]
  /** Owners whose Indicators the list keeps (of those the reader may read); absent: every owner the reader may read. */
  owners?: string[]
  /** Where a consumer reads it, by format. */
  urls: Record<ListFormat, string>
  createdBy?: number
  dateAdded: string
  lastModified: string
}

/** What an administrator gives to save a list. */
export interface OutboundListInput {
  name: string
  /** The TQL, or absent when the list follows `savedSearch`. */
  tql?: string
  /** A saved search of Indicators whose current TQL the list serves, instead of `tql`. */
  savedSearch?: number
  types?: string[]
  owners?: string[]
}

/** `name` checked as a list name, for saving and look-ups alike. */
export function requireListName(name: unknown): string {
  if (typeof name !== 'string' || !LIST_NAME.test(name))
    throw invalid(
      'A list name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit',
    )
  return name
}

/**
 * Indicator type names, from names, entities or API branches in any case (`Address`, `addresses`,
 * `host`): each as the platform spells it, once. Unknown names are refused, named.
 */
export function readIndicatorTypes(values: readonly string[], what: string): string[] {
  const types: string[] = []
  for (const value of values) {
    const trimmed = value.trim()
    if (trimmed === '') continue
    const type = findIndicatorType(trimmed)
    if (!type) throw invalid(`${what}: '${trimmed}' is not an Indicator type`)
    if (!types.includes(type.name)) types.push(type.name)
  }
  return types
}

/** The URLs of a list under a public base URL (config's BULWARK_PUBLIC_URL). */
export function listUrls(publicUrl: string, name: string): Record<ListFormat, string> {
  const base = `${publicUrl.replace(/\/+$/, '')}/api/v3/lists/${encodeURIComponent(name)}`
  return { text: `${base}/${LIST_FILES.text}`, csv: `${base}/${LIST_FILES.csv}` }
}
