/**
 * Keyword groups that many object types share: owner, tags, security labels, attributes
 * and associations. Each returns plain KeywordDef entries for a table to list.
 */
import { expressionBuilder } from 'kysely'
import { ASSOCIATION_SOURCES } from '../../model/group-types.js'
import { type FieldDeclaration, type KindDeclaration, tqlOf } from '../../model/field.js'
import { ITEM_TABLES, type ItemKind } from '../../model/kinds.js'
import { type KeywordDef, type TqlType, column, computed, kw } from './define.js'

const eb = expressionBuilder<any, any>()

export const OBJECT_TYPE_OF_KIND: Partial<Record<ItemKind, string>> = {
  indicator: 'indicators',
  group: 'groups',
  case: 'cases',
  artifact: 'artifacts',
  victim: 'victims',
  victimAsset: 'victimAssets',
  intelRequirement: 'intelRequirements',
  task: 'tasks',
}

const LABEL: Record<string, string> = {
  indicator: 'Indicator',
  group: 'Group',
  case: 'Case',
  artifact: 'Artifact',
  victim: 'Victim',
  victimAsset: 'Victim Asset',
  intelRequirement: 'Intel Requirement',
  task: 'Task',
}

const CAPITALIZED: Record<string, string> = {
  indicator: 'Indicator',
  group: 'Group',
  case: 'Case',
  artifact: 'Artifact',
  victim: 'Victim',
  victimAsset: 'VictimAsset',
  intelRequirement: 'IntelRequirement',
  task: 'Task',
}

/** The name of the account in a user id column (createdBy and the like). */
export function userNameOf(columnName: string) {
  return computed((alias) =>
    eb
      .selectFrom(`user_account as ${alias}_${columnName}`)
      .select(`${alias}_${columnName}.user_name`)
      .whereRef(`${alias}_${columnName}.id`, '=', `${alias}.${columnName}`),
  )
}

/** The name of the owner of the row at `alias`. */
export function ownerNameOf(alias: string) {
  return eb
    .selectFrom(`owner as ${alias}_owner`)
    .select(`${alias}_owner.name`)
    .whereRef(`${alias}_owner.id`, '=', `${alias}.owner_id`)
}

export function ownerKeywords(what: string): KeywordDef[] {
  return [
    kw('owner', 'Owner ID', 'Integer', column('owner_id'), `The ID of the owner of the ${what}.`, { groupable: true }),
    kw('ownerName', 'Owner Name', 'String', computed(ownerNameOf), `The name of the owner of the ${what}.`, {
      groupable: true,
    }),
  ]
}

export function tagKeywords(kind: ItemKind, what: string): KeywordDef[] {
  const link = { via: 'itemTag', kind } as const
  return [
    kw(
      'tag',
      'Tag',
      'StringLower',
      { kind: 'related', link, table: 'tag', source: { column: 'name' } },
      `The name of a tag applied to the ${what}.`,
    ),
    kw(
      'tagOwner',
      'Tag Owner ID',
      'Integer',
      { kind: 'related', link, table: 'tag', source: { column: 'owner_id' } },
      `The owner ID of a tag applied to the ${what}.`,
    ),
    kw(
      'tagOwnerName',
      'Tag Owner Name',
      'String',
      { kind: 'related', link, table: 'tag', source: { expression: ownerNameOf } },
      `The owner name of a tag applied to the ${what}.`,
    ),
    kw(
      'attackTag',
      'ATT&CK Tag',
      'StringLower',
      {
        kind: 'related',
        link,
        table: 'tag',
        source: { column: 'name' },
        where: (t) => eb(`${t}.technique_id`, 'is not', null),
      },
      `The name of an ATT&CK technique tag applied to the ${what}.`,
    ),
    kw(
      'hasTag',
      'Associated Tag',
      'Sub Query',
      { kind: 'nested', link, objectType: 'tags' },
      'A nested query for tags applied to it.',
    ),
    kw(
      'hasAllTags',
      'Has All Tags',
      'Sub Query',
      { kind: 'nested', link, objectType: 'tags', all: true },
      'A nested query over tags: matches when every tag name the query selects is applied to it.',
    ),
  ]
}

export function labelKeywords(kind: ItemKind, what: string): KeywordDef[] {
  const link = { via: 'itemLabel', kind } as const
  return [
    kw(
      'securityLabel',
      'Security Label',
      'StringLower',
      { kind: 'related', link, table: 'security_label', source: { column: 'name' } },
      `The name of a security label applied to the ${what}.`,
    ),
    kw(
      'hasSecurityLabel',
      'Associated Security Label',
      'Sub Query',
      { kind: 'nested', link, objectType: 'securityLabels' },
      'A nested query for security labels applied to it.',
    ),
  ]
}

export function attributeKeywords(kind: ItemKind, attributeType: string): KeywordDef[] {
  return [
    kw(
      'hasAttribute',
      'Associated Attribute',
      'Sub Query',
      { kind: 'nested', link: { via: 'attribute', kind }, objectType: attributeType },
      'A nested query for its attributes.',
    ),
  ]
}

/** associatedX (an id) and hasX(<query>) for each kind this one associates with through association rows. */
export function associationKeywords(from: ItemKind, targets: readonly ItemKind[]): KeywordDef[] {
  return targets.flatMap((to) => {
    const link = { via: 'association', from, to } as const
    const objectType = OBJECT_TYPE_OF_KIND[to]!
    return [
      kw(
        `associated${CAPITALIZED[to]}`,
        `Associated ${LABEL[to]} ID`,
        'Integer',
        { kind: 'related', link, table: ITEM_TABLES[to], source: { column: 'id' } },
        `The ID of an associated ${LABEL[to]}.`,
      ),
      kw(
        `has${CAPITALIZED[to]}`,
        `Associated ${LABEL[to]}`,
        'Sub Query',
        { kind: 'nested', link, objectType },
        `A nested query for associated ${LABEL[to]}s.`,
      ),
    ]
  })
}

/** associatedGroupSource / associatedIndicatorSource: how an association was made. */
export function associationSourceKeywords(from: ItemKind): KeywordDef[] {
  return (['group', 'indicator'] as const).map((to) =>
    kw(
      `associated${CAPITALIZED[to]}Source`,
      `Associated ${LABEL[to]} Source`,
      'Enum',
      {
        kind: 'related',
        link: { via: 'association', from, to },
        table: ITEM_TABLES[to],
        source: { column: 'source' },
        onLink: true,
      },
      `How an association with a ${LABEL[to]} was made: ${ASSOCIATION_SOURCES.join(', ')}.`,
      { values: ASSOCIATION_SOURCES },
    ),
  )
}

export function dateKeywords(
  entries: readonly [keyword: string, name: string, column: string, description: string][],
): KeywordDef[] {
  return entries.map(([keyword, name, columnName, description]) =>
    kw(keyword, name, 'Date', column(columnName), description),
  )
}

const TQL_TYPE_OF: Record<FieldDeclaration['type'], TqlType | undefined> = {
  text: 'String',
  integer: 'Integer',
  decimal: 'Integer',
  boolean: 'Boolean',
  date: 'Date',
  user: 'String',
  object: undefined,
}

/**
 * The keywords a kind declares on its fields (model/), in its TQL order (or declaration order);
 * `only` keeps those of the named fields (in that order) or of the fields it accepts. A `user`
 * field is the account's name, read through its id column.
 */
export function declaredKeywords(
  declaration: KindDeclaration,
  only?: readonly string[] | ((field: FieldDeclaration) => boolean),
): KeywordDef[] {
  const order = typeof only === 'function' ? undefined : (only ?? declaration.tqlOrder)
  const all = order ? order.map((name) => fieldOf(declaration, name)) : declaration.fields
  const fields = typeof only === 'function' ? all.filter(only) : all
  const keywords = fields.flatMap((field) =>
    tqlOf(field).map((t) => {
      const type = t.type ?? (field.values ? 'Enum' : TQL_TYPE_OF[field.type])
      if (!(field.column || field.lookup) || !type)
        throw new Error(`${declaration.kind}.${field.name} has a TQL keyword but no column of a TQL type`)
      const target = field.lookup
        ? lookupOf(field.name, field.lookup)
        : field.type === 'user'
          ? userNameOf(field.column!)
          : column(field.column!)
      const extra = {
        ...(t.groupable !== undefined ? { groupable: t.groupable } : {}),
        ...(field.values && type === 'Enum' ? { values: field.values } : {}),
        ...(t.normalize ? { normalize: t.normalize } : {}),
      }
      return kw(t.keyword ?? field.name, t.name, type, target, t.description ?? field.description, extra)
    }),
  )
  const byKeyword = declaration.tqlKeywordOrder
  if (!byKeyword) return keywords
  const rank = (k: KeywordDef) => (byKeyword.includes(k.keyword) ? byKeyword.indexOf(k.keyword) : byKeyword.length)
  return keywords.sort((a, b) => rank(a) - rank(b))
}

/** The keywords with `inserted` placed right after the one named `keyword` (composed keywords among declared ones). */
export function insertKeywordsAfter(
  keywords: readonly KeywordDef[],
  keyword: string,
  inserted: readonly KeywordDef[],
): KeywordDef[] {
  const at = keywords.findIndex((k) => k.keyword === keyword)
  if (at < 0) throw new Error(`no keyword ${keyword} to insert after`)
  return [...keywords.slice(0, at + 1), ...inserted, ...keywords.slice(at + 1)]
}

/** A kind's declared keywords with the owner keywords after its id, where the platform lists them. */
export function declaredKeywordsWithOwner(declaration: KindDeclaration, what: string): KeywordDef[] {
  const [id, ...rest] = declaredKeywords(declaration)
  if (id?.keyword !== 'id') throw new Error(`${declaration.kind} lists no id keyword first`)
  return [id, ...ownerKeywords(what), ...rest]
}

function lookupOf(name: string, { table, column: read, key }: NonNullable<FieldDeclaration['lookup']>) {
  return computed((alias) =>
    eb
      .selectFrom(`${table} as ${alias}_${name}`)
      .select(`${alias}_${name}.${read}`)
      .whereRef(`${alias}_${name}.id`, '=', `${alias}.${key}`),
  )
}

function fieldOf(declaration: KindDeclaration, name: string): FieldDeclaration {
  const field = declaration.fields.find((f) => f.name === name)
  if (!field) throw new Error(`${declaration.kind} declares no field ${name}`)
  return field
}
