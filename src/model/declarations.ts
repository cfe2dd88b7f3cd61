/**
 * Every kind declared with its fields (model/field.ts), as one explicit list: what the tests that
 * hold other spellings against the declarations walk over. A new declaration is one more line.
 */
import type { KindDeclaration } from './field.js'
import { GROUP } from './group.js'
import { NOTE } from './note.js'
import { TASK } from './task.js'
import { ADVERSARY_ASSET, VICTIM, VICTIM_ASSET } from './victim.js'

export const DECLARED_KINDS: readonly KindDeclaration[] = [NOTE, GROUP, VICTIM, VICTIM_ASSET, ADVERSARY_ASSET, TASK]
