/**
 * Owners, people and API accounts, memberships, API tokens, TAXII accounts and settings: each section a thin page
 * over /api/v3/admin/…, which runs the CLI's own functions and refuses anyone but a system administrator. Refusals
 * are shown in the server's words, as text.
 */
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
