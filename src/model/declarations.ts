/**
 * Every kind declared with its fields (model/field.ts), as one explicit list: what the tests that
 * hold other spellings against the declarations walk over. A new declaration is one more line.
 */
import type { KindDeclaration } from './field.js'
import { INDICATOR } from './indicator.js'
import { NOTE } from './note.js'

export const DECLARED_KINDS: readonly KindDeclaration[] = [NOTE, INDICATOR]
