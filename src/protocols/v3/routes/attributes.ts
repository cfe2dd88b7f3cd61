/** /v3/groupAttributes, /v3/indicatorAttributes, /v3/victimAttributes and /v3/caseAttributes. */
import {
  ATTRIBUTE_ENDPOINTS,
  type AttributeRecord,
  type AttributedKind,
  createAttributeRecord,
  deleteAttributeRecord,
  deleteAttributeRecordsMatching,
  listAttributeRecords,
  loadAttributeRecords,
  updateAttributeRecord,
} from '../../../domain/metadata/attributes.js'
import { toApiTime } from '../../../core/time.js'
import { ATTRIBUTE } from '../../../model/attribute.js'
import { type FieldSpec, type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { securityLabelsOption } from '../fields.js'
import { compact, presentUser } from '../present-metadata.js'

const WORDS: Record<AttributedKind, string> = { group: 'Group', indicator: 'Indicator', victim: 'Victim', case: 'Case' }

function fieldsOf(kind: AttributedKind): FieldSpec[] {
  const { parentField } = ATTRIBUTE_ENDPOINTS[kind]
  return declaredBodyFields(ATTRIBUTE).map((f) =>
    f.name === 'itemId'
      ? { ...f, name: parentField, description: `The ID of the ${WORDS[kind]} the attribute is on` }
      : f,
  )
}

function presenter(kind: AttributedKind) {
  const { parentField } = ATTRIBUTE_ENDPOINTS[kind]
  return (a: AttributeRecord): Record<string, unknown> =>
    compact({
      id: a.id,
      [parentField]: a.itemId,
      dateAdded: toApiTime(a.dateAdded),
      type: a.type,
      value: a.value,
      source: a.source,
      createdBy: presentUser(a.createdBy),
      lastModified: toApiTime(a.lastModified),
      pinned: a.pinned,
      default: a.default,
    })
}

export function attributeEndpoint(kind: AttributedKind): V3Endpoint<AttributeRecord> {
  const { objectType } = ATTRIBUTE_ENDPOINTS[kind]
  return {
    path: objectType,
    kind: 'attribute',
    tqlType: objectType,
    word: `${WORDS[kind]} attribute`,
    fields: fieldsOf(kind),
    options: [securityLabelsOption('attribute', 'attribute')],
    present: presenter(kind),
    list: (ctx, query) => listAttributeRecords(ctx, kind, query),
    load: (ctx, ids) => loadAttributeRecords(ctx, kind, ids),
    create: (ctx, body) => createAttributeRecord(ctx, kind, body),
    update: (ctx, id, body) => updateAttributeRecord(ctx, kind, id, body),
    remove: (ctx, id) => deleteAttributeRecord(ctx, kind, id),
    removeMatching: (ctx, tql, scope) => deleteAttributeRecordsMatching(ctx, kind, tql, scope),
  }
}
