/**
 * Owners, people and API accounts, memberships, API tokens, TAXII accounts and settings: each section a thin page
 * over /api/v3/admin/…, which runs the CLI's own functions and refuses anyone but a system administrator. Refusals
 * are shown in the server's words, as text.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../../api.js'
import type { AdminSection } from '../../route.js'
import { OwnersSection } from './OwnersSection.js'
import { AccountsSection } from './AccountsSection.js'
import { MembershipsSection } from './MembershipsSection.js'
import { TokensSection } from './TokensSection.js'
import { SettingsSection } from './SettingsSection.js'

const ACCOUNT_SECTIONS = ['owners', 'people', 'memberships', 'tokens', 'taxii', 'settings'] as const
export type AccountSectionName = (typeof ACCOUNT_SECTIONS)[number]
export const isAccountSection = (section: AdminSection): section is AccountSectionName =>
  (ACCOUNT_SECTIONS as readonly string[]).includes(section)

export function AccountSection(props: { section: AccountSectionName }) {
  switch (props.section) {
    case 'owners':
      return <OwnersSection />
    case 'people':
      return <AccountsSection kinds={['human', 'api']} />
    case 'taxii':
      return <AccountsSection kinds={['taxii']} />
    case 'memberships':
      return <MembershipsSection />
    case 'tokens':
      return <TokensSection />
    case 'settings':
      return <SettingsSection />
  }
}

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
