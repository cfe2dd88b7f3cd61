/**
 * STAND-IN, replaced at merge by the mirror mode's own module (feeds lists helper): a CSV or text feed
 * in mirror mode notes the values each run brings and turns inactive those a complete list no longer
 * holds. Here both do nothing, so the run (run-feed.ts) can call them already.
 */
import type { RequestContext } from '../context.js'

/** Notes the values a page of a mirrored list brought in this run. */
export async function noteListValues(
  _ctx: RequestContext,
  _feedId: number,
  _runId: number,
  _values: { type: string; summary: string }[],
): Promise<void> {}

/** Turns inactive the values the feed brought before and this run's complete list did not; their number. */
export async function retireMissingValues(_ctx: RequestContext, _feedId: number, _runId: number): Promise<number> {
  return 0
}
