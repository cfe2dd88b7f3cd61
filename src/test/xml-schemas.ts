/**
 * Validation of what the TAXII 1.1 services emit against the standards' XSDs
 * (`../shared/schemas`, beside the repository wherever the real clients were put), with
 * xmllint: many documents per xmllint process, so a test validates all it produced at once.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CYBOX_OBJECT_SCHEMAS, STIX_NAMESPACES } from '../formats/stix1/stix.js'
import { SCHEMAS_DIR } from './real-clients.js'

export { SCHEMAS_DIR }
export const TAXII_11_XSD = join(SCHEMAS_DIR, 'taxii-1.1', 'TAXII_XMLMessageBinding_Schema_11.xsd')

/** Why schema validation cannot run here, or undefined when it can. */
export function schemasUnavailable(): string | undefined {
  if (!existsSync(TAXII_11_XSD) || !existsSync(join(SCHEMAS_DIR, 'stix-1.1.1', 'stix_core.xsd'))) {
    return `XSD validation skipped: ${SCHEMAS_DIR} is absent (it holds the TAXII 1.1 and STIX 1.1.1 schemas)`
  }
  return undefined
}

/** A schema importing STIX core, Indicator, the markings and every CybOX object Bulwark emits. */
function stixWrapperSchema(dir: string): string {
  const stix = join(SCHEMAS_DIR, 'stix-1.1.1')
  const imports: [string, string][] = [
    [STIX_NAMESPACES.stix, join(stix, 'stix_core.xsd')],
    [STIX_NAMESPACES.indicator, join(stix, 'indicator.xsd')],
    [STIX_NAMESPACES.stixVocabs, join(stix, 'stix_default_vocabularies.xsd')],
    [STIX_NAMESPACES.tlpMarking, join(stix, 'extensions', 'marking', 'tlp_marking.xsd')],
    [STIX_NAMESPACES.simpleMarking, join(stix, 'extensions', 'marking', 'simple_marking.xsd')],
    [STIX_NAMESPACES.cyboxVocabs, join(stix, 'cybox', 'cybox_default_vocabularies.xsd')],
    ...Object.entries(CYBOX_OBJECT_SCHEMAS).map(([prefix, file]): [string, string] => [
      STIX_NAMESPACES[prefix],
      join(stix, 'cybox', 'objects', file),
    ]),
  ]
  const path = join(dir, 'stix-wrapper.xsd')
  writeFileSync(
    path,
    `<?xml version="1.0"?><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:bulwark:test" elementFormDefault="qualified">${imports
      .map(([ns, file]) => `<xs:import namespace="${ns}" schemaLocation="${file}"/>`)
      .join('')}</xs:schema>`,
  )
  return path
}

/** The STIX packages inside a TAXII message, each as a document of its own. */
export function stixPackagesOf(xml: string): string[] {
  return xml.match(/<stix:STIX_Package[\s\S]*?<\/stix:STIX_Package>/g) ?? []
}

/**
 * Validates documents against one schema ('taxii' or 'stix') in one xmllint run. Returns the
 * errors per document index; an empty object means every document is valid.
 */
export async function validateXml(kind: 'taxii' | 'stix', documents: string[]): Promise<Record<number, string>> {
  if (!documents.length) return {}
  const dir = mkdtempSync(join(tmpdir(), 'bulwark-xsd-'))
  try {
    const schema = kind === 'taxii' ? TAXII_11_XSD : stixWrapperSchema(dir)
    const files = documents.map((doc, i) => {
      const file = join(dir, `doc-${i}.xml`)
      writeFileSync(file, doc)
      return file
    })
    const stderr = await new Promise<string>((resolvePromise, reject) => {
      execFile(
        'xmllint',
        ['--noout', '--nonet', '--schema', schema, ...files],
        { maxBuffer: 64 * 1024 * 1024 },
        (error, _stdout, err) => {
          // Exit code 3 is "some document is invalid"; not finding xmllint at all must fail, not pass.
          if (error && (error as NodeJS.ErrnoException).code === 'ENOENT')
            reject(new Error('xmllint is not installed (Debian package libxml2-utils)'))
          else resolvePromise(err)
        },
      )
    })
    const errors: Record<number, string> = {}
    const verdicts = new Set<number>()
    for (const line of stderr.split('\n')) {
      const match = /doc-(\d+)\.xml(?::\d+)?[: ](.*)$/.exec(line)
      if (!match) continue
      const i = Number(match[1])
      if (/ validates$/.test(line)) {
        verdicts.add(i)
        continue
      }
      if (/ fails to validate$/.test(line)) verdicts.add(i)
      errors[i] = `${errors[i] ?? ''}${match[2]}\n`
    }
    if (/failed to compile|WXS schema .* failed/.test(stderr)) errors[-1] = stderr.slice(0, 2000)
    documents.forEach((_, i) => {
      if (!verdicts.has(i)) errors[i] = `${errors[i] ?? ''}xmllint gave no verdict\n`
    })
    return errors
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
