/** The saved searches of /api/v3/savedSearches, as the saved-searches page, the search page and the graph use them. */
import { api } from './api.js'

export interface SavedSearch {
  id: number
  name: string
  tql: string
  kind: 'indicators' | 'groups'
  shared: boolean
  owner?: string
  createdBy: string
  mine: boolean
  pinned: boolean
  editable: boolean
  dateAdded: string
  lastModified: string
}

export async function listSavedSearches(): Promise<SavedSearch[]> {
  return (await api<{ data: SavedSearch[] }>('/api/v3/savedSearches')).data
}

export async function saveSearch(body: { name: string; tql: string; owner?: string }): Promise<SavedSearch> {
  return (await api<{ data: SavedSearch }>('/api/v3/savedSearches', { method: 'POST', body })).data
}

export async function changeSavedSearch(id: number, body: { name?: string; pinned?: boolean }): Promise<SavedSearch> {
  return (await api<{ data: SavedSearch }>(`/api/v3/savedSearches/${id}`, { method: 'PUT', body })).data
}

export async function deleteSavedSearch(id: number): Promise<void> {
  await api(`/api/v3/savedSearches/${id}`, { method: 'DELETE' })
}
