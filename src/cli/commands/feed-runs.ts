/**
 * `bulwark feeds run NAME [--wait]` and `bulwark feeds history NAME [--limit N]`: a feed's run now and
 * its record, and its past runs (domain/feeds/run-feed.ts; docs/feeds.md, Runs).
 */
import { invalid } from '../../core/errors.js'
import { feedIdOf, feedRunHistory, requestFeedRun, startManualFeedRun } from '../../domain/feeds/run-feed.js'
import type { Services } from '../../domain/services.js'
import { feedRunDeps } from '../../feeds/runner.js'
import type { Store } from '../../store/connect.js'

/**
 * With `wait`, runs the feed in this process and gives its record. Without, makes it due now: this
 * process ends at once, so a server's scheduler (within its poll, 15 s) runs it.
 */
export async function runFeedCommand(store: Store, services: Services, args: { name: string; wait: boolean }) {
  const id = await feedIdOf(store, { name: args.name })
  if (!args.wait) {
    await requestFeedRun(store, id)
    return {
      feed: args.name,
      requested: true,
      message: `a server runs it at its next look for due feeds; \`bulwark feeds history ${args.name}\` shows the run`,
    }
  }
  const run = await (await startManualFeedRun(store, services, id, await feedRunDeps(services))).done
  return { ...run }
}

export async function feedHistoryCommand(store: Store, _services: Services, args: { name: string; limit?: string }) {
  if (args.limit !== undefined && !/^\d+$/.test(args.limit))
    throw invalid('--limit must be a whole number from 1 to 100')
  const id = await feedIdOf(store, { name: args.name })
  const { runs, count } = await feedRunHistory(store, id, {
    limit: args.limit === undefined ? 20 : Number(args.limit),
  })
  return { feed: args.name, count, runs }
}
