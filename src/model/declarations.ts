/**
 * Every kind declared with its fields (model/field.ts), as one explicit list: what the tests that
 * hold other spellings against the declarations walk over. A new declaration is one more line.
 */
import type { KindDeclaration } from './field.js'
import { ARTIFACT, ARTIFACT_TYPE } from './artifact.js'
import { ATTRIBUTE, ATTRIBUTE_TYPE } from './attribute.js'
import { CASE } from './case.js'
import { INTEL_REQUIREMENT } from './intel-requirement.js'
import { INDICATOR } from './indicator.js'
import { NOTE } from './note.js'
import { OWNER } from './owner.js'
import { SECURITY_LABEL } from './security-label.js'
import { TAG } from './tag.js'
import { USER } from './user.js'

export const DECLARED_KINDS: readonly KindDeclaration[] = [
  NOTE, INDICATOR, CASE, ARTIFACT, ARTIFACT_TYPE, INTEL_REQUIREMENT, ATTRIBUTE, ATTRIBUTE_TYPE, TAG, SECURITY_LABEL, OWNER, USER,
]
