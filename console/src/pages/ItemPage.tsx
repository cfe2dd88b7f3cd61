/**
 * A Group, Victim, Task or Case at the address its webLink gives (`#/details/<kind>/<id>/overview`):
 * its fields (owner and source dates among them), tags, security labels, attributes and associations,
 * each association list paged and counted; for a person who may write in its owner, triage (Triage.tsx).
 * Every value is a text node; nothing from the item becomes a link but the console's own numeric ones.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, mayWrite } from '../api.js'
import { fieldLabel } from '../writes.js'
import { PagedList } from './PagedList.js'
import { AttributeAdder, Associator, NameEditor, OutcomeLine, putItem, useAccess, useChange } from './Triage.js'

interface Related {
  title: string
  /** The v3 list of the partner kind, and its route kind for links. */
  kind: 'groups' | 'indicators' | 'victims' | 'cases' | 'tasks'
  /** TQL on that list naming this item, e.g. hasGroup(id = 5). */
  tql: (id: number) => string
  /** The PUT body field that dissociates a partner of this list, when the API has one. */
  field?: string
}

interface KindConfig {
  word: string
  /** A Victim's assets (its e-mail addresses, web sites, accounts…), listed under its fields. */
  assets?: boolean
  options: string[]
  attributes?: { endpoint: string; parentField: string }
  related: Related[]
  partners: [string, string][]
}

const KINDS: Record<string, KindConfig> = {
  groups: {
    word: 'Group',
    // sightings: first and last seen; externalDates: the source's added, modified and expiry dates.
    options: ['tags', 'securityLabels', 'sightings', 'externalDates'],
    attributes: { endpoint: 'groupAttributes', parentField: 'groupId' },
    related: [
      { title: 'Associated Groups', kind: 'groups', tql: (id) => `hasGroup(id = ${id})`, field: 'associatedGroups' },
      {
        title: 'Associated Indicators',
        kind: 'indicators',
        tql: (id) => `hasGroup(id = ${id})`,
        field: 'associatedIndicators',
      },
      { title: 'Associated Victims', kind: 'victims', tql: (id) => `hasGroup(id = ${id})` },
      { title: 'Associated Cases', kind: 'cases', tql: (id) => `hasGroup(id = ${id})`, field: 'associatedCases' },
    ],
    partners: [
      ['associatedIndicators', 'Indicator'],
      ['associatedGroups', 'Group'],
      ['associatedCases', 'Case'],
    ],
  },
  victims: {
    word: 'Victim',
    assets: true,
    options: ['tags', 'securityLabels'],
    attributes: { endpoint: 'victimAttributes', parentField: 'victimId' },
    related: [
      { title: 'Associated Groups', kind: 'groups', tql: (id) => `hasVictim(id = ${id})`, field: 'associatedGroups' },
    ],
    partners: [['associatedGroups', 'Group']],
  },
  cases: {
    word: 'Case',
    options: ['tags', 'securityLabels'],
    attributes: { endpoint: 'caseAttributes', parentField: 'caseId' },
    related: [
      { title: 'Associated Groups', kind: 'groups', tql: (id) => `hasCase(id = ${id})`, field: 'associatedGroups' },
      {
        title: 'Associated Indicators',
        kind: 'indicators',
        tql: (id) => `hasCase(id = ${id})`,
        field: 'associatedIndicators',
      },
      { title: 'Tasks', kind: 'tasks', tql: (id) => `hasCase(id = ${id})` },
    ],
    partners: [
      ['associatedIndicators', 'Indicator'],
      ['associatedGroups', 'Group'],
    ],
  },
  tasks: {
    word: 'Task',
    options: ['tags'],
    related: [{ title: 'Case', kind: 'cases', tql: (id) => `hasTask(id = ${id})` }],
    partners: [],
  },
}

export function isItemKind(kind: string): boolean {
  return kind in KINDS
}

type Item = Record<string, unknown> & {
  id: number
  name?: string
  summary?: string
  ownerName?: string
  description?: string
  tags?: { data?: { name: string }[] }
  securityLabels?: { data?: { name: string }[] }
}

/** Fields not shown in the list of fields: shown elsewhere on the page, or links of the API. */
const SHOWN_ELSEWHERE = new Set([
  'id',
  'name',
  'summary',
  'description',
  'webLink',
  'legacyLink',
  'tags',
  'securityLabels',
])

interface Row {
  id: number
  name?: string
  summary?: string
  type?: string
  ownerName?: string
  /** Cases and Tasks name their owner here. */
  owner?: unknown
  dateAdded?: string
}

/** A victim asset: its type and one value field named after the type (website, address, phone…). */
type AssetRow = Record<string, unknown> & { id: number; type: string }

/** The asset's value: the one field that is not its id, type, victim, link or date. */
export function assetValue(a: AssetRow): string {
  return Object.entries(a)
    .filter(([k, v]) => !['id', 'type', 'victimId', 'webLink', 'dateAdded'].includes(k) && typeof v === 'string')
    .map(([, v]) => String(v))
    .join(' ')
}

interface AttributeRow {
  id: number
  type: string
  value: string
  source?: string
  dateAdded?: string
}

export function ItemPage({ kind, id }: { kind: string; id: number }) {
  const config = KINDS[kind]!
  const [state, setState] = useState<{ item?: Item; error?: string }>({})
  const [version, setVersion] = useState(0)
  const changed = () => setVersion((v) => v + 1)
  const access = useAccess()
  const [removal, runRemoval] = useChange(changed)
  useEffect(() => {
    api<{ data: Item }>(`/api/v3/${kind}/${id}?${config.options.map((o) => `fields=${o}`).join('&')}`)
      .then((r) => setState({ item: r.data }))
      .catch((error: Error) => setState({ error: error.message }))
  }, [kind, id, version])
  if (state.error)
    return (
      <p role="alert" class="error">
        {state.error}
      </p>
    )
  const item = state.item
  if (!item) return <p>Loading…</p>
  // Groups and Victims name their owner in ownerName; Cases and Tasks in owner.
  const ownerName =
    typeof item.ownerName === 'string' ? item.ownerName : typeof item.owner === 'string' ? item.owner : ''
  const canWrite = !!access && mayWrite(access, ownerName, kind)
  const fields = Object.entries(item).filter(
    ([name, value]) =>
      !SHOWN_ELSEWHERE.has(name) &&
      (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'),
  )
  return (
    <article>
      <p>
        <a href="#/search" onClick={(e) => history.length > 1 && (e.preventDefault(), history.back())}>
          Back
        </a>
      </p>
      <p class="kind">{config.word}</p>
      <h1 class="summary">{String(item.name ?? item.summary ?? `${config.word} ${item.id}`)}</h1>
      <p>
        <a href={`#/graph/${kind}/${item.id}`}>Graph</a>
      </p>
      <dl class="fields">
        <div>
          <dt>ID</dt>
          <dd>{item.id}</dd>
        </div>
        {fields.map(([name, value]) => (
          <div key={name}>
            <dt>{fieldLabel(name)}</dt>
            <dd>{typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value)}</dd>
          </div>
        ))}
      </dl>
      {item.description !== undefined && (
        <>
          <h2>Description</h2>
          <p class="description">{String(item.description || 'None')}</p>
        </>
      )}
      <NameEditor
        kind={kind}
        id={item.id}
        field="tags"
        names={(item.tags?.data ?? []).map((t) => t.name)}
        canWrite={canWrite}
        onChanged={changed}
      />
      {config.options.includes('securityLabels') && (
        <NameEditor
          kind={kind}
          id={item.id}
          field="securityLabels"
          names={(item.securityLabels?.data ?? []).map((l) => l.name)}
          canWrite={canWrite}
          onChanged={changed}
        />
      )}
      {config.assets && (
        <PagedList<AssetRow>
          title="Assets"
          path="/api/v3/victimAssets"
          tql={`victimId = ${item.id}`}
          columns={['Type', 'Value']}
          version={version}
          row={(a) => (
            <>
              <td>{a.type}</td>
              <td class="description">{assetValue(a)}</td>
            </>
          )}
        />
      )}
      {config.attributes && (
        <>
          <PagedList<AttributeRow>
            title="Attributes"
            path={`/api/v3/${config.attributes.endpoint}`}
            tql={`${config.attributes.parentField} = ${item.id}`}
            columns={['Type', 'Value', 'Source', 'Added']}
            version={version}
            row={(a) => (
              <>
                <td>{a.type}</td>
                <td class="description">{a.value}</td>
                <td class="description">{a.source ?? ''}</td>
                <td>{a.dateAdded?.slice(0, 10) ?? ''}</td>
              </>
            )}
            action={
              canWrite
                ? {
                    text: 'Delete',
                    label: (a) => `Delete attribute ${a.type} ${a.value}`,
                    run: (a) =>
                      runRemoval(
                        () => api(`/api/v3/${config.attributes!.endpoint}/${a.id}`, { method: 'DELETE' }),
                        `Deleted the ${a.type} attribute`,
                      ),
                  }
                : undefined
            }
          />
          {canWrite && (
            <AttributeAdder
              endpoint={config.attributes.endpoint}
              parentField={config.attributes.parentField}
              id={item.id}
              onChanged={changed}
            />
          )}
        </>
      )}
      {canWrite && config.partners.length > 0 && (
        <Associator kind={kind} id={item.id} partners={config.partners} onChanged={changed} />
      )}
      <OutcomeLine outcome={removal} />
      {config.related.map((r) => (
        <PagedList<Row>
          key={r.title}
          title={r.title}
          path={`/api/v3/${r.kind}`}
          tql={r.tql(item.id)}
          columns={['Name', 'Type', 'Owner', 'Added']}
          version={version}
          row={(p) => (
            <>
              <td class="summary">
                <a href={`#/details/${r.kind}/${Number(p.id)}/overview`}>{String(p.name ?? p.summary ?? p.id)}</a>
              </td>
              <td>{p.type ?? ''}</td>
              <td>{String(p.ownerName ?? p.owner ?? '')}</td>
              <td>{p.dateAdded?.slice(0, 10) ?? ''}</td>
            </>
          )}
          action={
            canWrite && r.field
              ? {
                  text: 'Dissociate',
                  label: (p) => `Dissociate ${String(p.name ?? p.summary ?? p.id)}`,
                  run: (p) =>
                    runRemoval(
                      () => putItem(kind, item.id, { [r.field!]: { data: [{ id: p.id }], mode: 'delete' } }),
                      `Dissociated ${String(p.name ?? p.summary ?? p.id)}`,
                    ),
                }
              : undefined
          }
        />
      ))}
    </article>
  )
}
