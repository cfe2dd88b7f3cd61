/**
 * Who runs a batch job: a worker claims a Queued job (or a Running one whose lease ran out,
 * because its node died) with a compare-and-set lease, renews it at every commit (run-job.ts),
 * and hands it back when it stops early so that another node resumes it at once.
 */
import { batchJobLease, claimBatchJob } from '../../store/repositories/batch.repository.js'
import type { Store } from '../../store/connect.js'
import { DEFAULT_LEASE_MS } from './run-job.js'

/** Claims one job with a lease; true when this worker won it. */
export function claimJob(store: Store, jobId: number, workerId: string, leaseMs = DEFAULT_LEASE_MS): Promise<boolean> {
  const now = new Date()
  return claimBatchJob(store.db, jobId, workerId, now.toISOString(), new Date(now.getTime() + leaseMs).toISOString())
}

/** Up to `limit` jobs a worker could claim now, oldest first. */
export function claimableJobs(store: Store, limit: number): Promise<number[]> {
  return batchJobLease.claimable(store.db, new Date().toISOString(), limit)
}

/** Hands a job back with its lease already expired, so any worker claims it on its next pass. */
export function handBackJob(store: Store, jobId: number, workerId: string): Promise<unknown> {
  return batchJobLease.release(store.db, jobId, workerId, new Date(Date.now() - 1).toISOString())
}
