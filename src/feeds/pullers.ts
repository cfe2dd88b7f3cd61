/**
 * The puller of each feed kind (domain/feeds/pull.ts says what one is). The worker's scheduler and
 * `bulwark feeds run` take theirs from here.
 */
import type { FeedKind } from '../domain/feeds/feed.js'
import type { Puller } from '../domain/feeds/pull.js'
import { csvListPuller, textListPuller } from './pull/lists.js'
import { mispPuller } from './pull/misp.js'
import { createTaxii11Puller } from './pull/taxii11.js'
import { createTaxii21Puller } from './pull/taxii21.js'

export const PULLERS: Record<FeedKind, Puller> = {
  taxii21: createTaxii21Puller(),
  taxii11: createTaxii11Puller(),
  misp: mispPuller,
  csv: csvListPuller,
  text: textListPuller,
}
