/** `bulwark lifecycle show|set|run`: an owner's days per Indicator type, and a run of the lifecycle now. */
import { requireOwner } from '../../domain/access/accounts.js'
import { invalid } from '../../core/errors.js'
import {
  lastLifecycleRun,
  lifecyclePolicy,
  runLifecycle,
  setLifecyclePolicy,
} from '../../domain/lifecycle/lifecycle.js'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import { newWorkerId } from '../../worker/batch-worker.js'

export async function showLifecycleCommand(store: Store, _services: Services, args: { owner: string }) {
  const owner = await requireOwner(store.db, args.owner)
  return {
    owner: owner.name,
    policy: await lifecyclePolicy(store.db, owner.id),
    lastRun: await lastLifecycleRun(store),
  }
}

/** `--days N` (0 never) or `--days default`. */
export async function setLifecycleCommand(
  store: Store,
  services: Services,
  args: { owner: string; type: string; days: string },
) {
  const owner = await requireOwner(store.db, args.owner)
  if (args.days !== 'default' && !/^\d+$/.test(args.days))
    throw invalid(`--days must be a whole number of days (0: never) or 'default', not '${args.days}'`)
  await setLifecyclePolicy(store.db, owner.id, args.type, args.days === 'default' ? undefined : Number(args.days))
  return showLifecycleCommand(store, services, args)
}

/** Runs the lifecycle now, unless a server is running it at this moment. */
export async function runLifecycleCommand(store: Store, _services: Services) {
  const outcome = await runLifecycle(store, newWorkerId(), 0)
  if (!outcome) throw invalid('The lifecycle is running on a server now; `bulwark lifecycle show` gives its outcome')
  return { ...outcome }
}
