/**
 * Every kind declared with its fields (model/field.ts), as one explicit list: what the tests that
 * hold other spellings against the declarations walk over. A new declaration is one more line.
 */
import type { KindDeclaration } from './field.js'
import { ARTIFACT, ARTIFACT_TYPE } from './artifact.js'
import { ATTRIBUTE, ATTRIBUTE_TYPE } from './attribute.js'
import { CASE } from './case.js'
import { GROUP } from './group.js'
import { INDICATOR } from './indicator.js'
import { INTEL_REQUIREMENT } from './intel-requirement.js'
import { NOTE } from './note.js'
import { OWNER } from './owner.js'
import { SECURITY_LABEL } from './security-label.js'
import { TAG } from './tag.js'
import { TASK } from './task.js'
import { USER } from './user.js'
import { ADVERSARY_ASSET, VICTIM, VICTIM_ASSET } from './victim.js'

export const DECLARED_KINDS: readonly KindDeclaration[] = [
  INDICATOR,
  GROUP,
  VICTIM,
  VICTIM_ASSET,
  ADVERSARY_ASSET,
  TASK,
  CASE,
  ARTIFACT,
  ARTIFACT_TYPE,
  NOTE,
  INTEL_REQUIREMENT,
  ATTRIBUTE,
  ATTRIBUTE_TYPE,
  TAG,
  SECURITY_LABEL,
  OWNER,
  USER,
]
