/**
 * The platform's v2 Python SDK (threatconnect-python), unmodified, against a Bulwark served over
 * real HTTPS: one run of threatconnect-python.py does every check, and each test below reads one
 * check's outcome. Skipped, with a message, when ../shared/clients is absent.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { type ClientCheck, announceSkip, passedCheck, runClientScript } from '../../test/real-clients.js'

const SCRIPT = fileURLToPath(new URL('./threatconnect-python.py', import.meta.url))
const skip = announceSkip('threatconnect-python (v2 SDK)')

let t: TestApp
let checks: Record<string, ClientCheck> = {}
beforeAll(async () => {
  if (skip) return
  t = await createTestApp({ listen: true })
  const { result } = await runClientScript<{ checks: Record<string, ClientCheck> }>(
    SCRIPT,
    {
      BULWARK_URL: t.baseUrl,
      BULWARK_ORG: ORG,
      BULWARK_ACCESS_ID: t.admin.accessId!,
      BULWARK_SECRET_KEY: t.admin.secretKey!,
      BULWARK_TOKEN: t.admin.token,
    },
    150_000,
  )
  checks = result.checks
}, 180_000)
afterAll(async () => {
  await t?.close()
})

const value = (name: string) => passedCheck(checks, name)

const ALL_TEN = {
  Address: '198.51.100.7',
  EmailAddress: 'sdk-victim@example.org',
  File: { md5: '0CC175B9C0F1B6A831C399E269772661' },
  Host: 'sdk-host.example.net',
  URL: 'http://sdk-url.example.net/payload',
  ASN: { 'AS Number': 'ASN64500' },
  CIDR: { Block: '203.0.113.0/24' },
  Mutex: { Mutex: 'Global\\sdk-mutex' },
  'Registry Key': { 'Key Name': 'HKLM\\Software\\Sdk', 'Value Name': 'Run', 'Value Type': 'REG_SZ' },
  'User Agent': { 'User Agent String': 'SdkAgent/1.0' },
}

describe.skipIf(skip)('threatconnect-python (v2 SDK) against Bulwark', () => {
  it('authenticates with HMAC signatures and with tokens, and lists owners', () => {
    expect(value('owners (HMAC)')).toEqual([[ORG, 'Organization']])
    expect(value('owners (token)')).toEqual([ORG])
  })

  it('reads the indicator types and creates each of the ten types', () => {
    expect(value('indicator types')).toEqual(['ASN', 'CIDR', 'Mutex', 'Registry Key', 'User Agent'])
    expect(value('create each indicator type')).toHaveLength(10)
  })

  it('parses every type from the mixed list and from each typed list', () => {
    expect(value('read every indicator from the mixed list')).toEqual(ALL_TEN)
    expect(value('read every indicator from its typed list')).toEqual(ALL_TEN)
  })

  it('updates each type and pages with a small result limit', () => {
    expect(value('update each indicator type (rating, confidence)')).toEqual(
      Object.fromEntries(Object.keys(ALL_TEN).map((k) => [k, [4.5, 85]])),
    )
    // 10 Indicators at 3 a page: 4 list requests, after the SDK's one indicator-types request.
    expect(value('paging with resultLimit 3')).toEqual({ count: 10, apiCalls: 5 })
  })

  it('adds, reads, updates and deletes tags, attributes and security labels, and lists by tag and label', () => {
    expect(value('tags, security labels and attributes on an indicator')).toEqual({
      tags: ['SDK Tag', 'Second Tag'],
      attributes: [['Description', 'an attribute from the SDK']],
      label: ['TLP:AMBER'],
      after: { tags: ['SDK Tag'], attributes: ['an updated attribute'] },
    })
    expect(value('indicators by tag and by security label (mixed lists)')).toEqual({
      tag: { Host: 'sdk-host.example.net' },
      label: { Host: 'sdk-host.example.net' },
    })
  })

  it('creates and reads each of its group types', () => {
    expect(value('create each group type')).toEqual([
      'adversaries',
      'campaigns',
      'documents',
      'emails',
      'incidents',
      'signatures',
      'threats',
    ])
    expect(value('read each group type back (typed and mixed)')).toEqual({
      adversaries: ['SDK Adversary', 'Adversary'],
      campaigns: ['SDK Campaign', 'Campaign'],
      documents: ['SDK Document', 'Document'],
      emails: ['SDK Email', 'Email'],
      incidents: ['SDK Incident', 'Incident'],
      signatures: ['SDK Signature', 'Signature'],
      threats: ['SDK Threat', 'Threat'],
      mixed: ['Adversary', 'Campaign', 'Document', 'Email', 'Incident', 'Signature', 'Threat'],
    })
  })

  it('associates indicators and groups, and groups with groups, in both directions', () => {
    expect(value('indicator to group associations, both directions')).toEqual({
      'from group': ALL_TEN,
      'from indicator': [['SDK Adversary', 'Adversary']],
    })
    expect(value('indicators of a group through the filter (mixed list)')).toEqual(ALL_TEN)
    expect(value('group to group associations, both directions')).toEqual({
      forward: ['SDK Campaign', 'SDK Incident'],
      backward: ['SDK Threat'],
      'after disassociate': ['SDK Incident'],
    })
  })

  it('creates a victim with every asset type and associates it with a group both ways', () => {
    expect(value('victim with assets')).toEqual({
      victim: ['SDK Victim', 'Elbonian', 'Initech', 'TPS', 'Basement'],
      assets: [
        ['EmailAddress', 'milton@initech.example'],
        ['NetworkAccount', 'milton'],
        ['Phone', '555-0100'],
        ['SocialNetwork', '@milton'],
        ['WebSite', 'www.initech.example'],
      ],
    })
    expect(value("victim to group associations, both directions, and the victim's indicators")).toEqual({
      groups: ['SDK Adversary'],
      'victims of group': ['SDK Victim'],
      indicators: ALL_TEN,
    })
  })

  it('creates a task and associates it with indicators, groups and victims in both directions', () => {
    expect(value('task create with dates, assignee and associations both directions')).toEqual({
      task: ['SDK Task', 'In Progress', '2026-12-01T00:00:00Z'],
      indicators: ALL_TEN,
      groups: ['SDK Adversary'],
      victims: ['SDK Victim'],
    })
    expect(value('tasks filtered by indicator and by group')).toEqual({ group: ['SDK Task'], indicator: ['SDK Task'] })
  })

  it('records observations, false positives and file occurrences, and reads owner metrics', () => {
    expect(value('observations, false positives, file occurrences and owner metrics')).toEqual({
      observationCount: 5,
      observations: [5],
      occurrences: [['dropper.exe', 'C:\\Temp', '2026-01-02T03:04:05Z']],
      // totalIndicator, totalHost, totalGroup, totalFalsePositive, totalObservationIndicator
      metrics: [10, 1, 7, 1, 5],
    })
  })

  it("reads a Host's DNS resolutions (the reply's shape is tested with recorded ones in platform-gaps.test.ts)", () => {
    expect(value('DNS resolutions of a Host (none recorded: Bulwark runs no resolver)')).toEqual([])
  })

  it('reads the bulk JSON report, and uploads and downloads Document and Signature files', () => {
    expect(value('bulk indicators (JSON report)')).toEqual(ALL_TEN)
    expect(value('document upload and download, signature download')).toEqual({
      document: ['notes.txt', 'document body from the SDK'],
      signature: ['rule.yar', 'YARA', 'rule x { condition: true }'],
    })
  })

  it('gets the spec\'s 404 body (status Error), which this SDK raises on instead of reading as "not found" (docs/real-clients.md)', () => {
    const error = { status: 'Error', message: "Host Indicator 'absent.example.net' not found in Test Organization" }
    expect(value('a 404 reads as the spec says (status Error), not as the SDK expects (Failure)')).toEqual({
      'retrieve raised': error,
      'request raised': error,
    })
  })

  it('deletes every indicator type, the groups, the task and the victim', () => {
    expect(value('delete each indicator type')).toEqual({ left: 0 })
    expect(value('delete groups, task and victim')).toEqual({ 'groups left': 0, 'tasks left': 0, 'victims left': 0 })
  })

  it('ran no check this suite does not assert', () => {
    expect(
      Object.entries(checks)
        .filter(([, c]) => !c.ok)
        .map(([name, c]) => `${name}: ${c.error}`),
    ).toEqual([])
    expect(Object.keys(checks)).toHaveLength(26)
  })
})
