/**
 * `bulwark export --format stix` and `bulwark import` of STIX 2.1 bundles through the real
 * executable: an owner's Indicators (every type, tags, TLP labels, ratings) exported as a bundle
 * that the OASIS schemas, stix2 and stix2-validator accept, imported into another owner as the same
 * Indicators; bad objects reported each by its place while the rest is written; the progress bar
 * only on a terminal and never with --json.
 */
import { execFile } from 'node:child_process'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, type CliSandbox, createCliSandbox } from '../../test/cli-sandbox.js'
import { realClientsUnavailable, runClientScript } from '../../test/real-clients.js'
import { stixSchemaErrors, stixSchemasUnavailable } from '../../test/stix-schemas.js'
import { MARKINGS } from '../../formats/stix2/stix.js'

const OWNER = 'Default Organization'
const VALIDATOR = fileURLToPath(new URL('./stix_bundle_validate.py', import.meta.url))
/** Each run of the executable starts tsx and opens the database: seconds apiece on a busy machine. */
const CLI_TIMEOUT = 180_000
let cli: CliSandbox

async function bulwark(...args: string[]) {
  const run = await cli.runAsync([...args, '--json'], { timeoutMs: 120_000 })
  return { status: run.status, result: run.stdout ? JSON.parse(run.stdout) : undefined, stderr: run.stderr }
}

const amber = { name: 'TLP:AMBER', color: 'FFC000' }
const seed = [
  {
    type: 'Host',
    summary: 'bad.example',
    rating: 4,
    confidence: 80,
    description: 'seen twice',
    tag: [{ name: 'phishing' }, { name: 'kit' }],
    securityLabel: [amber],
  },
  {
    type: 'Address',
    summary: '198.51.100.7',
    rating: 3,
    securityLabel: [{ name: 'TLP:AMBER+STRICT', color: 'FFC000' }],
  },
  { type: 'Address', summary: '2001:db8::7' },
  { type: 'CIDR', summary: '10.10.1.0/24', rating: 1 },
  { type: 'EmailAddress', summary: "o'brien@bad.example", confidence: 20 },
  { type: 'URL', summary: "http://bad.example/a'b\\c?q=1", tag: [{ name: 'kit' }] },
  {
    type: 'File',
    summary: 'D41D8CD98F00B204E9800998ECF8427E : E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
    rating: 5,
  },
  { type: 'Mutex', summary: 'Global\\evil' },
  { type: 'ASN', summary: 'ASN64500' },
  { type: 'Registry Key', summary: 'HKEY_LOCAL_MACHINE\\Software\\Run : evil : REG_SZ' },
  { type: 'User Agent', summary: 'Mozilla/5.0 (evil "bot")' },
]

beforeAll(async () => {
  cli = await createCliSandbox('bulwark-stix-', { dataDir: 'data' })
  writeFileSync(join(cli.root, 'seed.json'), JSON.stringify({ indicator: seed }))
  const seeded = await bulwark('import', join(cli.root, 'seed.json'), '--owner', OWNER)
  expect(seeded.result, seeded.stderr).toMatchObject({ format: 'batch', successCount: seed.length, errorCount: 0 })
  expect((await bulwark('users', 'create', 'importer')).status).toBe(0)
  expect((await bulwark('owners', 'create', 'Mirror', '--type', 'Source')).status).toBe(0)
  expect((await bulwark('memberships', 'set', 'importer', 'Mirror', 'Editor')).status).toBe(0)
}, 120_000)
afterAll(() => cli.close())

interface Bundle {
  type: string
  id: string
  objects: Record<string, any>[]
}
const readBundle = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Bundle
const indicatorsOf = (b: Bundle) => b.objects.filter((o) => o.type === 'indicator')

/** What an Indicator is, without the ids and times of its owner. */
const comparable = (o: Record<string, any>) =>
  [
    o.name,
    o.pattern,
    o.x_svc_type,
    o.x_threat_rating,
    o.confidence,
    o.description,
    o.labels?.slice().sort(),
    o.object_marking_refs,
  ]
    .map((v) => JSON.stringify(v))
    .join(' ')

describe('STIX 2.1 bundles', () => {
  let exported: Bundle
  const bundleFile = () => join(cli.root, 'owner.stix.json')

  it(
    'exports an owner as a STIX 2.1 bundle the OASIS schemas accept: TLP 1.0 markings first, each Indicator as TAXII serves it',
    async () => {
      const run = await bulwark('export', '--owner', OWNER, '--output', bundleFile())
      expect(run.status, run.stderr).toBe(0)
      expect(run.result).toEqual({
        owner: OWNER,
        format: 'stix',
        file: bundleFile(),
        count: seed.length,
        skipped: 0,
        otherObjects: 0,
      })
      expect(statSync(bundleFile()).mode & 0o777).toBe(0o600)
      exported = readBundle(bundleFile())
      expect(exported.type).toBe('bundle')
      expect(exported.id).toMatch(/^bundle--[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(exported.objects.slice(0, 4)).toEqual(MARKINGS.slice(0, 4))
      // TLP:AMBER+STRICT is a TLP 2.0 level: its definition follows the indicators, as one used it.
      expect(exported.objects.at(-1)).toEqual(MARKINGS[5])
      const host = indicatorsOf(exported).find((o) => o.name === 'bad.example')!
      expect(host).toMatchObject({
        pattern: "[domain-name:value = 'bad.example']",
        labels: expect.arrayContaining(['phishing', 'kit']),
        confidence: 80,
        description: 'seen twice',
        x_threat_rating: 4,
        indicator_types: ['malicious-activity'],
        object_marking_refs: [MARKINGS[2].id],
        x_svc_owner: OWNER,
        x_svc_type: 'Host',
      })
      if (stixSchemasUnavailable()) return
      for (const object of exported.objects) expect(stixSchemaErrors(object), object.id).toEqual([])
    },
    CLI_TIMEOUT,
  )

  it.skipIf(!!realClientsUnavailable())(
    'passes stix2 and stix2-validator',
    async () => {
      const { result } = await runClientScript<{ type: string; objects: number; validated: number; invalid: string[] }>(
        VALIDATOR,
        { BULWARK_STIX_BUNDLE: bundleFile() },
      )
      expect(result).toEqual({
        type: 'bundle',
        objects: exported.objects.length,
        validated: exported.objects.length,
        invalid: [],
      })
    },
    120_000,
  )

  it(
    'imports the bundle into another owner as the same Indicators, tags, ratings and TLP labels, and exports them back alike',
    async () => {
      const run = await bulwark('import', bundleFile(), '--owner', 'Mirror', '--as', 'importer')
      expect(run.status, run.stderr).toBe(0)
      // Six marking definitions are read (TLP labels), not written; each indicator object is one Indicator.
      expect(run.result).toEqual({
        file: bundleFile(),
        format: 'stix',
        owner: 'Mirror',
        items: seed.length + 5,
        jobs: 1,
        successCount: seed.length,
        errorCount: 0,
        indicators: { created: seed.length, updated: 0, unchanged: 0, refused: 0 },
        groups: { created: 0, updated: 0, unchanged: 0, refused: 0 },
        associations: { created: 0, updated: 0, unchanged: 0, refused: 0 },
        observations: { created: 0, updated: 0, unchanged: 0, refused: 0 },
        skipped: {},
        errors: [],
        errorsNotListed: 0,
      })
      const again = join(cli.root, 'mirror.stix.json')
      expect((await bulwark('export', '--owner', 'Mirror', '--output', again, '--as', 'importer')).result.count).toBe(
        seed.length,
      )
      const mirrored = readBundle(again)
      expect(indicatorsOf(mirrored).map(comparable).sort()).toEqual(indicatorsOf(exported).map(comparable).sort())
      expect(new Set(indicatorsOf(mirrored).map((o) => o.id)).size).toBe(seed.length)
      expect(indicatorsOf(mirrored).every((o) => o.x_svc_owner === 'Mirror')).toBe(true)
    },
    CLI_TIMEOUT,
  )

  it(
    'exports only what a TQL filter matches',
    async () => {
      const rated = join(cli.root, 'rated.json')
      const run = await bulwark(
        'export',
        '--owner',
        OWNER,
        '--output',
        rated,
        '--format',
        'stix',
        '--tql',
        'rating >= 3',
      )
      expect(run.result).toMatchObject({ format: 'stix', count: 3 })
      expect(
        indicatorsOf(readBundle(rated))
          .map((o) => o.name)
          .sort(),
      ).toEqual([
        '198.51.100.7',
        'D41D8CD98F00B204E9800998ECF8427E : E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
        'bad.example',
      ])
    },
    CLI_TIMEOUT,
  )

  it(
    'reports each object it cannot import by its place, writes the rest, and says where a truncated file stops',
    async () => {
      const indicator = (n: number, pattern: string, extra: object = {}) => ({
        type: 'indicator',
        spec_version: '2.1',
        id: `indicator--00000000-0000-4000-8000-00000000000${n}`,
        created: '2026-01-01T00:00:00.000Z',
        modified: '2026-01-01T00:00:00.000Z',
        pattern,
        pattern_type: 'stix',
        valid_from: '2026-01-01T00:00:00.000Z',
        ...extra,
      })
      const objects = [
        indicator(1, "[domain-name:value = 'one.bad.example'] OR [url:value = 'http://two.bad.example/']", {
          labels: ['campaign x'],
        }),
        {
          type: 'malware',
          spec_version: '2.1',
          id: 'malware--00000000-0000-4000-8000-000000000001',
          name: 'x',
          is_family: false,
        },
        indicator(2, "[process:name = 'evil.exe']"),
        indicator(3, "[domain-name:value = 'not a host!!']"),
        'not an object',
        {
          type: 'marking-definition',
          spec_version: '2.1',
          id: 'marking-definition--00000000-0000-4000-8000-000000000009',
          definition_type: 'statement',
          definition: { statement: 'mine' },
        },
        indicator(4, "[email-addr:value = 'x@three.bad.example']", { revoked: true }),
        indicator(5, "[email-addr:value = 'four@bad.example']"),
        indicator(
          7,
          "[windows-registry-key:key = 'HKEY_CURRENT_USER\\\\Console' AND windows-registry-key:values[*].data_type = 'REG_QWORD']",
        ),
      ]
      const file = join(cli.root, 'mixed.json')
      writeFileSync(
        file,
        `{"type":"bundle","id":"bundle--00000000-0000-4000-8000-000000000001","objects":[${objects.map((o) => JSON.stringify(o)).join(',')}, {"broken": tru}]}`,
      )
      const run = await bulwark('import', file, '--owner', 'Mirror', '--as', 'importer')
      expect(run.status, run.stderr).toBe(0)
      // The malware is a Group; the statement marking is skipped (only TLP markings become Security Labels).
      expect(run.result).toMatchObject({
        format: 'stix',
        items: objects.length + 1,
        successCount: 5,
        errorCount: 5,
        groups: { created: 1 },
        skipped: { 'marking-definition': 1 },
      })
      expect(run.result.errors.map((e: { item: string }) => e.item)).toEqual([
        'objects[2]',
        'objects[4]',
        'objects[6]',
        'objects[9]',
        'objects[3]',
      ])
      const message = (item: string) =>
        run.result.errors.find((e: { item: string }) => e.item === item).message as string
      expect(message('objects[2]')).toMatch(/process:name is not an observable Bulwark holds as an Indicator/)
      expect(message('objects[3]')).toMatch(/not a valid Host Indicator value/)
      expect(message('objects[6]')).toMatch(/revoked/)
      expect(message('objects[9]')).toMatch(/not valid JSON/)

      writeFileSync(
        file,
        `{"type":"bundle","objects":[${JSON.stringify(indicator(6, "[domain-name:value = 'five.bad.example']"))},{"type":"indic`,
      )
      const cut = await bulwark('import', file, '--owner', 'Mirror', '--as', 'importer')
      expect(cut.result).toMatchObject({
        successCount: 1,
        errorCount: 1,
        errors: [{ item: '(file)', message: 'The file ends before its JSON document does' }],
      })
      // An array is read as the objects of a bundle, each element refused by its place.
      writeFileSync(file, '["not", "a", "bundle"]')
      expect(await bulwark('import', file, '--owner', 'Mirror', '--as', 'importer', '--format', 'stix')).toMatchObject({
        status: 0,
        result: {
          items: 3,
          successCount: 0,
          errorCount: 3,
          errors: [0, 1, 2].map((i) => ({ item: `[${i}]`, message: 'not a JSON object' })),
        },
      })
    },
    CLI_TIMEOUT,
  )

  it(
    'draws a progress bar on a terminal only, and never with --json',
    async () => {
      const file = join(cli.root, 'list.txt')
      writeFileSync(file, Array.from({ length: 50 }, (_, i) => `p${i}.progress.example`).join('\n'))
      const args = ['import', file, '--owner', OWNER, '--type', 'Host']
      const piped = await cli.runAsync(args)
      expect(piped.status, piped.stderr).toBe(0)
      expect(piped.stderr).not.toMatch(/\r|\[#/)
      // script(1) runs the command on a pseudo-terminal, as a shell would.
      const onTerminal = async (extra: string[]) =>
        (
          await promisify(execFile)(
            'script',
            ['-qec', [process.execPath, BIN, ...args, ...extra].map(shellQuote).join(' '), '/dev/null'],
            {
              env: cli.env,
              encoding: 'utf8',
              timeout: 120_000,
            },
          )
        ).stdout
      expect(await onTerminal([])).toMatch(/\r\[#{30}\] 100% 50 items: 50 written, 0 errors/)
      const scripted = await onTerminal(['--json'])
      expect(scripted).not.toMatch(/\[#|\r\[/)
      expect(JSON.parse(scripted.trim())).toMatchObject({ format: 'list', items: 50, successCount: 50 })
    },
    CLI_TIMEOUT,
  )
})

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`
}
