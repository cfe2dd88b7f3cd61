/**
 * webLink and legacyLink URLs, in the platform's forms, under BULWARK_PUBLIC_URL.
 * v3 links point at the details page by id; v2 (legacy) links name the item's type and value.
 */
export type LinkKind =
  | 'indicators'
  | 'groups'
  | 'tasks'
  | 'victims'
  | 'cases'
  | 'artifacts'
  | 'intelRequirements'
  | 'victimAssets'
  | 'tags'
  | 'securityLabels'

export function detailsLink(publicUrl: string, kind: LinkKind, id: number | string): string {
  return `${publicUrl}/#/details/${kind}/${id}/overview`
}

/** v2 Indicator links: `/auth/indicators/details/<entity>.xhtml?<entity>=<value>&owner=<owner>`. */
export function legacyIndicatorLink(publicUrl: string, apiEntity: string, summary: string, ownerName: string): string {
  return `${publicUrl}/auth/indicators/details/${apiEntity}.xhtml?${apiEntity}=${encodeURIComponent(summary)}&owner=${encodeURIComponent(ownerName)}`
}

/** v2 links for Groups, Tasks and Victims: `/auth/<entity>/<entity>.xhtml?<entity>=<id>`. */
export function legacyLink(publicUrl: string, apiEntity: string, id: number): string {
  return `${publicUrl}/auth/${apiEntity}/${apiEntity}.xhtml?${apiEntity}=${id}`
}

export function tagLink(publicUrl: string, name: string, ownerName: string): string {
  return `${publicUrl}/auth/tags/tag.xhtml?tag=${encodeURIComponent(name)}&owner=${encodeURIComponent(ownerName)}`
}
