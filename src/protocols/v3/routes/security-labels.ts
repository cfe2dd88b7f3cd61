/** /v3/securityLabels: the Security Labels of the caller's owners (read-only, as on the platform). */
import { type SecurityLabel, listLabelRecords, loadLabelRecords } from '../../../domain/metadata/security-labels.js'
import type { FieldSpec, V3Endpoint } from '../endpoint.js'
import { presentLabel } from '../present-metadata.js'

const LABEL_FIELDS: FieldSpec[] = [
  { name: 'id', type: 'Integer', description: 'The ID of the security label', readOnly: true },
  { name: 'name', type: 'String', description: 'The name of the security label', readOnly: true },
  { name: 'description', type: 'String', description: 'A description of the security label', readOnly: true },
  { name: 'color', type: 'String', description: 'The color of the security label (hex)', readOnly: true },
  { name: 'dateAdded', type: 'Date', description: 'When the security label was created', readOnly: true },
  { name: 'owner', type: 'String', description: 'The name of the security label\'s owner', readOnly: true },
]

export const SECURITY_LABELS: V3Endpoint<SecurityLabel> = {
  path: 'securityLabels', tqlType: 'securityLabels', word: 'Security Label', fields: LABEL_FIELDS, options: [],
  present: (l) => presentLabel(l), list: listLabelRecords, load: loadLabelRecords,
}
