/**
 * An Indicator at the address its webLink gives (`#/details/indicators/<id>/overview`): its fields,
 * owner, rating, confidence, threat assessment, observations and false positives, tags and security
 * labels, and its attributes and associations, each paged and counted. Triage comes later (docs/console.md). Every value is a text node; a URL from intelligence is a link only when it is
 * http or https.
 */
import { useEffect, useState } from 'preact/hooks'
import { type Indicator, api } from '../api.js'
import { safeHref } from '../safe-url.js'
import { PagedList } from './PagedList.js'

interface Full extends Indicator {
  source?: string
  threatAssessScore?: number
  externalDateAdded?: string
  firstSeen?: string
  lastSeen?: string
  securityLabels?: { data?: { name: string }[] }
  observations?: number
  falsePositives?: number
}

interface Attribute {
  id: number
  type: string
  value: string
  source?: string
  dateAdded?: string
}

interface Group {
  id: number
  type: string
  name: string
  ownerName?: string
  dateAdded?: string
}

export function IndicatorPage({ id }: { id: number }) {
  const [state, setState] = useState<{ indicator?: Full; error?: string }>({})
  useEffect(() => {
    api<{ data: Full }>(
      `/api/v3/indicators/${id}?fields=tags&fields=securityLabels&fields=threatAssess&fields=observations&fields=falsePositives`,
    )
      .then((r) => setState({ indicator: r.data }))
      .catch((error: Error) => setState({ error: error.message }))
  }, [id])
  if (state.error)
    return (
      <p role="alert" class="error">
        {state.error}
      </p>
    )
  const i = state.indicator
  if (!i) return <p>Loading…</p>
  const sourceLink = safeHref(i.source)
  const fields: [string, string | number | undefined][] = [
    ['Type', i.type],
    ['Owner', i.ownerName],
    ['Rating', i.rating],
    ['Confidence', i.confidence],
    ['Threat assessment', i.threatAssessScore],
    ['Observations', i.observations],
    ['False positives', i.falsePositives],
    ['Active', i.active === undefined ? undefined : i.active ? 'yes' : 'no'],
    ['Added', i.dateAdded],
    ['Last modified', i.lastModified],
    ['First seen', i.firstSeen],
    ['Last seen', i.lastSeen],
  ]
  return (
    <article>
      <p>
        <a href="#/search" onClick={(e) => history.length > 1 && (e.preventDefault(), history.back())}>
          Back to the search
        </a>
      </p>
      <h1 class="summary">{i.summary}</h1>
      <dl class="fields">
        {fields
          .filter(([, value]) => value !== undefined && value !== null && value !== '')
          .map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{String(value)}</dd>
            </div>
          ))}
        {i.source && (
          <div>
            <dt>Source</dt>
            <dd>
              {sourceLink ? (
                <a href={sourceLink} rel="noreferrer noopener" target="_blank">
                  {i.source}
                </a>
              ) : (
                i.source
              )}
            </dd>
          </div>
        )}
      </dl>
      <h2>Description</h2>
      <p class="description">{i.description || 'None'}</p>
      <h2>Tags</h2>
      <p>
        {(i.tags?.data ?? []).length
          ? i.tags!.data!.map((t) => (
              <span class="tag" key={t.name}>
                {t.name}
              </span>
            ))
          : 'None'}
      </p>
      <h2>Security labels</h2>
      <p>
        {(i.securityLabels?.data ?? []).length
          ? i.securityLabels!.data!.map((l) => (
              <span class="tag" key={l.name}>
                {l.name}
              </span>
            ))
          : 'None'}
      </p>
      <PagedList<Attribute>
        title="Attributes"
        path="/api/v3/indicatorAttributes"
        tql={`indicatorId = ${i.id}`}
        columns={['Type', 'Value', 'Source', 'Added']}
        row={(a) => (
          <>
            <td>{a.type}</td>
            <td class="description">{a.value}</td>
            <td class="description">{a.source ?? ''}</td>
            <td>{a.dateAdded?.slice(0, 10) ?? ''}</td>
          </>
        )}
      />
      <PagedList<Group>
        title="Associated Groups"
        path="/api/v3/groups"
        tql={`hasIndicator(id = ${i.id})`}
        columns={['Name', 'Type', 'Owner', 'Added']}
        row={(g) => (
          <>
            <td class="summary">{g.name}</td>
            <td>{g.type}</td>
            <td>{g.ownerName ?? ''}</td>
            <td>{g.dateAdded?.slice(0, 10) ?? ''}</td>
          </>
        )}
      />
      <PagedList<Full>
        title="Associated Indicators"
        path="/api/v3/indicators"
        tql={`hasIndicator(id = ${i.id})`}
        columns={['Summary', 'Type', 'Owner', 'Rating']}
        row={(a) => (
          <>
            <td class="summary">
              <a href={`#/details/indicators/${Number(a.id)}/overview`}>{a.summary}</a>
            </td>
            <td>{a.type}</td>
            <td>{a.ownerName ?? ''}</td>
            <td>{a.rating ?? ''}</td>
          </>
        )}
      />
    </article>
  )
}
