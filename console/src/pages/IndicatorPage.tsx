/**
 * An Indicator at the address its webLink gives (`#/details/indicators/<id>/overview`): its fields,
 * owner, rating, confidence, threat assessment, observations and false positives, tags and security
 * labels, source dates, and its attributes and associations, each paged and counted; for a person who may
 * write in its owner, triage (Triage.tsx). Every value is a text node; a URL from intelligence is a link
 * only when it is http or https.
 */
import { useEffect, useState } from 'preact/hooks'
import { type Indicator, api, mayWrite } from '../api.js'
import { safeHref } from '../safe-url.js'
import { PagedList } from './PagedList.js'
import {
  AttributeAdder,
  Associator,
  IndicatorTriage,
  NameEditor,
  OutcomeLine,
  putItem,
  useAccess,
  useChange,
} from './Triage.js'

interface Full extends Indicator {
  source?: string
  threatAssessScore?: number
  externalDateAdded?: string
  externalLastModified?: string
  externalDateExpires?: string
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
  const [version, setVersion] = useState(0)
  const changed = () => setVersion((v) => v + 1)
  const access = useAccess()
  const [dissociation, runDissociation] = useChange(changed)
  useEffect(() => {
    const fields = [
      'tags',
      'securityLabels',
      'threatAssess',
      'observations',
      'falsePositives',
      'externalDates',
      'sightings',
    ]
    api<{ data: Full }>(`/api/v3/indicators/${id}?${fields.map((f) => `fields=${f}`).join('&')}`)
      .then((r) => setState({ indicator: r.data }))
      .catch((error: Error) => setState({ error: error.message }))
  }, [id, version])
  if (state.error)
    return (
      <p role="alert" class="error">
        {state.error}
      </p>
    )
  const i = state.indicator
  if (!i) return <p>Loading…</p>
  const sourceLink = safeHref(i.source)
  const canWrite = !!access && mayWrite(access, i.ownerName, 'indicators')
  const canTrack = !!access && access.some((o) => o.name === i.ownerName && o.permTrack === 'FULL')
  /** The Dissociate action of the partners this Indicator holds in `field` (associatedGroups, associatedCases). */
  const dissociate = (field: string, noun: string) =>
    canWrite
      ? {
          text: 'Dissociate',
          label: (p: Group) => `Dissociate ${noun} ${p.name}`,
          run: (p: Group) =>
            runDissociation(
              () => putItem('indicators', i.id, { [field]: { data: [{ id: p.id }], mode: 'delete' } }),
              `Dissociated ${noun} ${p.name}`,
            ),
        }
      : undefined
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
    ['External date added', i.externalDateAdded],
    ['External last modified', i.externalLastModified],
    ['External expiry', i.externalDateExpires],
  ]
  return (
    <article>
      <p>
        <a href="#/search" onClick={(e) => history.length > 1 && (e.preventDefault(), history.back())}>
          Back to the search
        </a>
      </p>
      <h1 class="summary">{i.summary}</h1>
      <p>
        <a href={`#/graph/indicators/${i.id}`}>Graph</a>
      </p>
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
      {canWrite && (
        <IndicatorTriage
          id={i.id}
          rating={i.rating}
          confidence={i.confidence}
          active={i.active}
          canTrack={canTrack}
          onChanged={changed}
        />
      )}
      <NameEditor
        kind="indicators"
        id={i.id}
        field="tags"
        names={(i.tags?.data ?? []).map((t) => t.name)}
        canWrite={canWrite}
        onChanged={changed}
      />
      <NameEditor
        kind="indicators"
        id={i.id}
        field="securityLabels"
        names={(i.securityLabels?.data ?? []).map((l) => l.name)}
        canWrite={canWrite}
        onChanged={changed}
      />
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
        version={version}
        action={
          canWrite
            ? {
                text: 'Delete',
                label: (a) => `Delete attribute ${a.type} ${a.value}`,
                run: (a) =>
                  runDissociation(
                    () => api(`/api/v3/indicatorAttributes/${a.id}`, { method: 'DELETE' }),
                    `Deleted the ${a.type} attribute`,
                  ),
              }
            : undefined
        }
      />
      {canWrite && (
        <AttributeAdder endpoint="indicatorAttributes" parentField="indicatorId" id={i.id} onChanged={changed} />
      )}
      {canWrite && (
        <Associator
          kind="indicators"
          id={i.id}
          partners={[
            ['associatedGroups', 'Group'],
            ['associatedCases', 'Case'],
          ]}
          onChanged={changed}
        />
      )}
      <OutcomeLine outcome={dissociation} />
      <PagedList<Group>
        title="Associated Groups"
        path="/api/v3/groups"
        tql={`hasIndicator(id = ${i.id})`}
        columns={['Name', 'Type', 'Owner', 'Added']}
        row={(g) => (
          <>
            <td class="summary">
              <a href={`#/details/groups/${Number(g.id)}/overview`}>{g.name}</a>
            </td>
            <td>{g.type}</td>
            <td>{g.ownerName ?? ''}</td>
            <td>{g.dateAdded?.slice(0, 10) ?? ''}</td>
          </>
        )}
        version={version}
        action={dissociate('associatedGroups', 'Group')}
      />
      <PagedList<Group>
        title="Associated Cases"
        path="/api/v3/cases"
        tql={`hasIndicator(id = ${i.id})`}
        columns={['Name', 'Owner', 'Added']}
        row={(c) => (
          <>
            <td class="summary">
              <a href={`#/details/cases/${Number(c.id)}/overview`}>{c.name}</a>
            </td>
            <td>{String((c as { owner?: unknown }).owner ?? '')}</td>
            <td>{c.dateAdded?.slice(0, 10) ?? ''}</td>
          </>
        )}
        version={version}
        action={dissociate('associatedCases', 'Case')}
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
