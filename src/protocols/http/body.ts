/**
 * Request bodies, read the same way by every REST interface: JSON through the domain's one
 * reader (readJson), so a body can neither shadow inherited names nor nest without bound. An
 * empty body means "no body": SDKs send a JSON Content-Type on bodiless calls.
 */
import { readJson } from '../../core/input.js'

export function readJsonBody(
  _req: unknown,
  body: string | Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  const text = body.toString()
  if (text.trim() === '') return done(null, undefined)
  try {
    done(null, readJson(text, 'Malformed JSON body'))
  } catch (error) {
    done(error as Error, undefined)
  }
}
