/** Feeds (with runs and their history), outbound lists with their URLs, and batch and import jobs. */
import type { AdminSection } from '../../route.js'
import { FeedsSection } from './FeedsSection.js'
import { JobsSection } from './JobsSection.js'
import { ListsSection } from './ListsSection.js'

export function OperationSection(props: {
  section: Exclude<AdminSection, 'owners' | 'people' | 'memberships' | 'tokens' | 'taxii' | 'settings'>
}) {
  switch (props.section) {
    case 'feeds':
      return <FeedsSection />
    case 'lists':
      return <ListsSection />
    case 'jobs':
      return <JobsSection />
  }
}
