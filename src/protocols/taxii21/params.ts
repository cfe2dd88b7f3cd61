/**
 * The TAXII 2.1 query parameters (§3.4): limit, added_after, next and match[…], each at most
 * once; a malformed one is a 400. `next` is a stateless keyset position, so any server
 * process can serve the following page.
 */
import { MAX_FEED_PAGE } from '../../domain/listing/feed.js'
import { invalid } from '../../core/errors.js'

export const DEFAULT_PAGE = 1000
export const MAX_PAGE = MAX_FEED_PAGE

/** Where a walk of a collection stands: in its marking definitions, among its Indicators, or among its Groups and relationships. */
export type Position =
  | { phase: 'marking'; index: number }
  | { phase: 'indicator'; lastModified: string; id: number }
  | { phase: 'graph'; dateAdded: string; id: string }

export interface ObjectFilters {
  limit: number
  /** Stored-time form (milliseconds), exclusive. */
  addedAfter?: string
  position?: Position
  ids?: string[]
  types?: Set<string>
  /** Exact versions (STIX `modified`, stored form); undefined when last/first/all (one version per object here). */
  versions?: Set<string>
  /** False when match[spec_version] names no version this server has (2.1). */
  specVersionMatches: boolean
}

type Query = Record<string, string | string[] | undefined>

function single(query: Query, name: string): string | undefined {
  const value = query[name]
  if (Array.isArray(value)) throw invalid(`The query parameter ${name} may be given only once`)
  return value
}

function list(query: Query, name: string): string[] | undefined {
  const value = single(query, name)
  if (value === undefined) return undefined
  const items = value.split(',').map((v) => v.trim())
  if (items.some((v) => v === '')) throw invalid(`${name} has an empty value`)
  return items
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i

/**
 * An RFC 3339 timestamp in stored form, cut (not rounded) to milliseconds: stored times have
 * millisecond resolution, so "after …123456" and "after …123" select the same rows.
 */
export function parseTimestamp(text: string, name: string): string {
  const m = TIMESTAMP.exec(text.trim())
  const date = m
    ? new Date(
        `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${(m[7] ?? '').padEnd(3, '0').slice(0, 3)}${m[8].toUpperCase()}`,
      )
    : undefined
  if (!date || Number.isNaN(date.getTime()))
    throw invalid(`${name} must be an RFC 3339 timestamp, e.g. 2026-01-02T03:04:05.678000Z`)
  return date.toISOString()
}

/** A TAXII timestamp (§2: microsecond precision) from a stored one. */
export function taxiiTimestamp(stored: string): string {
  return `${stored.slice(0, 23)}000Z`
}

export function encodePosition(p: Position): string {
  const text =
    p.phase === 'marking'
      ? `m${p.index}`
      : p.phase === 'indicator'
        ? `i${p.lastModified}|${p.id}`
        : `g${p.dateAdded}|${p.id}`
  return Buffer.from(text, 'utf8').toString('base64url')
}

export function decodePosition(next: string): Position {
  const text = /^[A-Za-z0-9_-]+$/.test(next) ? Buffer.from(next, 'base64url').toString('utf8') : ''
  let m = /^m(\d{1,2})$/.exec(text)
  if (m) return { phase: 'marking', index: Number(m[1]) }
  m = /^i(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|(\d{1,15})$/.exec(text)
  if (m && !Number.isNaN(Date.parse(m[1]))) return { phase: 'indicator', lastModified: m[1], id: Number(m[2]) }
  m = /^g(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([a-z][a-z0-9-]{0,62}--[0-9a-f-]{36})$/.exec(text)
  if (m && !Number.isNaN(Date.parse(m[1]))) return { phase: 'graph', dateAdded: m[1], id: m[2] }
  throw invalid('next is not a value this server gave out')
}

export function parseLimit(query: Query): number {
  const text = single(query, 'limit')
  if (text === undefined) return DEFAULT_PAGE
  if (!/^\d{1,12}$/.test(text.trim()) || Number(text) < 1) throw invalid('limit must be a positive integer')
  return Math.min(Number(text), MAX_PAGE)
}

export function parseFilters(
  query: Query,
  allowed: { id?: boolean; type?: boolean; version?: boolean },
): ObjectFilters {
  const added = single(query, 'added_after')
  const next = single(query, 'next')
  const filters: ObjectFilters = {
    limit: parseLimit(query),
    addedAfter: added === undefined ? undefined : parseTimestamp(added, 'added_after'),
    position: next === undefined ? undefined : decodePosition(next),
    specVersionMatches: true,
  }
  if (allowed.id) filters.ids = list(query, 'match[id]')
  if (allowed.type) {
    const types = list(query, 'match[type]')
    if (types) filters.types = new Set(types)
  }
  if (allowed.version) {
    const versions = list(query, 'match[version]')
    if (versions && !versions.some((v) => v === 'last' || v === 'first' || v === 'all')) {
      filters.versions = new Set(versions.map((v) => parseTimestamp(v, 'match[version]')))
    }
  }
  const specVersions = list(query, 'match[spec_version]')
  if (specVersions) filters.specVersionMatches = specVersions.includes('2.1')
  return filters
}
