import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'
import { associate, dissociate, loadPartnerIds, requireAssociationType } from './associations.js'
import type { RequestContext } from '../context.js'
import { findReadableItem } from './items.js'
import { createTestGroup } from '../../test/factories.js'

let t: TestApp
let ctx: RequestContext
let communityId: number

const insert = {
  group: (ownerId: number, name = 'G') => createTestGroup(t, { ownerId, type: 'Threat', name }),
  indicator: async (ownerId: number, type: string, summary: string) =>
    (
      await t.store.db
        .insertInto('indicator')
        .values({
          owner_id: ownerId,
          type,
          summary,
          value1: summary,
          date_added: ctx.now,
          last_modified: ctx.now,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id,
  victim: async (ownerId: number) =>
    (
      await t.store.db
        .insertInto('victim')
        .values({ owner_id: ownerId, name: 'Victim', date_added: ctx.now, last_modified: ctx.now } as never)
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id,
  asset: async (ownerId: number, victimId: number) =>
    (
      await t.store.db
        .insertInto('victim_asset')
        .values({
          owner_id: ownerId,
          victim_id: victimId,
          type: 'EmailAddress',
          value: 'a@b.example',
          detail: null,
          date_added: ctx.now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id,
}

beforeAll(async () => {
  t = await createTestApp()
  communityId = await t.createOwner('Partners', 'Community')
  const admin = await t.store.db
    .selectFrom('user_account')
    .select('user_name')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow()
  await t.store.db
    .insertInto('membership')
    .values({ user_id: 1, owner_id: communityId, role: 'Editor', date_added: new Date().toISOString() })
    .execute()
  expect(admin.user_name).toBe(t.admin.userName)
  ctx = await t.context()
})
afterAll(async () => {
  await t.close()
})

describe('associations', () => {
  it('stores an association in both directions and removes both', async () => {
    const group = await findReadableItem(ctx, 'group', await insert.group(ctx.owner.id))
    const host = await findReadableItem(ctx, 'indicator', await insert.indicator(ctx.owner.id, 'Host', 'evil.example'))
    expect(await associate(ctx, group, host)).toBe(true)
    expect(await associate(ctx, group, host)).toBe(false)
    expect((await loadPartnerIds(t.store.db, 'group', [group.id], 'indicator')).get(group.id)).toEqual([host.id])
    expect((await loadPartnerIds(t.store.db, 'indicator', [host.id], 'group')).get(host.id)).toEqual([group.id])
    await dissociate(ctx, host, group)
    expect((await loadPartnerIds(t.store.db, 'group', [group.id], 'indicator')).size).toBe(0)
    await expect(dissociate(ctx, host, group)).rejects.toMatchObject({ code: 'not_found' })
  })

  it('never associates a Victim with an Indicator or another Victim', async () => {
    const victimId = await insert.victim(ctx.owner.id)
    await insert.asset(ctx.owner.id, victimId)
    const victim = await findReadableItem(ctx, 'victim', victimId)
    const host = await findReadableItem(ctx, 'indicator', await insert.indicator(ctx.owner.id, 'Host', 'v.example'))
    await expect(associate(ctx, victim, host)).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/cannot be associated with an Indicator directly/),
    })
    const other = await findReadableItem(ctx, 'victim', await insert.victim(ctx.owner.id))
    await expect(associate(ctx, victim, other)).rejects.toMatchObject({ code: 'invalid' })
  })

  it('needs a Victim Asset before a Victim can be associated', async () => {
    const victimId = await insert.victim(ctx.owner.id)
    const victim = await findReadableItem(ctx, 'victim', victimId)
    const group = await findReadableItem(ctx, 'group', await insert.group(ctx.owner.id))
    await expect(associate(ctx, group, victim)).rejects.toMatchObject({
      message: `Victim ${victimId} needs at least one Victim Asset before it can be associated`,
    })
    await insert.asset(ctx.owner.id, victimId)
    expect(await associate(ctx, group, victim)).toBe(true)
  })

  it('lets Groups and Indicators cross owners but keeps Victims in theirs', async () => {
    const localGroup = await findReadableItem(ctx, 'group', await insert.group(ctx.owner.id))
    const sharedHost = await findReadableItem(
      ctx,
      'indicator',
      await insert.indicator(communityId, 'Host', 'shared.example'),
    )
    expect(await associate(ctx, localGroup, sharedHost)).toBe(true)
    const sharedGroup = await findReadableItem(ctx, 'group', await insert.group(communityId))
    const victimId = await insert.victim(ctx.owner.id)
    await insert.asset(ctx.owner.id, victimId)
    await expect(associate(ctx, sharedGroup, await findReadableItem(ctx, 'victim', victimId))).rejects.toMatchObject({
      message: expect.stringMatching(/within their own owner/),
    })
  })

  it('checks typed Indicator associations against their pair of types', async () => {
    const type = await requireAssociationType(t.store.db, 'cidrToAddress')
    const cidr = await findReadableItem(ctx, 'indicator', await insert.indicator(ctx.owner.id, 'CIDR', '10.0.0.0/8'))
    const address = await findReadableItem(
      ctx,
      'indicator',
      await insert.indicator(ctx.owner.id, 'Address', '10.1.2.3'),
    )
    const host = await findReadableItem(ctx, 'indicator', await insert.indicator(ctx.owner.id, 'Host', 'typed.example'))
    expect(await associate(ctx, address, cidr, { associationTypeId: type.id })).toBe(true)
    await expect(associate(ctx, host, cidr, { associationTypeId: type.id })).rejects.toMatchObject({
      message: expect.stringMatching(/^Association cannot be applied to the indicator types/),
    })
  })

  it('refuses members without the associate permission', async () => {
    const reader = await t.context(await t.createAccount({ role: 'Read Only User' }))
    const group = await findReadableItem(reader, 'group', await insert.group(ctx.owner.id))
    const host = await findReadableItem(reader, 'indicator', await insert.indicator(ctx.owner.id, 'Host', 'ro.example'))
    await expect(associate(reader, group, host)).rejects.toMatchObject({ code: 'forbidden' })
  })
})
