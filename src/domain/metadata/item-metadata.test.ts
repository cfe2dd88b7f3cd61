import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'
import type { RequestContext } from '../context.js'
import { findReadableItem } from '../items/items.js'
import * as metadata from './item-metadata.js'
import { createTestGroup } from '../../test/factories.js'
import { createOrUpdateIndicator } from '../indicators/indicators.js'
import { updateIndicatorObject } from '../indicators/objects.js'
import { deleteSecurityLabel } from './security-labels.js'
import { deleteTagRecord, updateTag, updateTagRecord } from './tags.js'

let t: TestApp
let ctx: RequestContext
let groupId: number

async function insertGroup(ownerId: number, name: string) {
  return createTestGroup(t, { ownerId, type: 'Adversary', name })
}

beforeAll(async () => {
  t = await createTestApp()
  ctx = await t.context()
  groupId = await insertGroup(ctx.owner.id, 'Bad Panda')
  await t.store.db
    .insertInto('security_label')
    .values({
      owner_id: ctx.owner.id,
      name: 'TLP:AMBER',
      description: 'Limited disclosure',
      color: 'FFC000',
      date_added: ctx.now,
    })
    .execute()
})
afterAll(async () => {
  await t.close()
})

describe('attributes on items', () => {
  it('adds an attribute of a known type and lists it', async () => {
    const group = await findReadableItem(ctx, 'group', groupId)
    const added = await metadata.addAttribute(ctx, group, {
      type: 'Description',
      value: 'Targets banks',
      displayed: true,
      source: 'analyst',
    })
    expect(added).toMatchObject({ type: 'Description', value: 'Targets banks', displayed: true, source: 'analyst' })
    expect((await metadata.listAttributes(ctx, group)).map((a) => a.value)).toEqual(['Targets banks'])
  })

  it('keeps displayed false for types other than Source and Description', async () => {
    const group = await findReadableItem(ctx, 'group', groupId)
    const added = await metadata.addAttribute(ctx, group, { type: 'Title', value: 'Panda', displayed: true })
    expect(added.displayed).toBe(false)
  })

  it('rejects an unknown type, a type for another kind, an overlong value and a value breaking the rule', async () => {
    const group = await findReadableItem(ctx, 'group', groupId)
    await expect(metadata.addAttribute(ctx, group, { type: 'Nope', value: 'x' })).rejects.toMatchObject({
      code: 'invalid',
      message: "Unknown attribute type 'Nope'",
    })
    await expect(metadata.addAttribute(ctx, group, { type: 'Physical Address', value: 'x' })).rejects.toMatchObject({
      code: 'invalid',
    })
    await expect(metadata.addAttribute(ctx, group, { type: 'Title', value: 'x'.repeat(256) })).rejects.toMatchObject({
      message: "Attribute value for 'Title' is longer than 255 characters",
    })
    await expect(metadata.addAttribute(ctx, group, { type: 'Attack Phase', value: 'Lunch' })).rejects.toMatchObject({
      code: 'invalid',
    })
    await expect(metadata.addAttribute(ctx, group, { type: 'Title' })).rejects.toMatchObject({
      message: 'Attribute value is required',
    })
  })

  it('updates and deletes an attribute, and 404s for one on another item', async () => {
    const group = await findReadableItem(ctx, 'group', groupId)
    const added = await metadata.addAttribute(ctx, group, { type: 'Source', value: 'feed A' })
    expect((await metadata.updateAttribute(ctx, group, added.id, { value: 'feed B' })).value).toBe('feed B')
    const other = await findReadableItem(ctx, 'group', await insertGroup(ctx.owner.id, 'Other'))
    await expect(metadata.deleteAttribute(ctx, other, added.id)).rejects.toMatchObject({ code: 'not_found' })
    await metadata.deleteAttribute(ctx, group, added.id)
    expect((await metadata.listAttributes(ctx, group)).some((a) => a.id === added.id)).toBe(false)
  })

  it('refuses a read-only member', async () => {
    const reader = await t.context(await t.createAccount({ role: 'Read Only User' }))
    const group = await findReadableItem(reader, 'group', groupId)
    await expect(metadata.addAttribute(reader, group, { type: 'Title', value: 'x' })).rejects.toMatchObject({
      code: 'forbidden',
    })
  })
})

describe('security labels on items', () => {
  it('applies an existing label to an item and to an attribute', async () => {
    const group = await findReadableItem(ctx, 'group', groupId)
    await metadata.applyLabel(ctx, group, 'TLP:AMBER')
    expect((await metadata.listItemLabels(ctx, group)).map((l) => l.name)).toEqual(['TLP:AMBER'])
    const attribute = await metadata.addAttribute(ctx, group, { type: 'Title', value: 'labelled' })
    await metadata.applyAttributeLabel(ctx, group, attribute.id, 'TLP:AMBER')
    expect((await metadata.listAttributeLabels(ctx, group, attribute.id)).map((l) => l.name)).toEqual(['TLP:AMBER'])
  })

  it('refuses a label that does not exist in the owner and creates nothing', async () => {
    const group = await findReadableItem(ctx, 'group', groupId)
    const before = await t.store.db
      .selectFrom('security_label')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    await expect(metadata.applyLabel(ctx, group, 'TLP:PURPLE')).rejects.toMatchObject({
      code: 'not_found',
      message: "Security Label 'TLP:PURPLE' does not exist in Test Organization",
    })
    const after = await t.store.db
      .selectFrom('security_label')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n))
  })
})

describe('tags on items', () => {
  it('creates a tag on first use, once, and keeps names case-sensitive', async () => {
    const group = await findReadableItem(ctx, 'group', groupId)
    await metadata.addTag(ctx, group, 'APT')
    await metadata.addTag(ctx, group, 'APT')
    await metadata.addTag(ctx, group, 'apt')
    expect((await metadata.listItemTags(ctx, group)).map((t) => t.name).sort()).toEqual(['APT', 'apt'])
    await metadata.removeTag(ctx, group, 'apt')
    expect((await metadata.listItemTags(ctx, group)).map((t) => t.name)).toEqual(['APT'])
  })

  it('refuses tags longer than 128 characters and empty names', async () => {
    const group = await findReadableItem(ctx, 'group', groupId)
    await expect(metadata.addTag(ctx, group, 'x'.repeat(129))).rejects.toMatchObject({
      message: 'Tag names are at most 128 characters',
    })
    await expect(metadata.addTag(ctx, group, '  ')).rejects.toMatchObject({ code: 'invalid' })
    await metadata.addTag(ctx, group, 'y'.repeat(128))
  })

  it('removes every attribute, tag and label link of deleted items', async () => {
    const id = await insertGroup(ctx.owner.id, 'Doomed')
    const group = await findReadableItem(ctx, 'group', id)
    await metadata.addTag(ctx, group, 'gone')
    await metadata.applyLabel(ctx, group, 'TLP:AMBER')
    await metadata.addAttribute(ctx, group, { type: 'Title', value: 'x' })
    await metadata.deleteItemMetadata(t.store.db, 'group', [id])
    expect(await metadata.listItemTags(ctx, group)).toEqual([])
    expect(await metadata.listItemLabels(ctx, group)).toEqual([])
    expect(await metadata.listAttributes(ctx, group)).toEqual([])
  })
})

describe("an Indicator's tags and Security Labels are part of it: changing them moves its lastModified", () => {
  const LONG_AGO = '2020-01-01T00:00:00.000Z'
  let indicatorId: number
  let bystanderId: number

  const lastModified = async (id: number) =>
    (await t.store.db.selectFrom('indicator').select('last_modified').where('id', '=', id).executeTakeFirstOrThrow())
      .last_modified
  const backdate = (...ids: number[]) =>
    t.store.db.updateTable('indicator').set({ last_modified: LONG_AGO }).where('id', 'in', ids).execute()
  const indicator = () => findReadableItem(ctx, 'indicator', indicatorId)

  beforeAll(async () => {
    indicatorId = (await createOrUpdateIndicator(ctx, { type: 'Host', hostName: 'stamped.example' })).indicator.id
    bystanderId = (await createOrUpdateIndicator(ctx, { type: 'Host', hostName: 'bystander.example' })).indicator.id
  })

  it('tagging and untagging it', async () => {
    await backdate(indicatorId)
    const tagging = await t.context()
    await metadata.addTag(tagging, await indicator(), 'phishing')
    expect(await lastModified(indicatorId)).toBe(tagging.now)

    await backdate(indicatorId)
    await metadata.addTag(ctx, await indicator(), 'phishing')
    expect(await lastModified(indicatorId), 'a tag it had already is no change').toBe(LONG_AGO)

    const untagging = await t.context()
    await metadata.removeTag(untagging, await indicator(), 'phishing')
    expect(await lastModified(indicatorId)).toBe(untagging.now)
  })

  it('labelling and unlabelling it', async () => {
    await backdate(indicatorId)
    const labelling = await t.context()
    await metadata.applyLabel(labelling, await indicator(), 'TLP:AMBER')
    expect(await lastModified(indicatorId)).toBe(labelling.now)

    await backdate(indicatorId)
    const unlabelling = await t.context()
    await metadata.removeLabel(unlabelling, await indicator(), 'TLP:AMBER')
    expect(await lastModified(indicatorId)).toBe(unlabelling.now)
  })

  it('replacing its tags and labels through a v3 update, also when the body only removes them', async () => {
    await metadata.addTag(ctx, await indicator(), 'old-tag')
    await metadata.applyLabel(ctx, await indicator(), 'TLP:AMBER')
    await backdate(indicatorId)
    const replacing = await t.context()
    await updateIndicatorObject(replacing, indicatorId, { tags: { data: [], mode: 'replace' } })
    expect(await lastModified(indicatorId)).toBe(replacing.now)

    await backdate(indicatorId)
    const deleting = await t.context()
    await updateIndicatorObject(deleting, indicatorId, {
      securityLabels: { data: [{ name: 'TLP:AMBER' }], mode: 'delete' },
    })
    expect(await lastModified(indicatorId)).toBe(deleting.now)

    await metadata.applyLabel(ctx, await indicator(), 'TLP:AMBER')
    await backdate(indicatorId)
    const emptying = await t.context()
    await updateIndicatorObject(emptying, indicatorId, { securityLabels: { data: [], mode: 'replace' } })
    expect(await lastModified(indicatorId)).toBe(emptying.now)
    expect(await metadata.listItemLabels(ctx, await indicator())).toEqual([])
  })

  it('renaming or deleting a tag it carries, and only the Indicators carrying it', async () => {
    await metadata.addTag(ctx, await indicator(), 'renamed-later')
    await backdate(indicatorId, bystanderId)
    const renaming = await t.context()
    await updateTag(renaming, 'renamed-later', { name: 'renamed-now' })
    expect(await lastModified(indicatorId)).toBe(renaming.now)
    expect(await lastModified(bystanderId)).toBe(LONG_AGO)

    await backdate(indicatorId)
    const describing = await t.context()
    await updateTag(describing, 'renamed-now', { description: 'only the description' })
    expect(await lastModified(indicatorId), 'a new description is not part of the Indicator').toBe(LONG_AGO)

    const tagId = (
      await t.store.db.selectFrom('tag').select('id').where('name', '=', 'renamed-now').executeTakeFirstOrThrow()
    ).id
    const renamingById = await t.context()
    await updateTagRecord(renamingById, tagId, { name: 'renamed-by-id' })
    expect(await lastModified(indicatorId)).toBe(renamingById.now)

    await backdate(indicatorId)
    const deleting = await t.context()
    await deleteTagRecord(deleting, tagId)
    expect(await lastModified(indicatorId)).toBe(deleting.now)
    expect(await lastModified(bystanderId)).toBe(LONG_AGO)
  })

  it('deleting a Security Label it carries', async () => {
    await t.store.db
      .insertInto('security_label')
      .values({ owner_id: ctx.owner.id, name: 'Doomed label', description: null, color: null, date_added: ctx.now })
      .execute()
    await metadata.applyLabel(ctx, await indicator(), 'Doomed label')
    await backdate(indicatorId, bystanderId)
    const deleting = await t.context()
    await deleteSecurityLabel(deleting, 'Doomed label')
    expect(await lastModified(indicatorId)).toBe(deleting.now)
    expect(await lastModified(bystanderId)).toBe(LONG_AGO)
  })

  it("leaves other kinds' lastModified to their own fields", async () => {
    const before = (
      await t.store.db
        .selectFrom('intel_group')
        .select('last_modified')
        .where('id', '=', groupId)
        .executeTakeFirstOrThrow()
    ).last_modified
    await metadata.addTag(await t.context(), await findReadableItem(ctx, 'group', groupId), 'group-only')
    const after = (
      await t.store.db
        .selectFrom('intel_group')
        .select('last_modified')
        .where('id', '=', groupId)
        .executeTakeFirstOrThrow()
    ).last_modified
    expect(after).toBe(before)
  })
})
