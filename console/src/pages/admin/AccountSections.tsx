/** Owners, people and API accounts, memberships, API tokens, TAXII accounts and settings. */
import type { AdminSection } from '../../route.js'

const ACCOUNT_SECTIONS = ['owners', 'people', 'memberships', 'tokens', 'taxii', 'settings'] as const
export type AccountSectionName = (typeof ACCOUNT_SECTIONS)[number]
export const isAccountSection = (section: AdminSection): section is AccountSectionName =>
  (ACCOUNT_SECTIONS as readonly string[]).includes(section)

export function AccountSection(props: { section: AccountSectionName }) {
  return <p>{props.section}</p>
}
