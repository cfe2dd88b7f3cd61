/**
 * Runs a multi-row write in one transaction. Inside, `ctx.store.db` IS the transaction, so
 * every domain function called with that context joins it; this matters on SQLite, where a
 * query on the outer handle would wait for the open transaction forever. Nested calls reuse
 * the transaction already open.
 *
 * @example await withTransaction(ctx, async (tctx) => { await createCaseIn(tctx, body); await addTag(tctx, item, 'x', tctx.store.db) })
 */
import type { RequestContext } from './context.js'

export async function withTransaction<T>(ctx: RequestContext, work: (tctx: RequestContext) => Promise<T>): Promise<T> {
  if (ctx.store.db.isTransaction) return work(ctx)
  return ctx.store.db.transaction().execute((trx) => work({
    ...ctx, store: { ...ctx.store, db: trx }, services: { ...ctx.services, settings: ctx.services.settings.within(trx) },
  }))
}

/** The same for code written against a bare db handle: joins the open transaction or opens one. */
export async function withTransactionDb<T>(ctx: RequestContext, work: (db: RequestContext['store']['db']) => Promise<T>): Promise<T> {
  return withTransaction(ctx, (tctx) => work(tctx.store.db))
}
