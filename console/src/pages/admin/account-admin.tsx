/** What the account sections share: the shapes /api/v3/admin answers with, reading one of its lists, a labelled choice. */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../../api.js'

export interface AdminOwner {
  id: number
  name: string
  type: 'Organization' | 'Community' | 'Source'
  description: string | null
  dateAdded: string
}

export interface AdminAccount {
  id: number
  userName: string
  kind: 'human' | 'api' | 'taxii'
  organization: string | null
  role: string | null
  systemRole: string
  firstName: string | null
  lastName: string | null
  email: string | null
  disabled: boolean
  tokenLifetimeDays: number | null
}

export interface AdminMembership {
  userName: string
  owner: string
  ownerType: AdminOwner['type']
  role: string
}

export const ADMIN_API = '/api/v3/admin'

/** One admin list (`/owners`, `/accounts?kind=taxii` …), read again by `reload` after each change. */
export function useAdminList<T>(path: string): { items?: T[]; error?: string; reload: () => void } {
  const [state, setState] = useState<{ items?: T[]; error?: string }>({})
  const [round, setRound] = useState(0)
  useEffect(() => {
    let current = true
    api<{ data: T[] }>(`${ADMIN_API}${path}`).then(
      (r) => current && setState({ items: r.data }),
      (e: Error) => current && setState({ error: e.message }),
    )
    return () => {
      current = false
    }
  }, [path, round])
  return { ...state, reload: () => setRound((n) => n + 1) }
}

/** What a list shows while it loads or when the server refused it. */
export function ListState({ error, what }: { error?: string; what: string }) {
  return error ? (
    <p role="alert" class="error">
      {error}
    </p>
  ) : (
    <p>Loading {what}…</p>
  )
}

/** A `<select>` with its label; `empty` adds a first choice meaning "none chosen". */
export function Choice(props: {
  id: string
  label: string
  value: string
  options: readonly string[]
  onChange: (value: string) => void
  empty?: string
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.empty !== undefined && <option value="">{props.empty}</option>}
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </>
  )
}

export const segment = encodeURIComponent
