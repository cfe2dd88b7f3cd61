/**
 * The list: which format a file is by its name and its first 4 KB (as `bulwark import` has always
 * told them apart), which one a new file is written in, and that every name is one format's.
 */
import { describe, expect, it } from 'vitest'
import { FORMATS, READ_FORMATS, WRITE_FORMATS, detectFormat, findFormat, formatForOutput } from './index.js'

const BUNDLE_HEAD = '{\n  "type": "bundle",\n  "id": "bundle--1",\n  "objects": ['

describe('the format list', () => {
  it('names each format once, and every one reads or writes', () => {
    expect(new Set(FORMATS.map((f) => f.name)).size).toBe(FORMATS.length)
    expect(FORMATS.every((f) => f.reader || f.writer)).toBe(true)
    expect(READ_FORMATS).toEqual(['stix', 'stix1', 'misp', 'batch', 'csv', 'list'])
    expect(WRITE_FORMATS).toEqual(['stix', 'batch'])
    expect(findFormat('csv')?.name).toBe('csv')
    expect(findFormat('xml')).toBeUndefined()
  })

  it.each([
    ['feed.stix', '', 'stix'],
    ['feed.STIX.json', '{"indicator": []}', 'stix'],
    ['feed.json', BUNDLE_HEAD, 'stix'],
    ['feed.json', '{"objects": [', 'stix'],
    ['feed.json', '{"spec_version": "2.1"', 'stix'],
    ['feed.json', '{"indicator": [{"type": "Host"}]}', 'batch'],
    ['feed.xml', '<stix:STIX_Package xmlns:stix="http://stix.mitre.org/stix-1">', 'stix1'],
    ['feed.xml', '<rss>', 'stix1'],
    ['feed', '<?xml version="1.0"?>\n<STIX_Package xmlns="http://stix.mitre.org/stix-1">', 'stix1'],
    ['feed', '<rss>', 'list'],
    ['feed.txt', '<stix:STIX_Package>', 'list'],
    ['feed.csv', BUNDLE_HEAD, 'csv'],
    ['feed.txt', BUNDLE_HEAD, 'list'],
    ['feed', 'bad.example', 'list'],
  ])('reads %s starting %j as %s', (name, head, format) => {
    expect(detectFormat(name, () => head).name).toBe(format)
  })

  it('reads the start of a file only where its name leaves the format open', () => {
    const unread = () => {
      throw new Error('read')
    }
    expect(['a.stix', 'a.stix.json', 'a.xml', 'a.csv', 'a.txt'].map((name) => detectFormat(name, unread).name)).toEqual(
      ['stix', 'stix', 'stix1', 'csv', 'list'],
    )
  })

  it.each([
    ['out.stix', 'stix'],
    ['out.stix.json', 'stix'],
    ['out.json', 'batch'],
    ['out.csv', 'batch'],
    ['out', 'batch'],
  ])('writes %s as %s', (name, format) => {
    expect(formatForOutput(name).name).toBe(format)
  })
})
