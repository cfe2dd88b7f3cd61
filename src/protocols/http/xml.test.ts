import { describe, expect, it } from 'vitest'
import { parseXmlBody, plural, renderV2Xml } from './xml.js'

describe('v2 XML', () => {
  it('renders the documented list shape with PascalCase elements and repeated array items', () => {
    const xml = renderV2Xml('owner', true, {
      resultCount: 2,
      owner: [
        { id: 1, name: 'A', type: 'Organization' },
        { id: 2, name: 'B & C', type: 'Community' },
      ],
    })
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><ownersResponse><Status>Success</Status>' +
        '<Data xsi:type="ownerListResponseData" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><ResultCount>2</ResultCount>' +
        '<Owner><Id>1</Id><Name>A</Name><Type>Organization</Type></Owner><Owner><Id>2</Id><Name>B &amp; C</Name><Type>Community</Type></Owner></Data></ownersResponse>',
    )
  })

  it('keeps custom type extras in camelCase and turns field names with spaces into valid elements', () => {
    const xml = renderV2Xml('registryKey', false, { registryKey: { 'Key Name': 'HKLM\\Run', value1Label: 'Key Name' } })
    expect(xml).toContain('<RegistryKey><KeyName>HKLM\\Run</KeyName><value1Label>Key Name</value1Label></RegistryKey>')
  })

  it('reads an XML body into the object its JSON twin would be', () => {
    expect(parseXmlBody('<Indicator><Ip>1.2.3.4</Ip><Rating>3</Rating></Indicator>')).toEqual({
      ip: '1.2.3.4',
      rating: '3',
    })
    expect(parseXmlBody('')).toEqual({})
  })

  it('rejects malformed XML as invalid input', () => {
    expect(() => parseXmlBody('<a><b></a>')).toThrow(/Malformed XML body/)
    expect(() => parseXmlBody('<a/><b/>')).toThrow(/Malformed XML body/)
  })

  it('pluralizes entity names the way the platform names its roots', () => {
    expect([plural('owner'), plural('indicatorType'), plural('address'), plural('victimAsset')]).toEqual([
      'owners',
      'indicatorTypes',
      'addresses',
      'victimAssets',
    ])
  })
})
