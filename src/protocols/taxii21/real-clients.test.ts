/**
 * The OASIS taxii2-client, unchanged, against the TAXII 2.1 server over real HTTPS, both
 * application versions; every object it receives must pass stix2 and stix2-validator.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORG, type TestApp, createTestApp } from '../../test/harness.js'
import { announceSkip, runClientScript } from '../../test/real-clients.js'

const SCRIPT = fileURLToPath(new URL('./taxii2_client_run.py', import.meta.url))
const skip = announceSkip('taxii2-client')

interface CollectionSeen {
  id: string
  alias: string
  can_read: boolean
  pages: number
  ids: string[]
  indicators_only: string[]
  added_after_middle?: string[]
  one?: string[]
  versions?: string[]
  middle?: { id: string; modified: string }
  manifest?: string[]
  manifest_pages?: number
}
interface AppSeen {
  title: string
  api_roots: string[]
  root_title: string
  versions: string[]
  max_content_length: number
  collections: Record<string, CollectionSeen>
  validated: number
  invalid: string[]
}

describe.skipIf(skip)('taxii2-client against Bulwark', () => {
  let t: TestApp
  const password = 'client-password-1'
  let user: string

  beforeAll(async () => {
    t = await createTestApp({ listen: true })
    await t.createOwner('Client Community', 'Community')
    const account = await t.createAccount({
      kind: 'taxii',
      password,
      memberships: { 'Client Community': 'Subscriber' },
    })
    user = account.userName
    const post = (url: string, payload: object) => t.request({ method: 'POST', url: `/api/v2${url}`, payload })
    const bodies: [string, object][] = [
      ['addresses', { ip: '198.51.100.9', rating: 3 }],
      ['addresses', { ip: '2001:db8::9' }],
      ['emailAddresses', { address: "o'hara@example.com" }],
      ['files', { md5: '0cc175b9c0f1b6a831c399e269772661', sha1: '86f7e437faa5a7fce15d1ddcb9eaeaea377667b8' }],
      ['hosts', { hostName: 'client.example', rating: 5, confidence: 40 }],
      ['urls', { text: "https://client.example/a'b\\c?ü=1" }],
      ['asns', { 'AS Number': 'AS65000' }],
      ['cidrBlocks', { Block: '2001:db8::/48' }],
      ['mutexes', { Mutex: "Local\\it's ✓" }],
      ['registryKeys', { 'Key Name': 'HKCU\\Software\\x', 'Value Name': 'v', 'Value Type': 'REG_QWORD_LITTLE_ENDIAN' }],
      ['userAgents', { 'User Agent String': 'curl/8 "x" \\ y' }],
    ]
    for (let i = 0; i < 14; i++) bodies.push(['hosts', { hostName: `bulk-${i}.client.example` }])
    for (const [branch, body] of bodies) expect((await post(`/indicators/${branch}`, body)).statusCode).toBe(201)
    expect((await post('/indicators/hosts/client.example/securityLabels/TLP%3ACLEAR', {})).statusCode).toBe(200)
    expect((await post('/indicators/hosts/client.example/tags/Botnet', {})).statusCode).toBe(200)
    expect((await post('/indicators/addresses/198.51.100.9/securityLabels/TLP%3AGREEN', {})).statusCode).toBe(200)
  }, 60_000)
  afterAll(() => t.close())

  it('reads discovery, the API root, the collections and every object of both applications in pages, and stix2 accepts them all', async () => {
    const { result } = await runClientScript<Record<'1.0' | '2.0', AppSeen>>(
      SCRIPT,
      {
        BULWARK_TAXII_BASE: t.baseUrl,
        BULWARK_TAXII_USER: user,
        BULWARK_TAXII_PASSWORD: password,
        BULWARK_TAXII_LIMIT: '4',
      },
      240_000,
    )
    for (const [app, path] of [
      ['2.0', '/api/services/taxii/v2/taxii'],
      ['1.0', '/api/services/taxii/v1'],
    ] as const) {
      const seen = result[app]
      expect(seen.invalid).toEqual([])
      expect(seen.api_roots).toEqual([`${t.baseUrl}${path}/svc_taxii/`])
      expect(seen).toMatchObject({
        title: 'Bulwark TAXII 2.1 server',
        root_title: 'Bulwark',
        versions: ['application/taxii+json;version=2.1'],
        max_content_length: 5242880,
      })
      expect(Object.keys(seen.collections).sort()).toEqual(['Client Community', ORG])
      const org = seen.collections[ORG]
      // 5 markings (TLP 1.0 and TLP:CLEAR) and 25 indicators, 4 a page.
      expect(org.ids).toHaveLength(30)
      expect(new Set(org.ids).size).toBe(30)
      expect(org.pages).toBe(8)
      expect(org.ids.slice(0, 5).every((id) => id.startsWith('marking-definition--'))).toBe(true)
      expect(org.indicators_only).toEqual(org.ids.slice(5))
      expect(org).toMatchObject({ alias: ORG, can_read: true, one: [org.middle!.id], versions: [org.middle!.modified] })
      expect(org.added_after_middle!.length).toBeLessThan(25)
      expect(seen.validated).toBe(30 + 4)
      expect(seen.collections['Client Community'].ids).toHaveLength(4)
      if (app === '1.0') {
        expect(org.manifest).toEqual(org.ids)
        expect(org.manifest_pages).toBe(8)
      }
    }
  }, 300_000)
})
