/**
 * The fields= values of /v3/indicators. Those the record holds are switched on in
 * present-indicator.ts; the rest load here for the whole page at once. Enrichment services
 * (whois, DNS lookups, geolocation providers, investigation links) are not part of Bulwark:
 * enrichment and investigationLinks answer an empty list and whoIs is left out; dnsResolution
 * lists the resolutions recorded for a Host, geoLocation the Address data kept with it.
 */
import { loadIndicatorRecords } from '../../../domain/indicators/objects.js'
import { toApiTime } from '../../../core/time.js'
import {
  customAssociationPartnersOf,
  dnsResolutionsOf,
  falsePositivesReportedByCaller,
  fileActionsOf,
  fileOccurrencesOf,
  trackedUsersOf,
} from '../../../domain/indicators/details.js'
import { INDICATOR } from '../../../model/indicator.js'
import { detailsLink } from '../../http/links.js'
import { namesOfOption } from '../declared-present.js'
import type { FieldOption } from '../endpoint.js'
import { itemOptions } from '../fields.js'
import { compact } from '../present-metadata.js'

const flag = (name: string, description: string): FieldOption => ({ name, description })
const empty = (name: string, description: string): FieldOption => ({ name, description, load: async () => new Map() })

const trackedUsers: FieldOption = {
  name: 'trackedUsers',
  description: 'Includes, per user, the observations and false positives reported on the Indicator',
  async load(ids, _subtree, { ctx }) {
    const rows = await trackedUsersOf(ctx, ids)
    return new Map(
      [...rows].map(([id, list]) => [
        id,
        Object.fromEntries(
          list.map((u) => [
            u.user_name,
            compact({
              observations: u.observations,
              lastObserved: toApiTime(u.last_observed),
              falsePositives: u.false_positives,
              lastFalsePositive: toApiTime(u.last_false_positive),
            }),
          ]),
        ),
      ]),
    )
  },
}

const falsePositives: FieldOption = {
  name: 'falsePositives',
  description: 'Includes the false positive count, when the last was reported and whether you reported one',
  spread: true,
  async load(ids, _subtree, { ctx }) {
    const mine = await falsePositivesReportedByCaller(ctx, ids)
    return new Map(
      (await loadIndicatorRecords(ctx, ids)).map((r) => [
        r.id,
        compact({
          falsePositives: r.falsePositiveCount,
          lastFalsePositive: toApiTime(r.lastFalsePositive),
          falsePositiveReportedByUser: mine.has(r.id),
        }),
      ]),
    )
  },
}

const dnsResolution: FieldOption = {
  name: 'dnsResolution',
  description: 'Includes the DNS resolutions recorded for a Host (no resolver runs in Bulwark)',
  async load(ids, _subtree, { ctx }) {
    const rows = await dnsResolutionsOf(ctx, ids)
    return new Map(
      [...rows].map(([id, list]) => [
        id,
        {
          data: list.map((r) => ({
            resolutionDate: toApiTime(r.resolution_date),
            addresses: { data: [{ id: r.address_id, ip: r.ip }] },
          })),
        },
      ]),
    )
  },
}

const fileActions: FieldOption = {
  name: 'fileActions',
  description: 'Includes the actions of a File (drops, archives, contacts …) and their target Indicators',
  async load(ids, _subtree, { ctx }) {
    const rows = await fileActionsOf(ctx, ids)
    return new Map(
      [...rows].map(([id, list]) => [
        id,
        {
          data: list.map((r) => ({
            relationship: r.action,
            indicator: {
              id: r.target_indicator_id,
              type: r.type,
              summary: r.summary,
              webLink: detailsLink(ctx.services.publicUrl, 'indicators', Number(r.target_indicator_id)),
            },
          })),
        },
      ]),
    )
  },
}

const fileOccurrences: FieldOption = {
  name: 'fileOccurrences',
  description: 'Includes where a File was seen (file name, path, date)',
  async load(ids, _subtree, { ctx }) {
    const rows = await fileOccurrencesOf(ctx, ids)
    return new Map(
      [...rows].map(([id, list]) => [
        id,
        {
          data: list.map((r) =>
            compact({
              id: r.id,
              fileName: r.file_name,
              path: r.path,
              date: toApiTime(r.date),
            }),
          ),
        },
      ]),
    )
  },
}

const customAssociations: FieldOption = {
  name: 'customAssociations',
  description: 'Includes Indicators associated through custom (typed) association types',
  async load(ids, _subtree, x) {
    const typed = await customAssociationPartnersOf(x.ctx, ids)
    const endpoint = x.endpointFor('indicator')!
    const partners = await endpoint.load(x.ctx, [...new Set([...typed.values()].flat())])
    const presented = new Map(partners.map((p) => [p.id, endpoint.present(p, { ctx: x.ctx, fields: new Map() })]))
    return new Map([...typed].map(([id, list]) => [id, { data: list.map((to) => presented.get(to)).filter(Boolean) }]))
  },
}

export const INDICATOR_OPTIONS: FieldOption[] = [
  ...itemOptions(
    'indicator',
    'Indicator',
    ['attributes', 'tags', 'securityLabels'],
    ['associatedArtifacts', 'associatedCases', 'associatedGroups', 'associatedIndicators'],
  ),
  flag(
    'associationName',
    'Includes the name of the custom association type on associated Indicators, where one applies',
  ),
  customAssociations,
  dnsResolution,
  empty(
    'enrichment',
    'Includes enrichment data from third-party services (none are configured in Bulwark: always empty)',
  ),
  flag('externalDates', `Includes ${namesOfOption(INDICATOR, 'externalDates')}`),
  falsePositives,
  fileActions,
  fileOccurrences,
  flag('genericCustomIndicatorValues', 'Shows the values of custom Indicator types as value1, value2 and value3'),
  flag('geoLocation', 'Includes the geolocation data kept with an Address'),
  empty('investigationLinks', 'Includes investigation links of enrichment services (none in Bulwark: always empty)'),
  flag('observations', 'Includes the observation count and when the Indicator was last observed'),
  flag('sightings', `Includes ${namesOfOption(INDICATOR, 'sightings')}`),
  flag('threatAssess', 'Includes the ThreatAssess rating, confidence and scores'),
  trackedUsers,
  flag('whoIs', 'Includes WHOIS data of a Host (no WHOIS service runs in Bulwark: never present)'),
].sort((a, b) => a.name.localeCompare(b.name))
