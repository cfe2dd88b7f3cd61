/**
 * Running the installation from the console: one section a page, each through the same domain functions as
 * the CLI. Shown to system administrators only; the server refuses everyone else whatever the console shows.
 */
import { ADMIN_SECTIONS, type AdminSection } from '../../route.js'
import { AccountSection, isAccountSection } from './AccountSections.js'
import { OperationSection } from './OperationSections.js'

const TITLES: Record<AdminSection, string> = {
  owners: 'Owners',
  people: 'People and API accounts',
  memberships: 'Memberships',
  tokens: 'API tokens',
  taxii: 'TAXII accounts',
  settings: 'Settings',
  feeds: 'Feeds',
  lists: 'Outbound lists',
  jobs: 'Batch and import jobs',
}

export function Administration(props: { section: AdminSection }) {
  return (
    <>
      <nav class="admin-nav" aria-label="Administration">
        {ADMIN_SECTIONS.map((section) => (
          <a href={`#/admin/${section}`} aria-current={section === props.section ? 'page' : undefined}>
            {TITLES[section]}
          </a>
        ))}
      </nav>
      <h1>{TITLES[props.section]}</h1>
      {isAccountSection(props.section) ? (
        <AccountSection section={props.section} />
      ) : (
        <OperationSection section={props.section} />
      )}
    </>
  )
}
