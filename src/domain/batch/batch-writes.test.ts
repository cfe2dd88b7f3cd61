import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { batchThroughApi } from '../../test/batch.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

/** Creates, uploads and runs one job; returns its status and results. */
const batch = (input: unknown, options: Record<string, unknown> = {}) => batchThroughApi(t, input, options)

const db = () => t.store.db

async function indicator(type: string, summary: string) {
  return db()
    .selectFrom('indicator')
    .selectAll()
    .where('type', '=', type)
    .where('summary', '=', summary)
    .executeTakeFirst()
}

async function attributesOf(id: number, kind = 'indicator') {
  return (
    await db()
      .selectFrom('attribute')
      .innerJoin('attribute_type', 'attribute_type.id', 'attribute.type_id')
      .select(['attribute_type.name', 'attribute.value'])
      .where('item_kind', '=', kind)
      .where('item_id', '=', id)
      .orderBy('attribute.id')
      .execute()
  ).map((a) => `${a.name}=${a.value}`)
}

async function tagsOf(id: number, kind = 'indicator') {
  return (
    await db()
      .selectFrom('item_tag')
      .innerJoin('tag', 'tag.id', 'item_tag.tag_id')
      .select('tag.name')
      .where('item_kind', '=', kind)
      .where('item_id', '=', id)
      .orderBy('tag.name')
      .execute()
  ).map((r) => r.name)
}

async function labelsOf(id: number, kind = 'indicator') {
  return (
    await db()
      .selectFrom('item_security_label')
      .innerJoin('security_label as l', 'l.id', 'item_security_label.label_id')
      .select('l.name')
      .where('item_kind', '=', kind)
      .where('item_id', '=', id)
      .orderBy('l.name')
      .execute()
  ).map((r) => r.name)
}

const MD5 = 'a'.repeat(32).toUpperCase()
const SHA1 = 'b'.repeat(40).toUpperCase()
const SHA1B = 'c'.repeat(40).toUpperCase()
const SHA256 = 'd'.repeat(64).toUpperCase()

describe('batch Create', () => {
  it('creates Indicators with fields, attributes, tags and labels, and records bad items without writing them', async () => {
    const { status, results } = await batch({
      indicator: [
        {
          type: 'Host',
          summary: 'Evil.Example',
          rating: 4,
          confidence: 70,
          description: 'bad',
          active: false,
          privateFlag: true,
          attribute: [{ type: 'Source', value: 'feed', displayed: true }],
          tag: [{ name: 'APT' }],
          securityLabel: [{ name: 'TLP:AMBER' }],
        },
        { type: 'Address', ip: ' 10.0.0.1 ' },
        { type: 'Host', summary: 'ok.example', attribute: [{ type: 'No Such Type', value: 'x' }] },
        { type: 'Host', summary: 'ok2.example', tag: [{ name: 'x'.repeat(129) }] },
        { type: 'Host', summary: 'ok3.example', securityLabel: [{ name: 'Unknown Label' }] },
        { type: 'Nope', summary: 'x' },
      ],
    })
    expect(status).toMatchObject({ status: 'Completed', successCount: 2, errorCount: 4, unprocessCount: 0 })
    expect(results.map((r) => [r.code, r.errorSource])).toEqual([
      ['0x1005', 'indicator[2]'],
      ['0x1005', 'indicator[3]'],
      ['0x1005', 'indicator[4]'],
      ['0x1005', 'indicator[5]'],
    ])
    expect(results[0].errorReason).toMatch(/Unknown attribute type 'No Such Type'/)
    const host = (await indicator('Host', 'evil.example'))!
    expect(host).toMatchObject({ rating: 4, confidence: 70, description: 'bad', active: 0, private_flag: 1 })
    expect(await attributesOf(host.id)).toEqual(['Source=feed'])
    expect(await tagsOf(host.id)).toEqual(['APT'])
    expect(await labelsOf(host.id)).toEqual(['TLP:AMBER'])
    expect(await indicator('Address', '10.0.0.1')).toBeDefined()
    for (const s of ['ok.example', 'ok2.example', 'ok3.example']) expect(await indicator('Host', s)).toBeUndefined()
  })

  it('creates a Security Label from a full definition', async () => {
    await batch({
      indicator: [
        {
          type: 'Host',
          summary: 'label.example',
          securityLabel: [{ name: 'Internal', color: 'FF0000', description: 'Ours' }],
        },
      ],
    })
    const host = (await indicator('Host', 'label.example'))!
    expect(await labelsOf(host.id)).toEqual(['Internal'])
    expect(
      await db()
        .selectFrom('security_label')
        .select(['color', 'description'])
        .where('name', '=', 'Internal')
        .executeTakeFirst(),
    ).toEqual({ color: 'FF0000', description: 'Ours' })
  })

  it('updates an existing Indicator: fields given change, others stay', async () => {
    await batch({ indicator: [{ type: 'Host', summary: 'upd.example', rating: 2, confidence: 10 }] })
    await batch({ indicator: [{ type: 'Host', summary: 'upd.example', rating: 5 }] })
    expect(await indicator('Host', 'upd.example')).toMatchObject({ rating: 5, confidence: 10 })
    expect(await db().selectFrom('indicator').select('id').where('summary', '=', 'upd.example').execute()).toHaveLength(
      1,
    )
  })

  it('applies the same Indicator twice in one file in order', async () => {
    await batch(
      {
        indicator: [
          { type: 'Host', summary: 'twice.example', rating: 1, tag: [{ name: 'one' }] },
          { type: 'Host', summary: 'twice.example', rating: 2, tag: [{ name: 'two' }] },
        ],
      },
      { tagWriteType: 'Append' },
    )
    const host = (await indicator('Host', 'twice.example'))!
    expect(host.rating).toBe(2)
    expect(await tagsOf(host.id)).toEqual(['one', 'two'])
  })

  describe('attributeWriteType', () => {
    const first = [
      { type: 'Source', value: 's1' },
      { type: 'Description', value: 'd1' },
    ]
    const incoming = [{ type: 'Source', value: 's2' }]
    const cases: [string, string[]][] = [
      ['Append', ['Source=s1', 'Description=d1', 'Source=s2']],
      ['Replace', ['Source=s2']],
      ['Singleton', ['Description=d1', 'Source=s2']],
      ['Static', ['Source=s1', 'Description=d1']],
    ]
    for (const [mode, expected] of cases) {
      it(`${mode}`, async () => {
        const summary = `attr-${mode.toLowerCase()}.example`
        await batch({ indicator: [{ type: 'Host', summary, attribute: first }] })
        await batch({ indicator: [{ type: 'Host', summary, attribute: incoming }] }, { attributeWriteType: mode })
        expect(await attributesOf((await indicator('Host', summary))!.id)).toEqual(expected)
      })
    }
  })

  it('tagWriteType and securityLabelWriteType Replace and Append', async () => {
    await batch({
      indicator: [
        { type: 'Host', summary: 'tags.example', tag: [{ name: 'a' }], securityLabel: [{ name: 'TLP:RED' }] },
      ],
    })
    await batch(
      {
        indicator: [
          { type: 'Host', summary: 'tags.example', tag: [{ name: 'b' }], securityLabel: [{ name: 'TLP:GREEN' }] },
        ],
      },
      { tagWriteType: 'Append', securityLabelWriteType: 'Append' },
    )
    const id = (await indicator('Host', 'tags.example'))!.id
    expect(await tagsOf(id)).toEqual(['a', 'b'])
    expect(await labelsOf(id)).toEqual(['TLP:GREEN', 'TLP:RED'])
    await batch({
      indicator: [
        { type: 'Host', summary: 'tags.example', tag: [{ name: 'c' }], securityLabel: [{ name: 'TLP:CLEAR' }] },
      ],
    })
    expect(await tagsOf(id)).toEqual(['c'])
    expect(await labelsOf(id)).toEqual(['TLP:CLEAR'])
  })

  it('haltOnError stops at the first error; the rest is unprocessed and the job still Completed', async () => {
    const { status, results } = await batch(
      {
        group: [{ type: 'Adversary', name: 'Halt Group', xid: 'halt-1' }],
        indicator: [
          { type: 'Host', summary: 'h1.example' },
          { type: 'Host', summary: 'bad host' },
          { type: 'Host', summary: 'h3.example' },
        ],
        association: [{ ref_1: 'h1.example', type_1: 'Host', ref_2: 'halt-1' }],
      },
      { haltOnError: true },
    )
    expect(status).toEqual({ id: status.id, status: 'Completed', successCount: 2, errorCount: 1, unprocessCount: 2 })
    expect(results.map((r) => r.errorSource)).toEqual(['indicator[1]'])
    expect(await indicator('Host', 'h1.example')).toBeDefined()
    expect(await indicator('Host', 'h3.example')).toBeUndefined()
  })
})

describe('Files', () => {
  it('merges hash sets given as a summary or as separate fields', async () => {
    await batch({ indicator: [{ type: 'File', summary: `${MD5.toLowerCase()} : ${SHA1}` }] })
    await batch({ indicator: [{ type: 'File', md5: MD5, sha256: SHA256, summary: 'ignored' }] })
    const rows = await db()
      .selectFrom('indicator')
      .select(['summary'])
      .where('type', '=', 'File')
      .where('value1', '=', MD5)
      .execute()
    expect(rows).toEqual([{ summary: `${MD5} : ${SHA1} : ${SHA256}` }])
  })

  async function setupTwoFiles(prefix: string) {
    const m = prefix.repeat(32).toUpperCase().slice(0, 32)
    const s1 = prefix.repeat(40).toUpperCase().slice(0, 40)
    const s2 = 'E'.repeat(63) + prefix.toUpperCase()
    await batch({ indicator: [{ type: 'File', md5: m, tag: [{ name: 'first' }] }] })
    await batch({ indicator: [{ type: 'File', sha256: s2, tag: [{ name: 'second' }] }] })
    return { m, s1, s2 }
  }

  const files = () =>
    db().selectFrom('indicator').select(['id', 'value1', 'value2', 'value3']).where('type', '=', 'File')

  it('fileMergeMode Merge folds the matching Files into one, keeping metadata', async () => {
    const { m, s2 } = await setupTwoFiles('1')
    await batch(
      { indicator: [{ type: 'File', md5: m, sha256: s2 }] },
      { fileMergeMode: 'Merge', tagWriteType: 'Append' },
    )
    const rows = await files()
      .where((eb) => eb.or([eb('value1', '=', m), eb('value3', '=', s2)]))
      .execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ value1: m, value3: s2 })
    expect(await tagsOf(rows[0].id)).toEqual(['first', 'second'])
  })

  it('fileMergeMode Distribute applies the metadata to each matching File', async () => {
    const { m, s2 } = await setupTwoFiles('2')
    await batch({ indicator: [{ type: 'File', md5: m, sha256: s2, rating: 3 }] }, { fileMergeMode: 'Distribute' })
    const rows = await files()
      .where((eb) => eb.or([eb('value1', '=', m), eb('value3', '=', s2)]))
      .execute()
    expect(rows).toHaveLength(2)
    for (const r of rows)
      expect(
        (await db().selectFrom('indicator').select('rating').where('id', '=', r.id).executeTakeFirst())!.rating,
      ).toBe(3)
  })

  const collision = async (mode: string, prefix: string) => {
    const m = prefix.repeat(32).slice(0, 32).toUpperCase()
    await batch({ indicator: [{ type: 'File', md5: m, sha1: SHA1 }] })
    const out = await batch(
      { indicator: [{ type: 'File', md5: m, sha1: SHA1B, rating: 2 }] },
      { hashCollisionMode: mode },
    )
    return {
      m,
      out,
      rows: await files()
        .where((eb) => eb.or([eb('value1', '=', m), eb('value2', 'in', [SHA1, SHA1B])]))
        .execute(),
    }
  }

  it('hashCollisionMode FavorIncoming overwrites the conflicting hash', async () => {
    const { m, rows } = await collision('FavorIncoming', '3')
    expect(rows.map((r) => [r.value1, r.value2])).toEqual([[m, SHA1B]])
    await db()
      .deleteFrom('indicator')
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute()
  })

  it('hashCollisionMode FavorExisting keeps the existing hash', async () => {
    const { m, rows } = await collision('FavorExisting', '4')
    expect(rows.map((r) => [r.value1, r.value2])).toEqual([[m, SHA1]])
    await db()
      .deleteFrom('indicator')
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute()
  })

  it('hashCollisionMode IgnoreIncoming imports nothing and records a 0x2003 warning', async () => {
    const { m, rows, out } = await collision('IgnoreIncoming', '5')
    expect(rows.map((r) => [r.value1, r.value2])).toEqual([[m, SHA1]])
    expect(out.results).toMatchObject([{ code: '0x2003', severity: 'Warning' }])
    expect(out.status.errorCount).toBe(0)
    await db()
      .deleteFrom('indicator')
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute()
  })

  it('hashCollisionMode IgnoreExisting creates a new File without the conflicting hashes', async () => {
    const { m, rows } = await collision('IgnoreExisting', '6')
    expect(rows.map((r) => [r.value1, r.value2]).sort()).toEqual(
      [
        [m, SHA1],
        [null, SHA1B],
      ].sort(),
    )
    await db()
      .deleteFrom('indicator')
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute()
  })

  it('hashCollisionMode Split leaves hashes alone and applies the metadata', async () => {
    const { m, rows } = await collision('Split', '7')
    expect(rows.map((r) => [r.value1, r.value2])).toEqual([[m, SHA1]])
    expect(
      (await db().selectFrom('indicator').select('rating').where('id', '=', rows[0].id).executeTakeFirst())!.rating,
    ).toBe(2)
    await db()
      .deleteFrom('indicator')
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute()
  })
})

describe('associations and groups', () => {
  it('creates Groups by xid and associates by ref, id and inline xid', async () => {
    const { status, results } = await batch({
      group: [
        {
          type: 'Incident',
          name: 'Ransomware',
          xid: 'inc-1',
          eventDate: '2024-08-04T00:00:00Z',
          status: 'open',
          tag: [{ name: 'Ransomware' }],
          associatedGroupXid: ['adv-1'],
        },
        { type: 'Adversary', name: 'Crew', xid: 'adv-1' },
        { type: 'Incident', name: 'No date', xid: 'inc-2' },
      ],
      indicator: [
        {
          type: 'Host',
          summary: 'assoc.example',
          associatedGroups: [{ groupXid: 'inc-1' }, { groupXid: 'missing-xid' }],
        },
        { type: 'URL', summary: 'http://assoc.example/x' },
      ],
      association: [
        {
          ref_1: 'http://assoc.example/x',
          type_1: 'URL',
          ref_2: 'assoc.example',
          type_2: 'Host',
          associationType: 'URL Host',
        },
        { ref_1: 'http://assoc.example/x', type_1: 'URL', ref_2: 'assoc.example', type_2: 'Host' },
        { ref_1: 'adv-1', ref_2: 'http://assoc.example/x', type_2: 'URL' },
      ],
    })
    expect(results.map((r) => [r.code, r.errorSource])).toEqual([
      ['0x1006', 'group[2]'],
      ['0x1009', 'indicator[0].associatedGroups[1]'],
      ['0x1009', 'association[1]'],
    ])
    expect(status).toMatchObject({ successCount: 2 + 2 + 2, errorCount: 3 })
    const incident = (await db().selectFrom('intel_group').selectAll().where('xid', '=', 'inc-1').executeTakeFirst())!
    expect(incident).toMatchObject({
      type: 'Incident',
      name: 'Ransomware',
      status: 'Open',
      event_date: '2024-08-04T00:00:00.000Z',
    })
    expect(await tagsOf(incident.id, 'group')).toEqual(['Ransomware'])
    const adversary = (await db().selectFrom('intel_group').select('id').where('xid', '=', 'adv-1').executeTakeFirst())!
    const host = (await indicator('Host', 'assoc.example'))!
    const url = (await indicator('URL', 'http://assoc.example/x'))!
    const links = await db()
      .selectFrom('association')
      .select(['from_kind', 'from_id', 'to_kind', 'to_id', 'association_type_id'])
      .execute()
    const has = (a: string, ai: number, b: string, bi: number) =>
      links.some((l) => l.from_kind === a && l.from_id === ai && l.to_kind === b && l.to_id === bi)
    expect(has('group', incident.id, 'group', adversary.id) && has('group', adversary.id, 'group', incident.id)).toBe(
      true,
    )
    expect(has('indicator', host.id, 'group', incident.id)).toBe(true)
    expect(has('indicator', url.id, 'indicator', host.id)).toBe(true)
    expect(has('group', adversary.id, 'indicator', url.id)).toBe(true)

    const byId = await batch({ association: [{ id_1: host.id, type_1: 'Host', id_2: adversary.id }] })
    expect(byId.status).toMatchObject({ successCount: 1, errorCount: 0 })
  })

  it("a v2 job's association items cannot set an import's relationship type or an indicator's source id", async () => {
    const { status } = await batch({
      group: [{ type: 'Adversary', name: 'Typed Crew', xid: 'adv-typed' }],
      indicator: [
        {
          type: 'Host',
          summary: 'untyped.example',
          stixId: 'indicator--00000000-0000-4000-8000-0000000000aa',
        },
      ],
      association: [
        {
          ref_1: 'untyped.example',
          type_1: 'Host',
          ref_2: 'adv-typed',
          relationshipType: 'uses',
          relationshipModified: '2024-01-01T00:00:00Z',
        },
      ],
    })
    expect(status).toMatchObject({ successCount: 3, errorCount: 0 })
    const host = (await indicator('Host', 'untyped.example'))!
    expect(host.stix_id).toBeNull()
    const rows = await db()
      .selectFrom('association')
      .select(['relationship_type', 'relationship_from_source', 'relationship_modified', 'last_modified'])
      .where('from_kind', '=', 'indicator')
      .where('from_id', '=', host.id)
      .execute()
    expect(rows).toEqual([
      { relationship_type: null, relationship_from_source: null, relationship_modified: null, last_modified: null },
    ])
  })

  it('action Delete deletes the listed items and reports the missing ones', async () => {
    await batch({
      indicator: [{ type: 'Host', summary: 'del.example' }],
      group: [{ type: 'Adversary', name: 'Gone', xid: 'del-1' }],
    })
    const { status, results } = await batch(
      {
        indicator: [
          { type: 'Host', summary: 'del.example' },
          { type: 'Host', summary: 'never.example' },
        ],
        group: [{ type: 'Adversary', name: 'Gone', xid: 'del-1' }],
      },
      { action: 'Delete' },
    )
    expect(status).toMatchObject({ successCount: 2, errorCount: 1 })
    expect(results).toMatchObject([{ code: '0x1007', errorSource: 'indicator[1]' }])
    expect(await indicator('Host', 'del.example')).toBeUndefined()
    expect(
      await db().selectFrom('deleted_indicator').select('summary').where('summary', '=', 'del.example').execute(),
    ).toHaveLength(1)
    expect(await db().selectFrom('intel_group').select('id').where('xid', '=', 'del-1').execute()).toEqual([])
  })

  it('records a deletion the way the API does, pruning records older than indicatorDeleteRetentionDays', async () => {
    const ownerId = (await db().selectFrom('owner').select('id').where('name', '=', ORG).executeTakeFirstOrThrow()).id
    await db()
      .insertInto('deleted_indicator')
      .values({
        owner_id: ownerId,
        type: 'Host',
        summary: 'long-gone.example',
        date_added: '2020-01-01T00:00:00.000Z',
        date_deleted: '2020-01-02T00:00:00.000Z',
      })
      .execute()
    await batch({ indicator: [{ type: 'Host', summary: 'prune.example' }] })
    const added = (await indicator('Host', 'prune.example'))!.date_added
    await batch({ indicator: [{ type: 'Host', summary: 'prune.example' }] }, { action: 'Delete' })
    const records = await db()
      .selectFrom('deleted_indicator')
      .select(['summary', 'date_added'])
      .where('summary', 'in', ['long-gone.example', 'prune.example'])
      .execute()
    expect(records).toEqual([{ summary: 'prune.example', date_added: added }])
  })
})

describe('batch and API write Indicators alike', () => {
  it.runIf(process.env.BULWARK_TEST_DB === 'postgres')(
    'merges Indicators another writer committed after its look-up as updates, without running the chunk again',
    async () => {
      // Between the chunk's look-up and its INSERT, another writer commits two of its values (PostgreSQL: a node or
      // a job beside this one; SQLite has one writer).
      const pool = t.store.pool!
      const connect = pool.connect
      let inserts = 0
      let rival: Promise<unknown> | undefined
      const patched = new WeakSet<object>()
      // Kysely's connections; pool.query (the credential look-ups) passes a callback and is left alone.
      pool.connect = (async (callback?: unknown) => {
        if (callback) return (connect as (callback: unknown) => void).call(pool, callback)
        const client = await (connect as () => Promise<import('pg').PoolClient>).call(pool)
        if (!patched.has(client)) {
          patched.add(client)
          const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>
          client.query = (async (...args: unknown[]) => {
            if (typeof args[0] === 'string' && args[0].startsWith('insert into "indicator"') && inserts++ === 0) {
              rival = Promise.all([
                t.request({ method: 'POST', url: '/api/v2/indicators/hosts', payload: { hostName: 'raced.example' } }),
                t.request({ method: 'POST', url: '/api/v2/indicators/files', payload: { md5: 'ab'.repeat(16) } }),
              ])
              const answers = (await rival) as { statusCode: number }[]
              expect(answers.map((a) => a.statusCode)).toEqual([201, 201])
            }
            return query(...args)
          }) as never
        }
        return client
      }) as never
      try {
        const run = await batch({
          indicator: [
            { type: 'Host', summary: 'raced.example', rating: 4, tag: [{ name: 'raced' }] },
            { type: 'File', summary: 'ab'.repeat(16), attribute: [{ type: 'Description', value: 'lost the race' }] },
            { type: 'Host', summary: 'unraced.example' },
          ],
        })
        expect(run.status).toMatchObject({ status: 'Completed', errorCount: 0, successCount: 3 })
      } finally {
        pool.connect = connect
      }
      expect(rival).toBeDefined()
      // One INSERT of the chunk's Indicators (and the rival's two): the chunk was not run again.
      expect(inserts).toBe(3)
      const host = (await indicator('Host', 'raced.example'))!
      expect(host.rating).toBe(4)
      expect(await tagsOf(host.id)).toEqual(['raced'])
      const file = (await indicator('File', 'AB'.repeat(16)))!
      expect(await attributesOf(file.id)).toEqual(['Description=lost the race'])
      expect(await indicator('Host', 'unraced.example')).toBeDefined()
    },
  )

  it('a new Indicator gets the same columns from a batch file as from the API', async () => {
    await batch({ indicator: [{ type: 'Host', summary: 'same-batch.example' }] })
    const api = await t.request({
      method: 'POST',
      url: '/api/v2/indicators/hosts',
      payload: { hostName: 'same-api.example' },
    })
    expect(api.statusCode).toBe(201)
    const strip = (row: Record<string, unknown> | undefined) => {
      const {
        id: _id,
        summary: _summary,
        value1: _value1,
        date_added: _added,
        last_modified: _modified,
        ...rest
      } = row!
      return rest
    }
    const fromBatch = strip(await indicator('Host', 'same-batch.example'))
    expect(fromBatch).toMatchObject({ active: 1, private_flag: 0, dns_active: 0, whois_active: 0 })
    expect(strip(await indicator('Host', 'same-api.example'))).toEqual(fromBatch)
  })
})

describe('batch and API write Groups alike', () => {
  it('a Document or Report from a batch file starts Awaiting Upload, as through the API', async () => {
    await batch({
      group: [
        { type: 'Report', name: 'Batch report', xid: 'report-1', fileName: 'r.pdf' },
        { type: 'Document', name: 'Batch doc', xid: 'doc-1', fileName: 'd.txt' },
      ],
    })
    const rows = await db()
      .selectFrom('intel_group')
      .select(['xid', 'status'])
      .where('xid', 'in', ['report-1', 'doc-1'])
      .orderBy('xid')
      .execute()
    expect(rows).toEqual([
      { xid: 'doc-1', status: 'Awaiting Upload' },
      { xid: 'report-1', status: 'Awaiting Upload' },
    ])
    const api = await t.request({
      method: 'POST',
      url: '/api/v2/groups/reports',
      payload: { name: 'API report', fileName: 'a.pdf' },
    })
    expect(api.json().data.report.status).toBe('Awaiting Upload')
  })
})
