import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../../test/harness.js'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('GET /v2/types/indicatorTypes', () => {
  it('lists the ten Indicator types with the spec fields', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/types/indicatorTypes' })
    const types = res.json().data.indicatorType as Record<string, string>[]
    expect(res.json().data.resultCount).toBe(10)
    expect(types.map((x) => x.apiBranch)).toEqual([
      'addresses',
      'emailAddresses',
      'files',
      'hosts',
      'urls',
      'asns',
      'cidrBlocks',
      'mutexes',
      'registryKeys',
      'userAgents',
    ])
    expect(types[0]).toEqual({
      name: 'Address',
      custom: 'false',
      parsable: 'true',
      apiBranch: 'addresses',
      apiEntity: 'address',
    })
    expect(types.find((x) => x.name === 'Registry Key')).toMatchObject({
      custom: 'true',
      parsable: 'false',
      casePreference: 'sensitive',
      value1Label: 'Key Name',
      value2Label: 'Value Name',
      value3Label: 'Value Type',
      value3Type: 'selectone',
      value3Option:
        'REG_NONE;REG_BINARY;REG_DWORD;REG_DWORD_LITTLE_ENDIAN;REG_DWORD_BIG_ENDIAN;REG_EXPAND_SZ;REG_LINK;REG_MULTI_SZ;REG_QWORD;REG_QWORD_LITTLE_ENDIAN;REG_SZ',
    })
  })

  it('adds regexes and keys with includeAdditional=true', async () => {
    const file = (
      await t.request({ method: 'GET', url: '/api/v2/types/indicatorTypes/File?includeAdditional=true' })
    ).json().data.indicatorType
    expect(file.keys).toEqual({ key1: 'md5', key2: 'sha1', key3: 'sha256' })
    expect(file.regexes).toHaveLength(3)
    const asn = (
      await t.request({ method: 'GET', url: '/api/v2/types/indicatorTypes/asns?includeAdditional=true' })
    ).json().data.indicatorType
    expect(asn).toMatchObject({ name: 'ASN', casePreference: 'upper', keys: { key1: 'AS Number' } })
    const plain = (await t.request({ method: 'GET', url: '/api/v2/types/indicatorTypes/hosts' })).json().data
      .indicatorType
    expect(plain.regexes).toBeUndefined()
  })

  it('404s for an unknown type', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v2/types/indicatorTypes/widgets' })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ status: 'Error', message: "Indicator type 'widgets' not found" })
  })
})

describe('GET /v2/types/attributeTypes', () => {
  it('lists the system attribute types and one by name, with validation rules on request', async () => {
    const all = (await t.request({ method: 'GET', url: '/api/v2/types/attributeTypes' })).json().data
    expect(all.attributeType.map((a: { name: string }) => a.name)).toContain('Description')
    const phase = (
      await t.request({ method: 'GET', url: '/api/v2/types/attributeTypes/Attack%20Phase?includes=validationRule' })
    ).json().data.attributeType
    expect(phase).toMatchObject({
      name: 'Attack Phase',
      maxSize: 100,
      system: true,
      validationRule: { type: 'selectone' },
    })
    const without = (await t.request({ method: 'GET', url: '/api/v2/types/attributeTypes/Attack%20Phase' })).json().data
      .attributeType
    expect(without.validationRule).toBeUndefined()
  })

  it('filters on system, allowMarkdown and maxLength', async () => {
    const markdown = (
      await t.request({ method: 'GET', url: '/api/v2/types/attributeTypes?filters=allowMarkdown%3Dtrue' })
    ).json().data.attributeType
    expect(markdown.map((a: { name: string }) => a.name).sort()).toEqual([
      'Additional Analysis and Context',
      'Description',
    ])
    const short = (await t.request({ method: 'GET', url: '/api/v2/types/attributeTypes?filters=maxLength%3C4' })).json()
      .data.attributeType
    expect(short.map((a: { name: string }) => a.name).sort()).toEqual(['Country Code', 'Detection Percentage'])
  })

  it('rejects an unknown filter or operator', async () => {
    expect(
      (await t.request({ method: 'GET', url: '/api/v2/types/attributeTypes?filters=color%3Dred' })).json(),
    ).toEqual({
      status: 'Error',
      message: "Unknown filter 'color' for attribute types; use owner, system, allowMarkdown, maxLength",
    })
    expect(
      (await t.request({ method: 'GET', url: '/api/v2/types/attributeTypes?filters=system%3Etrue' })).statusCode,
    ).toBe(400)
    expect(
      (await t.request({ method: 'GET', url: '/api/v2/types/attributeTypes?filters=maxLength%5E4' })).json(),
    ).toEqual({
      status: 'Error',
      message: 'Filter maxLength takes the operators = < >, not ^',
    })
    expect(
      (await t.request({ method: 'GET', url: '/api/v2/types/attributeTypes?filters=nonsense' })).json().message,
    ).toMatch(/^Malformed filter 'nonsense'/)
  })
})

describe('GET /v2/types/associationTypes', () => {
  it('lists the built-in association types and finds one by name or branch', async () => {
    const all = (await t.request({ method: 'GET', url: '/api/v2/types/associationTypes' })).json().data.associationType
    expect(all).toContainEqual({
      name: 'CIDR to Address',
      custom: 'false',
      fileAction: 'false',
      apiBranch: 'cidrToAddress',
    })
    expect(all).toContainEqual({ name: 'File Drop', custom: 'false', fileAction: 'true', apiBranch: 'drop' })
    const one = (await t.request({ method: 'GET', url: '/api/v2/types/associationTypes/URL%20Host' })).json()
    expect(one).toEqual({
      status: 'Success',
      data: { associationType: { name: 'URL Host', custom: 'false', fileAction: 'false', apiBranch: 'urlHost' } },
    })
    expect((await t.request({ method: 'GET', url: '/api/v2/types/associationTypes/nope' })).statusCode).toBe(404)
  })

  it('lists a Group association type per Group type, as the platform documents, and reads each by name or branch', async () => {
    const all = (await t.request({ method: 'GET', url: '/api/v2/types/associationTypes' })).json().data
      .associationType as Array<Record<string, string>>
    const groups = all.filter((a) => a.fileAction === 'false' && !/ to |PTR|Registrant|Download|URL /.test(a.name))
    expect(groups.map((g) => `${g.name}=${g.apiBranch}`).sort()).toEqual([
      'Adversary=adversaries',
      'Attack Pattern=attackPatterns',
      'Campaign=campaigns',
      'Course of Action=coursesOfAction',
      'Document=documents',
      'Email=emails',
      'Event=events',
      'Incident=incidents',
      'Intrusion Set=intrusionSets',
      'Malware=malware',
      'Report=reports',
      'Signature=signatures',
      'Tactic=tactics',
      'Threat=threats',
      'Tool=tools',
      'Vulnerability=vulnerabilities',
    ])
    for (const listed of all) {
      for (const key of [listed.name, listed.apiBranch]) {
        const one = await t.request({ method: 'GET', url: `/api/v2/types/associationTypes/${encodeURIComponent(key)}` })
        expect(one.json().data.associationType).toEqual(listed)
      }
    }
    expect((await t.request({ method: 'GET', url: '/api/v2/types/associationTypes/Adversary' })).json()).toEqual({
      status: 'Success',
      data: { associationType: { name: 'Adversary', custom: 'false', fileAction: 'false', apiBranch: 'adversaries' } },
    })
  })

  it('does not take a Group association type for an Indicator-to-Indicator branch', async () => {
    await t.request({ method: 'POST', url: '/api/v2/indicators/addresses', payload: { ip: '192.0.2.55' } })
    const res = await t.request({
      method: 'GET',
      url: '/api/v2/indicators/addresses/192.0.2.55/associations/adversaries/indicators',
    })
    expect(res.statusCode).toBe(404)
  })
})
