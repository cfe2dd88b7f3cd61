/** Feeds (with runs and their history), outbound lists with their URLs, and batch and import jobs. */
import type { AdminSection } from '../../route.js'

export function OperationSection(props: {
  section: Exclude<AdminSection, 'owners' | 'people' | 'memberships' | 'tokens' | 'taxii' | 'settings'>
}) {
  return <p>{props.section}</p>
}
