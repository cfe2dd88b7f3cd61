/**
 * The platform's current SDK (tcex, v3 API objects), unmodified, against a Bulwark served over real
 * HTTPS: one run of tcex.py does every check, and each test below reads one check's outcome.
 * Skipped, with a message, when ../shared/clients is absent.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'
import { type ClientCheck, announceSkip, passedCheck, runClientScript } from '../../test/real-clients.js'

const SCRIPT = fileURLToPath(new URL('./tcex.py', import.meta.url))
const skip = announceSkip('tcex (v3 SDK)')

let t: TestApp
let checks: Record<string, ClientCheck> = {}
beforeAll(async () => {
  if (skip) return
  t = await createTestApp({ listen: true })
  const { result } = await runClientScript<{ checks: Record<string, ClientCheck> }>(
    SCRIPT,
    {
      BULWARK_URL: t.baseUrl,
      BULWARK_ACCESS_ID: t.admin.accessId!,
      BULWARK_SECRET_KEY: t.admin.secretKey!,
    },
    150_000,
  )
  checks = result.checks
}, 180_000)
afterAll(async () => {
  await t?.close()
})

const value = (name: string) => passedCheck(checks, name)

const GROUP_TYPES = [
  'Adversary',
  'Attack Pattern',
  'Campaign',
  'Course of Action',
  'Document',
  'Email',
  'Event',
  'Incident',
  'Intrusion Set',
  'Malware',
  'Report',
  'Signature',
  'Tactic',
  'Threat',
  'Tool',
  'Vulnerability',
]

describe.skipIf(skip)('tcex (v3 SDK) against Bulwark', () => {
  it('reads the OPTIONS descriptors: fields and TQL keywords', () => {
    expect(value('OPTIONS: fields and TQL keywords')).toEqual({
      'fields include': ['associatedGroups', 'sightings', 'tags', 'threatAssess'],
      'indicator keywords include': ['hasGroup', 'rating', 'summary', 'tag', 'typeName'],
      'group keywords include': ['hasIndicator', 'name', 'typeName'],
    })
  })

  it('creates nested objects in one request and reads them back with fields', () => {
    expect(value('nested create: a Group with new Indicators, tags, attributes and a label')).toEqual({
      name: 'tcex Adversary',
      indicators: ['a.tcex.example', 'b.tcex.example', 'c.tcex.example'],
      tags: ['tcex tag'],
      attributes: [['Description', 'made by tcex']],
      labels: ['TLP:GREEN'],
    })
    // threatAssess: 4/5 × 80/100 × 800 = 512
    expect(value('nested create: an Indicator with a new Group and an existing one')).toEqual({
      ip: '198.51.100.20',
      groups: ['tcex Adversary', 'tcex Campaign'],
      tags: ['tcex tag'],
      threatAssess: [4, 80, 512],
    })
  })

  it('creates every other Indicator type, custom types through value1..3', () => {
    expect(value('every Indicator type, created and read back')).toEqual({
      EmailAddress: 'tcex@example.org',
      File: 'D41D8CD98F00B204E9800998ECF8427E : E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
      URL: 'https://tcex.example/path',
      ASN: 'ASN64502',
      CIDR: '203.0.113.0/25',
      Mutex: 'tcex-mutex',
      'Registry Key': 'HKLM\\tcex : v : REG_DWORD',
      'User Agent': 'tcex/4',
    })
  })

  it('filters with TQL (hasGroup and hasIndicator sub-queries included) and sorts', () => {
    expect(value('TQL filters: summary, tag, typeName, rating, hasGroup')).toEqual({
      tag: ['198.51.100.20'],
      summary: ['b.tcex.example'],
      typeName: ['a.tcex.example', 'b.tcex.example', 'c.tcex.example'],
      rating: ['198.51.100.20'],
      hasGroup: ['198.51.100.20', 'a.tcex.example', 'b.tcex.example', 'c.tcex.example'],
      'groups hasIndicator': ['tcex Adversary', 'tcex Campaign'],
    })
    expect(value('sorting')).toEqual(['c.tcex.example', 'b.tcex.example', 'a.tcex.example'])
  })

  it('follows next through every page, and pages after the first carry prev', () => {
    expect(value('paging: next followed by the SDK, prev given')).toEqual({
      walked: 12,
      distinct: 12,
      'first has prev': false,
      'second has prev': true,
      'second page': 2,
    })
  })

  it('updates fields and tags, and removes associations and tags with mode=delete', () => {
    // 5/5 × 95/100 × 800 = 760
    expect(value('update: fields and tags')).toEqual({
      rating: 5,
      confidence: 95,
      tags: ['second tag', 'tcex tag'],
      threatAssessScore: 760,
    })
    expect(value('association mode=delete')).toEqual({ groups: ['tcex Campaign'], tags: ['tcex tag'] })
  })

  it('creates, updates and reads every Group type', () => {
    const groups = value('every Group type: create, read with fields, update')
    expect(groups['listed by tag']).toBe(16)
    for (const type of GROUP_TYPES)
      expect(groups[type]).toEqual([type, `g ${type} (renamed)`, ['every group'], '2026-03-01'])
  })

  it('uploads and downloads Group files and gets a Group as PDF', () => {
    expect(value('Group files: upload, download, pdf')).toEqual({
      document: 'bytes from tcex',
      signature: 'rule g { condition: true }',
      pdf: '%PDF-',
    })
  })

  it('creates a victim with every asset type, updates an asset and associates it with a group', () => {
    expect(value('victims and assets')).toEqual({
      victim: ['tcex Victim', 'Initrode', 'Elbonian'],
      assets: [
        ['EmailAddress', 'v@initrode.example'],
        ['NetworkAccount', 'vuser'],
        ['Phone', '555-0199'],
        ['SocialNetwork', '@v'],
        ['WebSite', 'initrode.example'],
      ],
      'updated address': 'changed@initrode.example',
      'group victim assets': [true],
      listed: 5,
    })
  })

  it('is refused a bulk delete of Indicators, in the v3 error body', () => {
    const refused = value('bulk delete of intelligence is refused')
    expect([
      refused.status,
      refused['content-type'],
      refused.body.errCode,
      refused.body.status,
      refused['hosts left'],
    ]).toEqual([400, 'application/json', '0x1001', 'Error', 3])
  })

  it('deletes, after which a read is a 404 the SDK reports', () => {
    expect(value('delete, then a read is a 404 the SDK reports')).toEqual({
      indicator: '404',
      group: '404',
      victim: '404',
    })
  })

  it('ran no check this suite does not assert', () => {
    expect(
      Object.entries(checks)
        .filter(([, c]) => !c.ok)
        .map(([name, c]) => `${name}: ${c.error}`),
    ).toEqual([])
    expect(Object.keys(checks)).toHaveLength(14)
  })
})
