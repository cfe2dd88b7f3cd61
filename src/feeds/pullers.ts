/**
 * The puller of each feed kind (domain/feeds/pull.ts says what one is). The worker's scheduler and
 * `bulwark feeds run` take theirs from here.
 */
import type { FeedKind } from '../domain/feeds/feed.js'
import type { Puller } from '../domain/feeds/pull.js'

export const PULLERS: Partial<Record<FeedKind, Puller>> = {}
