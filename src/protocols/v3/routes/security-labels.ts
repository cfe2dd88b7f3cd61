/** /v3/securityLabels: the Security Labels of the caller's owners (read-only, as on the platform). */
import { type SecurityLabel, listLabelRecords, loadLabelRecords } from '../../../domain/metadata/security-labels.js'
import { SECURITY_LABEL } from '../../../model/security-label.js'
import { type V3Endpoint, declaredBodyFields } from '../endpoint.js'
import { presentLabel } from '../present-metadata.js'

export const SECURITY_LABELS: V3Endpoint<SecurityLabel> = {
  path: 'securityLabels',
  tqlType: 'securityLabels',
  word: 'Security Label',
  fields: declaredBodyFields(SECURITY_LABEL),
  options: [],
  present: (l) => presentLabel(l),
  list: listLabelRecords,
  load: loadLabelRecords,
}
