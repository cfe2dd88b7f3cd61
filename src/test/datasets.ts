/**
 * The real public threat intelligence in the machine's shared folder (`../shared/datasets`, beside
 * the main checkout for a git worktree too): vendor files copied byte for byte, with their
 * licences and counts in its README.md. Tests read them in place; nothing is copied here.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { SHARED_DIR } from './real-clients.js'

export const DATASETS_DIR = join(SHARED_DIR, 'datasets')

/** The path of a data set file (`SEKOIA-IO+Community/IOCs/…`). */
export const datasetFile = (path: string) => join(DATASETS_DIR, path)

/** Why tests on the data sets cannot run here, or undefined when they can. */
export function datasetsUnavailable(): string | undefined {
  return existsSync(join(DATASETS_DIR, 'README.md'))
    ? undefined
    : `tests on real data skipped: ${DATASETS_DIR} is missing (the shared data sets beside the repository)`
}
