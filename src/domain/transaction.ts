/**
 * The one way to run a multi-row write in a transaction. Inside, `ctx.store.db` IS the
 * transaction, so every domain function called with that context joins it; this matters on
 * SQLite, where a write on the outer handle would wait for the open transaction forever, and a
 * read there would not see the transaction's writes (store/engine/sqlite-driver.ts).
 * Nested calls reuse the transaction already open. A function that serves a request takes no
 * `db` parameter: the context carries the handle (docs/ARCHITECTURE.md lists the ones that do).
 *
 * @example await withTransaction(ctx, async (tctx) => { const item = await createCaseIn(tctx, body); await addTag(tctx, item, 'x') })
 */
import type { Kysely } from 'kysely'
import type { Database } from '../store/database.js'
import type { RequestContext } from './context.js'

export async function withTransaction<T>(ctx: RequestContext, work: (tctx: RequestContext) => Promise<T>): Promise<T> {
  if (ctx.store.db.isTransaction) return work(ctx)
  const result = await ctx.store.db.transaction().execute((trx) => work(contextIn(ctx, trx)))
  ctx.store.committed?.()
  return result
}

/** The context whose handle is `trx`, settings included (for a transaction opened elsewhere, e.g. a batch chunk's). */
export function contextIn(ctx: RequestContext, trx: Kysely<Database>): RequestContext {
  return {
    ...ctx,
    store: { ...ctx.store, db: trx },
    services: { ...ctx.services, settings: ctx.services.settings.within(trx) },
  }
}

/** The same for code written against a bare db handle: joins the open transaction or opens one. */
export async function withTransactionDb<T>(
  ctx: RequestContext,
  work: (db: RequestContext['store']['db']) => Promise<T>,
): Promise<T> {
  return withTransaction(ctx, (tctx) => work(tctx.store.db))
}

/** For work without a request (the admin CLI, first start, the batch runner): joins `db` if it is a transaction. */
export async function inTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db)
  return db.transaction().execute(work)
}
