import { describe, expect, it } from 'vitest'
import type { FeedView } from '../../../../src/domain/feeds/feed.js'
import { feedBody, feedForm, intervalText } from './feed-form.js'

const STORED: FeedView = {
  id: 3,
  name: 'Partner',
  kind: 'csv',
  url: 'https://partner.example/iocs.csv',
  owner: 'Partner',
  credentials: 'header',
  hasCaFile: true,
  intervalSeconds: 1800,
  enabled: true,
  settings: { columns: 'value=IOC', indicatorType: 'Host', mirror: true },
  defaults: { confidence: 70, tags: ['partner', 'csv'] },
  nextRunAt: '2026-11-27T05:00:00.000Z',
  failures: 0,
  dateAdded: '2026-11-27T05:00:00.000Z',
  lastModified: '2026-11-27T05:00:00.000Z',
}

describe('the feed form', () => {
  it('sends what a new feed is given, its credentials and CA, and nothing empty', () => {
    const form = {
      ...feedForm(undefined, 'Abuse Feeds'),
      name: ' URLhaus ',
      url: 'https://urlhaus.example/text/',
      indicatorType: 'URL',
      collection: 'ignored: a text list has none',
      credentials: 'basic' as const,
      user: 'reader',
      password: 's3cret',
      caPem: '-----BEGIN CERTIFICATE-----\n…',
      rating: '3',
      tags: 'urlhaus, , malware ',
    }
    expect(feedBody(form, false)).toEqual({
      name: 'URLhaus',
      kind: 'text',
      url: 'https://urlhaus.example/text/',
      owner: 'Abuse Feeds',
      interval: '1h',
      enabled: true,
      settings: { indicatorType: 'URL' },
      defaults: { rating: 3, tags: ['urlhaus', 'malware'] },
      credentials: { kind: 'basic', user: 'reader', password: 's3cret' },
      caPem: '-----BEGIN CERTIFICATE-----\n…',
    })
  })

  it('shows a stored feed without its secrets, and a change keeps them unless replaced or removed', () => {
    const form = feedForm(STORED)
    expect(form).toMatchObject({ credentials: 'keep', password: '', caPem: '', interval: '30m', tags: 'partner, csv' })
    const body = feedBody({ ...form, kind: 'text', confidence: '' }, true)
    expect(body).toEqual({
      name: 'Partner',
      kind: 'text',
      url: 'https://partner.example/iocs.csv',
      owner: 'Partner',
      interval: '30m',
      enabled: true,
      // columns is a CSV's: a text list drops it.
      settings: { collection: null, types: null, pollUrl: null, columns: null, indicatorType: 'Host', mirror: true },
      defaults: { rating: null, confidence: null, tags: ['partner', 'csv'], securityLabel: null },
      importFrom: null,
      maxObjectsPerRun: null,
    })
    expect(feedBody({ ...form, credentials: 'none', removeCa: true }, true)).toMatchObject({
      credentials: null,
      caPem: null,
    })
    expect(feedBody({ ...form, credentials: 'bearer', token: 't0ken' }, true).credentials).toEqual({
      kind: 'bearer',
      token: 't0ken',
    })
  })

  it('writes intervals in their largest whole unit', () => {
    expect([intervalText(86_400), intervalText(7200), intervalText(900), intervalText(90)]).toEqual([
      '1d',
      '2h',
      '15m',
      '90',
    ])
  })
})
