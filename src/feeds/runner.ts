/**
 * What a feed's run takes from this folder (domain/feeds/run-feed.ts FeedRunDeps): the puller of each
 * kind and the network under the system's rules. The scheduler, `POST /v3/feeds/{id}/run` and
 * `bulwark feeds run` all build theirs here.
 */
import type { FeedRunDeps } from '../domain/feeds/run-feed.js'
import type { Services } from '../domain/context.js'
import { createFeedHttp } from './http/index.js'
import { PULLERS } from './pullers.js'

/** Reads feedsAllowPrivateNetworks now: a change applies from the next run on. */
export async function feedRunDeps(services: Services): Promise<FeedRunDeps> {
  const allowPrivateNetworks = await services.settings.getBoolean('feedsAllowPrivateNetworks')
  return {
    pullerOf: (kind) => PULLERS[kind],
    http: (feed) => createFeedHttp(feed, { allowPrivateNetworks }),
  }
}
