/**
 * The domain's records keep their explicit row → record mappings (they run per row); this holds
 * their names against the declarations: a record carries each stored field under its declared
 * name, and names nothing the declaration does not (beyond the owner and kind every item has).
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { ARTIFACT, ARTIFACT_TYPE } from '../model/artifact.js'
import type { ATTRIBUTE, ATTRIBUTE_TYPE } from '../model/attribute.js'
import type { CASE } from '../model/case.js'
import type { NamesOf, StoredNamesOf } from '../model/field.js'
import type { INTEL_REQUIREMENT } from '../model/intel-requirement.js'
import type { OWNER } from '../model/owner.js'
import type { SECURITY_LABEL } from '../model/security-label.js'
import type { TAG } from '../model/tag.js'
import type { USER } from '../model/user.js'
import type { OwnerPermissions } from './access/owner-permissions.js'
import type { UserRecord } from './access/users.js'
import type { ArtifactRecord, ArtifactTypeRecord } from './cases/artifacts.js'
import type { CaseRecord } from './cases/cases.js'
import type { IntelRequirementRecord } from './cases/intel-requirements.js'
import type { AttributeRecord } from './metadata/attributes.js'
import type { SecurityLabel } from './metadata/security-labels.js'
import type { Tag } from './metadata/tags.js'
import type { AttributeType } from './metadata/types.js'

type Owned = 'ownerId' | 'ownerName'

describe('domain records against the declarations', () => {
  it('carry every stored field under its declared name', () => {
    // createdById and typeId are TQL's views of a column the record carries as createdBy and type.
    expectTypeOf<Exclude<StoredNamesOf<typeof CASE>, 'createdById'>>().toExtend<keyof CaseRecord>()
    expectTypeOf<Exclude<StoredNamesOf<typeof ARTIFACT>, 'typeId'>>().toExtend<keyof ArtifactRecord>()
    expectTypeOf<StoredNamesOf<typeof ARTIFACT_TYPE>>().toExtend<keyof ArtifactTypeRecord>()
    expectTypeOf<StoredNamesOf<typeof INTEL_REQUIREMENT>>().toExtend<keyof IntelRequirementRecord>()
    expectTypeOf<Exclude<StoredNamesOf<typeof ATTRIBUTE>, 'typeId'>>().toExtend<keyof AttributeRecord>()
    expectTypeOf<StoredNamesOf<typeof ATTRIBUTE_TYPE>>().toExtend<keyof AttributeType>()
    expectTypeOf<StoredNamesOf<typeof TAG>>().toExtend<keyof Tag>()
    expectTypeOf<StoredNamesOf<typeof SECURITY_LABEL>>().toExtend<keyof SecurityLabel>()
    expectTypeOf<StoredNamesOf<typeof OWNER>>().toExtend<keyof OwnerPermissions>()
    // An account's settings are shown only to administrators, so the record keeps them apart.
    expectTypeOf<
      Extract<StoredNamesOf<typeof USER>, 'id' | 'userName' | 'firstName' | 'lastName' | 'pseudonym'>
    >().toExtend<keyof UserRecord>()
    expectTypeOf<Exclude<StoredNamesOf<typeof USER>, keyof UserRecord>>().toExtend<
      keyof NonNullable<UserRecord['details']>
    >()
  })

  it('name nothing undeclared', () => {
    expectTypeOf<keyof CaseRecord>().toExtend<NamesOf<typeof CASE> | Owned>()
    expectTypeOf<keyof ArtifactRecord>().toExtend<NamesOf<typeof ARTIFACT> | Owned>()
    expectTypeOf<keyof ArtifactTypeRecord>().toExtend<NamesOf<typeof ARTIFACT_TYPE>>()
    expectTypeOf<keyof IntelRequirementRecord>().toExtend<NamesOf<typeof INTEL_REQUIREMENT>>()
    expectTypeOf<keyof AttributeRecord>().toExtend<NamesOf<typeof ATTRIBUTE> | Owned | 'itemKind'>()
    expectTypeOf<keyof AttributeType>().toExtend<NamesOf<typeof ATTRIBUTE_TYPE> | Owned>()
    expectTypeOf<keyof Tag>().toExtend<NamesOf<typeof TAG> | Owned>()
    expectTypeOf<keyof SecurityLabel>().toExtend<NamesOf<typeof SECURITY_LABEL> | Owned>()
    expectTypeOf<Exclude<keyof UserRecord, 'details'>>().toExtend<NamesOf<typeof USER>>()
  })
})
