/** Every object type TQL can filter, by v3 endpoint name. */
import {
  CASE_ATTRIBUTE_KEYWORDS,
  GROUP_ATTRIBUTE_KEYWORDS,
  INDICATOR_ATTRIBUTE_KEYWORDS,
  INTEL_REQUIREMENT_KEYWORDS,
  VICTIM_ATTRIBUTE_KEYWORDS,
} from './attributes.js'
import { ARTIFACT_KEYWORDS, CASE_KEYWORDS, NOTE_KEYWORDS, TASK_KEYWORDS } from './cases.js'
import type { KeywordDef, ObjectTypeDef } from './define.js'
import { GROUP_KEYWORDS } from './groups.js'
import { INDICATOR_KEYWORDS } from './indicators.js'
import { SECURITY_LABEL_KEYWORDS, TAG_KEYWORDS } from './tags.js'
import { VICTIM_ASSET_KEYWORDS, VICTIM_KEYWORDS } from './victims.js'

export type { KeywordDef, Link, ObjectTypeDef, Target, TqlType, ValueSource } from './define.js'

export const OBJECT_TYPES: readonly ObjectTypeDef[] = [
  INDICATOR_KEYWORDS,
  GROUP_KEYWORDS,
  TAG_KEYWORDS,
  SECURITY_LABEL_KEYWORDS,
  VICTIM_KEYWORDS,
  VICTIM_ASSET_KEYWORDS,
  CASE_KEYWORDS,
  ARTIFACT_KEYWORDS,
  TASK_KEYWORDS,
  NOTE_KEYWORDS,
  INTEL_REQUIREMENT_KEYWORDS,
  GROUP_ATTRIBUTE_KEYWORDS,
  INDICATOR_ATTRIBUTE_KEYWORDS,
  VICTIM_ATTRIBUTE_KEYWORDS,
  CASE_ATTRIBUTE_KEYWORDS,
]

const byName = new Map(OBJECT_TYPES.map((t) => [t.name.toLowerCase(), t]))
const keywordIndex = new Map(OBJECT_TYPES.map((t) => [t, new Map(t.keywords.map((k) => [k.keyword.toLowerCase(), k]))]))

/** The object type behind a v3 endpoint name (case-insensitive), or undefined. */
export function findObjectType(name: string): ObjectTypeDef | undefined {
  return byName.get(name.toLowerCase())
}

/** Keywords match case-insensitively: SDKs spell them `hasattribute`, `addressCountrycode` and the like. */
export function findKeyword(type: ObjectTypeDef, keyword: string): KeywordDef | undefined {
  return keywordIndex.get(type)!.get(keyword.toLowerCase())
}
