/**
 * Victims, their assets (five types, each with a value and maybe a detail under its own names)
 * and the assets of Adversaries, each declared once (model/field.ts). group-types.ts derives
 * the asset type tables the body readers and presenters use from these declarations.
 */
import { type FieldDeclaration, defineKind } from './field.js'

const list = (name: string, type: string, description: string) =>
  ({ name, type: 'object', description, v3: { type, list: true }, v2: false }) as const

export const VICTIM = defineKind({
  kind: 'victim',
  table: 'victim',
  word: 'Victim',
  fields: [
    {
      name: 'id',
      column: 'id',
      type: 'integer',
      description: 'The ID of the Victim',
      write: 'never',
      tql: { name: 'ID', description: 'The ID of the victim.' },
    },
    {
      name: 'name',
      column: 'name',
      type: 'text',
      description: 'The name of the Victim',
      required: true,
      stix21: 'name',
      tql: [
        { name: 'Name', type: 'StringLower', description: 'The name of the victim (compared case-insensitively).' },
        {
          keyword: 'summary',
          name: 'Summary',
          type: 'StringLower',
          description: 'The name of the victim; the same as name.',
        },
      ],
    },
    {
      name: 'description',
      column: 'description',
      type: 'text',
      description: 'A description of the Victim',
      stix21: 'description',
      tql: { name: 'Description', description: 'The description of the victim.' },
    },
    {
      name: 'org',
      column: 'org',
      type: 'text',
      description: 'The organization of the Victim',
      tql: { keyword: 'organization', name: 'Organization', description: 'The organization of the victim.' },
    },
    {
      name: 'suborg',
      column: 'suborg',
      type: 'text',
      description: 'The sub-organization of the Victim',
      tql: { keyword: 'subOrg', name: 'Sub-organization', description: 'The sub-organization of the victim.' },
    },
    {
      name: 'workLocation',
      column: 'work_location',
      type: 'text',
      description: 'Where the Victim works',
      tql: { name: 'Work Location', description: 'The work location of the victim.' },
    },
    {
      name: 'nationality',
      column: 'nationality',
      type: 'text',
      description: 'The nationality of the Victim',
      tql: { name: 'Nationality', description: 'The nationality of the victim.' },
    },
    {
      name: 'ownerName',
      type: 'text',
      description: 'The owner to create the Victim in (default: the owner= parameter, else your Organization)',
      write: 'create',
    },
    list('assets', 'VictimAsset', 'New assets of the Victim ({data: [{type, <value field>}]})'),
    list('tags', 'Tag', 'Tags applied to the Victim'),
    list('securityLabels', 'SecurityLabel', 'Security labels applied to the Victim'),
    list('attributes', 'VictimAttribute', 'Attributes of the Victim'),
    list(
      'associatedGroups',
      'Group',
      'Groups associated with the Victim (same owner only; the Victim needs an asset first)',
    ),
    {
      name: 'ownerId',
      column: 'owner_id',
      type: 'integer',
      description: "The ID of the Victim's owner",
      write: 'never',
      v2: false,
    },
    {
      name: 'dateAdded',
      column: 'date_added',
      type: 'date',
      description: 'When the Victim was created',
      write: 'never',
      stix21: 'created',
      tql: { name: 'Date Added', description: 'The date the victim was added.' },
    },
    {
      name: 'lastModified',
      column: 'last_modified',
      type: 'date',
      description: 'When the Victim was last changed',
      write: 'never',
      v3: { unlisted: true },
      stix21: 'modified',
      tql: { name: 'Last Modified', description: 'The date the victim was last modified.' },
    },
    { name: 'webLink', type: 'text', description: "Link to the Victim's details page", write: 'never' },
  ],
})

/** The five Victim Asset types, in the platform's order. */
export const VICTIM_ASSET_SUBTYPES = [
  { name: 'EmailAddress', apiBranch: 'emailAddresses', apiEntity: 'victimEmailAddress' },
  { name: 'NetworkAccount', apiBranch: 'networkAccounts', apiEntity: 'victimNetworkAccount' },
  { name: 'Phone', apiBranch: 'phoneNumbers', apiEntity: 'victimPhone' },
  { name: 'SocialNetwork', apiBranch: 'socialNetworks', apiEntity: 'victimSocialNetwork' },
  { name: 'WebSite', apiBranch: 'webSites', apiEntity: 'victimWebSite' },
] as const

const canonicalAssetType = (value: string) => {
  const key = value.toLowerCase()
  return (
    VICTIM_ASSET_SUBTYPES.find(
      (t) => t.apiBranch.toLowerCase() === key || t.name.toLowerCase() === key || t.apiEntity.toLowerCase() === key,
    )?.name ?? value
  )
}

const ASSET_TYPE_NAMES = 'EmailAddress, NetworkAccount, Phone, SocialNetwork, WebSite'

/*
 * An asset stores one value and maybe one detail; each type names them its own way, and v2 and
 * v3 differ (v2's `account` is v3's `accountName`). A type's value field is the one on `value`
 * it carries, its detail field the one on `detail`.
 */
export const VICTIM_ASSET = defineKind({
  kind: 'victimAsset',
  table: 'victim_asset',
  word: 'Victim Asset',
  fields: [
    {
      name: 'id',
      column: 'id',
      type: 'integer',
      description: 'The ID of the asset',
      write: 'never',
      tql: { name: 'ID', description: 'The ID of the victim asset.' },
    },
    {
      name: 'type',
      column: 'type',
      type: 'text',
      description: 'The asset type',
      required: true,
      write: 'create',
      values: VICTIM_ASSET_SUBTYPES.map((t) => t.name),
      tql: [
        {
          keyword: 'typeName',
          name: 'Type Name',
          type: 'String',
          description: `The asset type (${ASSET_TYPE_NAMES}).`,
          groupable: true,
          normalize: canonicalAssetType,
        },
        {
          name: 'Type',
          type: 'String',
          description: 'The asset type; the same as typeName.',
          groupable: true,
          normalize: canonicalAssetType,
        },
      ],
    },
    {
      name: 'victimId',
      column: 'victim_id',
      type: 'integer',
      description: 'The Victim the asset belongs to',
      required: true,
      write: 'create',
      tql: { name: 'Victim ID', description: 'The ID of the victim the asset belongs to.' },
    },
    {
      name: 'value',
      column: 'value',
      type: 'text',
      description: 'The value of the asset, whatever its type calls it',
      v3: false,
      v2: false,
      tql: { keyword: 'summary', name: 'Summary', description: 'The value of the asset.' },
    },
    {
      name: 'detail',
      column: 'detail',
      type: 'text',
      description: 'The detail of the asset, whatever its type calls it',
      v3: false,
      v2: false,
    },
    {
      name: 'address',
      column: 'value',
      type: 'text',
      description: 'The email address (EmailAddress)',
      subtypes: { EmailAddress: { required: true } },
    },
    {
      name: 'addressType',
      column: 'detail',
      type: 'text',
      description: 'The kind of email address (EmailAddress)',
      subtypes: { EmailAddress: {} },
    },
    {
      name: 'accountName',
      column: 'value',
      type: 'text',
      description: 'The account (NetworkAccount, SocialNetwork)',
      v2: { name: 'account' },
      subtypes: { NetworkAccount: { required: true }, SocialNetwork: { required: true } },
    },
    {
      name: 'networkType',
      column: 'detail',
      type: 'text',
      description: 'The network (NetworkAccount)',
      v2: { name: 'network' },
      subtypes: { NetworkAccount: {} },
    },
    {
      name: 'socialNetwork',
      column: 'detail',
      type: 'text',
      description: 'The social network (SocialNetwork)',
      v2: { name: 'network' },
      subtypes: { SocialNetwork: {} },
    },
    {
      name: 'phone',
      column: 'value',
      type: 'text',
      description: 'The phone number (Phone)',
      v2: { name: 'phoneType' },
      subtypes: { Phone: { required: true } },
    },
    {
      name: 'website',
      column: 'value',
      type: 'text',
      description: 'The web site (WebSite)',
      v2: { name: 'webSite' },
      subtypes: { WebSite: { required: true } },
    },
    {
      name: 'associatedGroups',
      type: 'object',
      description: 'Groups associated with the asset (same owner only)',
      v3: { type: 'Group', list: true },
      v2: false,
    },
    {
      name: 'ownerId',
      column: 'owner_id',
      type: 'integer',
      description: "The ID of the asset's owner",
      write: 'never',
      v3: false,
    },
    {
      name: 'dateAdded',
      column: 'date_added',
      type: 'date',
      description: 'When the asset was added',
      write: 'never',
      v3: { unlisted: true },
      tql: { name: 'Date Added', description: 'The date the asset was added.' },
    },
    { name: 'webLink', type: 'text', description: "Link to the asset's details page", write: 'never' },
  ],
})

export const ADVERSARY_ASSET_SUBTYPES = [
  { name: 'Handle', apiBranch: 'handles', apiEntity: 'adversaryHandle' },
  { name: 'PhoneNumber', apiBranch: 'phoneNumbers', apiEntity: 'adversaryPhoneNumber' },
  { name: 'URL', apiBranch: 'urls', apiEntity: 'adversaryUrl' },
] as const

/** An Adversary's handles, phone numbers and URLs (v2 only); each type names its one value its own way. */
export const ADVERSARY_ASSET = defineKind({
  kind: 'adversaryAsset',
  table: 'adversary_asset',
  word: 'Adversary Asset',
  fields: [
    { name: 'id', column: 'id', type: 'integer', description: 'The ID of the asset', write: 'never', v3: false },
    {
      name: 'groupId',
      column: 'group_id',
      type: 'integer',
      description: 'The Adversary the asset belongs to',
      write: 'create',
      v3: false,
      v2: false,
    },
    {
      name: 'type',
      column: 'type',
      type: 'text',
      description: 'The asset type',
      write: 'create',
      v3: false,
      values: ADVERSARY_ASSET_SUBTYPES.map((t) => t.name),
    },
    {
      name: 'handle',
      column: 'value',
      type: 'text',
      description: 'The handle (Handle)',
      v3: false,
      subtypes: { Handle: { required: true } },
    },
    {
      name: 'phoneNumber',
      column: 'value',
      type: 'text',
      description: 'The phone number (PhoneNumber)',
      v3: false,
      subtypes: { PhoneNumber: { required: true } },
    },
    {
      name: 'url',
      column: 'value',
      type: 'text',
      description: 'The URL (URL)',
      v3: false,
      subtypes: { URL: { required: true } },
    },
    {
      name: 'dateAdded',
      column: 'date_added',
      type: 'date',
      description: 'When the asset was added',
      write: 'never',
      v3: false,
    },
  ],
})

/** The field of a subtype that sits on a column (an asset type's value or detail field). */
export function subtypeFieldOn(
  fields: readonly FieldDeclaration[],
  subtype: string,
  column: string,
): FieldDeclaration | undefined {
  return fields.find((f) => f.column === column && f.subtypes?.[subtype])
}

/** A field's name in v2 bodies and answers. */
export function v2NameOf(field: FieldDeclaration): string {
  return (field.v2 && field.v2.name) || field.name
}
