/**
 * A feed's row as the domain gives it: to administrators without its secrets (FeedView), to its
 * run with them opened (FeedDefinition). The one place a feed's JSON columns are read.
 */
import type { Selectable } from 'kysely'
import type { FeedTable } from '../../store/database.js'
import type { SecretBox } from '../access/credentials.js'
import type { FeedCredentials, FeedDefaults, FeedDefinition, FeedKind, FeedSettings, FeedView } from './feed.js'

export type FeedRow = Selectable<FeedTable>

export function feedViewOf(row: FeedRow, ownerName: string, box: SecretBox): FeedView {
  const view: FeedView = {
    id: row.id,
    name: row.name,
    kind: row.kind as FeedKind,
    url: row.url,
    owner: ownerName,
    credentials: row.credentials_sealed ? openCredentials(row.credentials_sealed, box).kind : 'none',
    hasCaFile: row.ca_pem !== null,
    intervalSeconds: row.interval_seconds,
    enabled: row.enabled === 1,
    settings: JSON.parse(row.settings) as FeedSettings,
    defaults: JSON.parse(row.defaults) as FeedDefaults,
    nextRunAt: row.next_run_at,
    failures: row.failures,
    dateAdded: row.date_added,
    lastModified: row.last_modified,
  }
  if (row.import_from !== null) view.importFrom = row.import_from
  if (row.max_objects_per_run !== null) view.maxObjectsPerRun = row.max_objects_per_run
  if (row.last_success_at !== null) view.lastSuccessAt = row.last_success_at
  return view
}

export function feedDefinitionOf(row: FeedRow, ownerName: string, box: SecretBox): FeedDefinition {
  const { credentials: _kind, hasCaFile: _ca, ...view } = feedViewOf(row, ownerName, box)
  const definition: FeedDefinition = {
    ...view,
    ownerId: row.owner_id,
    cursor: row.cursor === null ? null : (JSON.parse(row.cursor) as FeedDefinition['cursor']),
  }
  if (row.credentials_sealed) definition.credentials = openCredentials(row.credentials_sealed, box)
  if (row.ca_pem !== null) definition.caPem = row.ca_pem
  return definition
}

export function sealCredentials(credentials: FeedCredentials, box: SecretBox): string {
  return box.seal(JSON.stringify(credentials))
}

function openCredentials(sealed: string, box: SecretBox): FeedCredentials {
  return JSON.parse(box.open(sealed)) as FeedCredentials
}
