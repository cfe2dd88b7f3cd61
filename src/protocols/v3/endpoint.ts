/**
 * A v3 object endpoint declared once: its body fields (OPTIONS /v3/<type>), its fields=
 * options (OPTIONS /v3/<type>/fields and the expansions), its TQL object type (OPTIONS
 * /v3/<type>/tql and lists), its presenter and the domain calls behind each method.
 * routes.ts turns a declaration into every route; nothing else about an endpoint is written twice.
 *
 * @example  (see routes/cases.ts)
 *   export const CASES: V3Endpoint<CaseRecord> = {
 *     path: 'cases', kind: 'case', tqlType: 'cases', word: 'Case', fields: CASE_FIELDS,
 *     options: [...itemOptions('case', ['associatedCases', 'associatedGroups'])],
 *     present: presentCase, list: listCases, load: loadCases, create: createCase, update: updateCase, remove: deleteCase,
 *   }
 */
import type { RequestContext } from '../../domain/context.js'
import type { ObjectListQuery } from '../../domain/listing/object-lists.js'
import type { FieldDeclaration, KindDeclaration } from '../../model/field.js'
import type { ItemKind } from '../../model/kinds.js'
import type { FieldTree } from './params.js'

export type FieldType = 'String' | 'Integer' | 'Boolean' | 'Date' | 'Double' | 'Object' | 'Enum' | string

/** One settable (or read-only) body field, as OPTIONS /v3/<type> lists it. */
export interface FieldSpec {
  name: string
  type: FieldType
  description: string
  /** Required on create. */
  required?: boolean
  /** Shown only with ?show=readOnly; refused in bodies by the domain where it matters. */
  readOnly?: boolean
  /** Settable on create but not changed by update. */
  updatable?: false
  /** A nested list member ({data: [...]}) rather than a plain value. */
  list?: boolean
  values?: readonly string[]
}

export interface ExpandContext {
  ctx: RequestContext
  /** Nesting depth: 0 for the listed records, 1 for the items of an associated* expansion. */
  depth: number
  /** The endpoint that presents items of a kind (the partners of an associated* expansion). */
  endpointFor: EndpointDirectory
}

export type EndpointDirectory = (kind: ItemKind) => AnyEndpoint | undefined

const V3_TYPE_OF: Record<FieldDeclaration['type'], FieldType> = {
  text: 'String',
  integer: 'Integer',
  decimal: 'Double',
  boolean: 'Boolean',
  date: 'Date',
  user: 'String',
  object: 'Object',
}

/**
 * The body fields a kind declares (model/), as OPTIONS /v3/<type> lists them; fields that v3
 * does not carry (`v3: false`), shows only in answers (`v3.body: false`) or does not list (`unlisted`) are left out.
 */
export function declaredBodyFields(declaration: KindDeclaration): FieldSpec[] {
  return declaration.fields.flatMap((field): FieldSpec[] => {
    if (field.v3 === false || field.v3?.body === false || field.v3?.unlisted) return []
    const spec: FieldSpec = {
      name: field.name,
      type: field.v3?.type ?? V3_TYPE_OF[field.type],
      description: field.description,
    }
    const write = field.v3?.write ?? field.write
    // What a v3 body cannot carry, it cannot be required to carry.
    if (field.required && write !== 'never') spec.required = true
    if (write === 'never') spec.readOnly = true
    if (write === 'create') spec.updatable = false
    if (field.v3?.list) spec.list = true
    if (field.values) spec.values = field.values
    return [spec]
  })
}

/** One fields= value. `load` fills the field for many records at once; options without it only switch presenter output. */
export interface FieldOption {
  name: string
  description: string
  includedByDefault?: boolean
  load?: (ids: readonly number[], subtree: FieldTree, x: ExpandContext) => Promise<Map<number, unknown>>
  /** The loaded value is an object whose keys are added to the record itself (falsePositives → falsePositives, lastFalsePositive …). */
  spread?: boolean
}

export interface ListResult<R> {
  items: R[]
  hasMore: boolean
  total?: number
}

export interface V3Endpoint<R extends { id: number }> {
  /** Path under /v3, e.g. `cases` or `security/users`. */
  path: string
  /** The item kind behind the records, when they are items (metadata, associations, TQL has*). */
  kind?: ItemKind
  /** TQL object type for OPTIONS /tql; omit when the endpoint has no TQL. */
  tqlType?: string
  /** Singular word for messages ("Case 12 not found"). */
  word: string
  fields: readonly FieldSpec[]
  options: readonly FieldOption[]
  /** The default fields of a record; fields= options the presenter itself handles arrive in `fields`. */
  present(record: R, x: { ctx: RequestContext; fields: FieldTree }): Record<string, unknown>
  list(ctx: RequestContext, query: ObjectListQuery): Promise<ListResult<R>>
  /** Records by id in that order, leaving out what the caller cannot read (used by get and associated* expansions). */
  load(ctx: RequestContext, ids: readonly number[]): Promise<R[]>
  /** Overrides the id parsing of GET/PUT/DELETE /v3/<path>/{id} (e.g. Indicators by summary). */
  resolveId?(ctx: RequestContext, text: string): Promise<number>
  create?(ctx: RequestContext, body: unknown): Promise<R>
  update?(ctx: RequestContext, id: number, body: unknown): Promise<R>
  remove?(ctx: RequestContext, id: number): Promise<void>
  /** Bulk DELETE /v3/<path>?tql=… (only when bulkDeleteEnabled is on). */
  removeMatching?(ctx: RequestContext, tql: string | undefined, scope: ObjectListQuery['ownerScope']): Promise<number>
}

/** The erased form the endpoint list and expansions hold. */
export type AnyEndpoint = V3Endpoint<{ id: number }>
