/** The pieces of a list's answer that need no database: CSV fields and If-None-Match. */
import { describe, expect, it } from 'vitest'
import { csvField, etagMatches } from './values.js'

describe('csvField', () => {
  it('quotes a field with a comma or a quote, doubling its quotes, and leaves others as they are', () => {
    expect(csvField('203.0.113.7')).toBe('203.0.113.7')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('')).toBe('')
  })
})

describe('etagMatches', () => {
  const etag = '"abc"'
  it('matches the ETag itself, weak or strong, in a list, or *', () => {
    expect(etagMatches('"abc"', etag)).toBe(true)
    expect(etagMatches('W/"abc"', etag)).toBe(true)
    expect(etagMatches('"x", "abc"', etag)).toBe(true)
    expect(etagMatches('*', etag)).toBe(true)
  })
  it('does not match another ETag, an unquoted one, or none', () => {
    expect(etagMatches('"abd"', etag)).toBe(false)
    expect(etagMatches('abc', etag)).toBe(false)
    expect(etagMatches(undefined, etag)).toBe(false)
    expect(etagMatches('', etag)).toBe(false)
  })
})
