/** The v3 envelopes: {data, status, message?, count?, next?, prev?} and the error body. */
import type { ErrorCode } from '../../domain/errors.js'

/** The platform documents 0x1001 as its general code; the others follow its batch code table. */
const ERR_CODES: Record<ErrorCode | 'internal', string> = {
  invalid: '0x1001', timeout: '0x1001', conflict: '0x100A', not_found: '0x1007', forbidden: '0x1002', owner_inaccessible: '0x1002',
  no_credentials: '0x1002', unauthenticated: '0x1002', timestamp: '0x1002', too_large: '0x1001', unavailable: '0x1001', internal: '0x1004',
}

export function v3ErrorBody(code: ErrorCode | 'internal', message: string) {
  return { errCode: ERR_CODES[code], message, status: 'Error' }
}
