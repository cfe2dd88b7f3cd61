import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../test/harness.js'
import type { RequestContext } from './context.js'
import { createSecurityLabel, deleteSecurityLabel, getSecurityLabel } from './metadata/security-labels.js'
import { createOrDescribeTag, deleteTag, getTag } from './metadata/tags.js'
import { withTransaction } from './transaction.js'

let t: TestApp
let ctx: RequestContext
beforeAll(async () => {
  t = await createTestApp()
  ctx = await t.context()
})
afterAll(async () => {
  await t.close()
})

describe('withTransaction', () => {
  it('is joined by every domain write, so an outer rollback undoes a tag or label deletion', async () => {
    await createOrDescribeTag(ctx, { name: 'kept tag' })
    await createSecurityLabel(ctx, { name: 'kept label' })
    await expect(
      withTransaction(ctx, async (tctx) => {
        await deleteTag(tctx, 'kept tag')
        await deleteSecurityLabel(tctx, 'kept label')
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    expect((await getTag(ctx, 'kept tag')).name).toBe('kept tag')
    expect((await getSecurityLabel(ctx, 'kept label')).name).toBe('kept label')
  })
})
