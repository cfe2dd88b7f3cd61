/**
 * fields= expansion. Each endpoint lists its options; the standard ones for items are built
 * here: attributes, tags, securityLabels and associated* (the partners presented by their own
 * endpoint, at default fields, with any dotted sub-fields). Nested lists have the platform's
 * shape `{"data": [...]}`. Associations expand one level deep, as the platform does by default.
 */
import { loadPartnerIds } from '../../domain/items/associations.js'
import { invalid } from '../../core/errors.js'
import { loadAttributes, loadLabels, loadTags } from '../../domain/metadata/item-metadata.js'
import { ASSOCIATION_MEMBERS, type AssociationMember } from '../../domain/items/nested-writes.js'
import type { ItemKind } from '../../model/kinds.js'
import type { AnyEndpoint, ExpandContext, FieldOption } from './endpoint.js'
import type { FieldTree } from './params.js'
import { presentAttribute, presentLabel, presentTag } from './present-metadata.js'

const ASSOCIATION_WORDS: Record<AssociationMember, string> = {
  associatedArtifacts: 'artifacts',
  associatedCases: 'cases',
  associatedGroups: 'groups',
  associatedIndicators: 'indicators',
  associatedVictimAssets: 'victim assets',
}

function asData<T>(map: Map<number, T[]>): Map<number, unknown> {
  return new Map([...map].map(([id, data]) => [id, { data }]))
}

export function attributesOption(kind: ItemKind, what: string): FieldOption {
  return {
    name: 'attributes',
    description: `Includes attributes of the ${what}`,
    async load(ids, subtree, { ctx }) {
      checkSubtree(subtree, ['securityLabels'], 'attributes')
      const byItem = await loadAttributes(ctx.store.db, kind, ids)
      const labels = subtree.has('securityLabels')
        ? await loadLabels(
            ctx.store.db,
            'attribute',
            [...byItem.values()].flat().map((a) => a.id),
          )
        : undefined
      return asData(
        new Map(
          [...byItem].map(([id, list]) => [
            id,
            list.map((a) => ({
              ...presentAttribute(a),
              ...(labels ? { securityLabels: { data: (labels.get(a.id) ?? []).map(presentLabel) } } : {}),
            })),
          ]),
        ),
      )
    },
  }
}

export function tagsOption(kind: ItemKind, what: string): FieldOption {
  return {
    name: 'tags',
    description: `Includes tags applied to the ${what}`,
    async load(ids, subtree, { ctx }) {
      checkSubtree(subtree, [], 'tags')
      const byItem = await loadTags(ctx.store.db, kind, ids)
      return asData(new Map([...byItem].map(([id, list]) => [id, list.map(presentTag)])))
    },
  }
}

export function securityLabelsOption(kind: ItemKind, what: string): FieldOption {
  return {
    name: 'securityLabels',
    description: `Includes security labels applied to the ${what}`,
    async load(ids, subtree, { ctx }) {
      checkSubtree(subtree, [], 'securityLabels')
      const byItem = await loadLabels(ctx.store.db, kind, ids)
      return asData(new Map([...byItem].map(([id, list]) => [id, list.map(presentLabel)])))
    },
  }
}

/** associated<Kind>s: the partners, presented by their own endpoint; partners the caller cannot read are left out. */
export function associationOption(member: AssociationMember, kind: ItemKind, what: string): FieldOption {
  const partnerKind = ASSOCIATION_MEMBERS[member]
  return {
    name: member,
    description: `Includes ${ASSOCIATION_WORDS[member]} associated with the ${what}`,
    async load(ids, subtree, x) {
      if (x.depth > 0)
        throw invalid(
          `fields: only one association level can be expanded ('${member}' is nested in another association)`,
        )
      const endpoint = x.endpointFor(partnerKind)
      if (!endpoint) return new Map()
      const partnerIds = await loadPartnerIds(x.ctx.store.db, kind, ids, partnerKind, 0)
      const partners = await endpoint.load(x.ctx, [...new Set([...partnerIds.values()].flat())])
      const presented = new Map(
        (await presentRecords(endpoint, partners, subtree, { ...x, depth: x.depth + 1 })).map((p, i) => [
          partners[i]!.id,
          p,
        ]),
      )
      return asData(
        new Map(
          [...partnerIds].map(([id, list]) => [id, list.filter((p) => presented.has(p)).map((p) => presented.get(p)!)]),
        ),
      )
    },
  }
}

/**
 * The standard options of an item kind: attributes, tags, securityLabels (as chosen) and the
 * listed associated* members.
 */
export function itemOptions(
  kind: ItemKind,
  what: string,
  metadata: readonly ('attributes' | 'tags' | 'securityLabels')[],
  associations: readonly AssociationMember[],
): FieldOption[] {
  const builders = { attributes: attributesOption, tags: tagsOption, securityLabels: securityLabelsOption }
  return [
    ...associations.map((m) => associationOption(m, kind, what)),
    ...metadata.map((m) => builders[m](kind, what)),
  ].sort((a, b) => a.name.localeCompare(b.name))
}

function checkSubtree(subtree: FieldTree, allowed: readonly string[], under: string) {
  for (const name of subtree.keys()) {
    if (!allowed.includes(name))
      throw invalid(
        `fields: '${under}.${name}' is not available${allowed.length ? `; ${under} takes ${allowed.join(', ')}` : ''}`,
      )
  }
}

/** Checks every requested field against the endpoint's options (400 naming the unknown one). */
export function checkFields(endpoint: AnyEndpoint, fields: FieldTree): void {
  for (const name of fields.keys()) {
    if (!endpoint.options.some((o) => o.name === name)) {
      throw invalid(
        `fields: '${name}' is not available on /v3/${endpoint.path}; see OPTIONS /v3/${endpoint.path}/fields`,
      )
    }
  }
}

/** Presents records with their default fields plus every requested expansion. */
export async function presentRecords(
  endpoint: AnyEndpoint,
  records: readonly { id: number }[],
  fields: FieldTree,
  x: ExpandContext,
): Promise<Record<string, unknown>[]> {
  checkFields(endpoint, fields)
  const ids = records.map((r) => r.id)
  const expansions: [string, Map<number, unknown>][] = []
  for (const [name, subtree] of fields) {
    const option = endpoint.options.find((o) => o.name === name)!
    if (option.load) expansions.push([name, ids.length ? await option.load(ids, subtree, x) : new Map()])
  }
  return records.map((record) => {
    const out = endpoint.present(record, { ctx: x.ctx, fields })
    for (const [name, values] of expansions) {
      const spread = endpoint.options.find((o) => o.name === name)!.spread
      if (spread) Object.assign(out, values.get(record.id) ?? {})
      else out[name] = values.get(record.id) ?? { data: [] }
    }
    return out
  })
}
