/**
 * Adding or changing a feed: one form for every kind the API takes, showing the settings the chosen kind
 * reads. Credentials and CA certificates are written, never read back: a stored feed shows only their kind,
 * and a change keeps them unless the administrator replaces or removes them.
 */
import { useEffect, useState } from 'preact/hooks'
import type { FeedKind, FeedView } from '../../../../src/domain/feeds/feed.js'
import { FEED_KINDS } from '../../../../src/domain/feeds/feed.js'
import { INDICATOR_TYPES } from '../../../../src/model/indicator-types.js'
import { api } from '../../api.js'
import { type CredentialsChoice, type FeedForm, KIND_LABELS, feedBody, feedForm, readsSetting } from './feed-form.js'

type TextField = {
  [K in keyof FeedForm]: FeedForm[K] extends string ? K : never
}[keyof FeedForm]

export function FeedEditor(props: {
  feed?: FeedView
  owners: string[]
  onSaved: (feed: FeedView, created: boolean) => void
  onCancel: () => void
}) {
  const { feed } = props
  const [form, setForm] = useState<FeedForm>(() => feedForm(feed, props.owners[0] ?? ''))
  const [error, setError] = useState<string>()
  const [saving, setSaving] = useState(false)
  const set = (changes: Partial<FeedForm>) => setForm((old) => ({ ...old, ...changes }))
  // The person's owners may arrive after the form opened: the choice shown is then the one sent.
  useEffect(() => {
    if (!form.owner && props.owners.length) set({ owner: props.owners[0] })
  }, [props.owners.length])
  const id = (name: string) => `feed-${name}`
  const owners = feed && !props.owners.includes(feed.owner) ? [feed.owner, ...props.owners] : props.owners

  const text = (
    field: TextField,
    label: string,
    options: { hint?: string; type?: 'text' | 'url' | 'password' | 'number'; required?: boolean } = {},
  ) => (
    <>
      <label for={id(field)}>{label}</label>
      <input
        id={id(field)}
        // Preact types each input type apart; every one of these takes a text value.
        type={(options.type ?? 'text') as 'text'}
        value={form[field]}
        required={options.required}
        autocomplete="off"
        aria-describedby={options.hint ? id(`${field}-hint`) : undefined}
        onInput={(e) => set({ [field]: e.currentTarget.value } as Partial<FeedForm>)}
      />
      {options.hint && (
        <p class="hint" id={id(`${field}-hint`)}>
          {options.hint}
        </p>
      )}
    </>
  )

  const save = async (e: Event) => {
    e.preventDefault()
    setError(undefined)
    setSaving(true)
    try {
      const body = feedBody(form, !!feed)
      const saved = feed
        ? await api<{ data: FeedView }>(`/api/v3/feeds/${feed.id}`, { method: 'PUT', body })
        : await api<{ data: FeedView }>('/api/v3/feeds', { method: 'POST', body })
      props.onSaved(saved.data, !feed)
    } catch (failure) {
      setError((failure as Error).message)
    } finally {
      setSaving(false)
    }
  }

  const kind = form.kind
  const credentialChoices: [CredentialsChoice, string][] = [
    ...(feed ? ([['keep', `Keep the stored ones (${feed.credentials})`]] as [CredentialsChoice, string][]) : []),
    ['none', feed ? 'None (remove them)' : 'None'],
    ['basic', 'User name and password (Basic)'],
    ['bearer', 'Bearer token'],
    ['header', 'A header and its value (an API key)'],
  ]
  const heading = feed ? `Change the feed ${feed.name}` : 'Add a feed'
  return (
    <section aria-labelledby="feed-editor">
      <h2 id="feed-editor">{heading}</h2>
      <form class="stack" onSubmit={save}>
        {text('name', 'Name', { required: true })}
        <label for={id('kind')}>Kind</label>
        <select id={id('kind')} value={kind} onChange={(e) => set({ kind: e.currentTarget.value as FeedKind })}>
          {FEED_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
        {text('url', 'URL', {
          type: 'url',
          required: true,
          hint:
            kind === 'taxii21'
              ? 'The API root, e.g. https://taxii.example/api1/'
              : kind === 'misp'
                ? "The feed's directory or its manifest.json"
                : kind === 'taxii11'
                  ? 'The discovery service'
                  : 'The list itself; http or https, without a user name or password',
        })}
        <label for={id('owner')}>Owner (where its items go)</label>
        <select id={id('owner')} value={form.owner} onChange={(e) => set({ owner: e.currentTarget.value })}>
          {owners.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
        {readsSetting(kind, 'collection') &&
          text('collection', 'Collection', {
            required: true,
            hint: kind === 'taxii21' ? "The collection's id or alias" : "The collection's name",
          })}
        {readsSetting(kind, 'types') &&
          text('types', 'Only these STIX types (optional)', { hint: 'Comma-separated, e.g. indicator, malware' })}
        {readsSetting(kind, 'pollUrl') &&
          text('pollUrl', 'Poll service URL (optional)', { type: 'url', hint: 'When discovery is not to be asked' })}
        {readsSetting(kind, 'columns') &&
          text('columns', 'CSV columns (optional)', { hint: 'field=column pairs, e.g. value=IOC,type=Kind' })}
        {readsSetting(kind, 'indicatorType') && (
          <>
            <label for={id('indicatorType')}>
              Every value is of type{kind === 'csv' ? ' (optional: else each row says or it is detected)' : ''}
            </label>
            <select
              id={id('indicatorType')}
              value={form.indicatorType}
              required={kind === 'text'}
              onChange={(e) => set({ indicatorType: e.currentTarget.value })}
            >
              <option value="">{kind === 'text' ? 'Choose a type' : 'Detect each value'}</option>
              {INDICATOR_TYPES.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                </option>
              ))}
            </select>
          </>
        )}
        {readsSetting(kind, 'mirror') && (
          <label>
            <input type="checkbox" checked={form.mirror} onChange={(e) => set({ mirror: e.currentTarget.checked })} />{' '}
            Mirror: values that leave the list become inactive
          </label>
        )}
        <h3>Credentials (written, never shown again)</h3>
        <label for={id('credentials')}>How the feed proves who it is</label>
        <select
          id={id('credentials')}
          value={form.credentials}
          onChange={(e) => set({ credentials: e.currentTarget.value as CredentialsChoice })}
        >
          {credentialChoices.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {form.credentials === 'basic' && (
          <>
            {text('user', 'User name', { required: true })}
            {text('password', 'Password', { type: 'password', required: true })}
          </>
        )}
        {form.credentials === 'bearer' && text('token', 'Token', { type: 'password', required: true })}
        {form.credentials === 'header' && (
          <>
            {text('headerName', 'Header name', { required: true, hint: 'e.g. X-Api-Key' })}
            {text('headerValue', 'Header value', { type: 'password', required: true })}
          </>
        )}
        <label for={id('caPem')}>CA certificates to trust (PEM, optional)</label>
        <textarea
          id={id('caPem')}
          rows={4}
          cols={64}
          value={form.caPem}
          aria-describedby={id('caPem-hint')}
          onInput={(e) => set({ caPem: e.currentTarget.value })}
        />
        <p class="hint" id={id('caPem-hint')}>
          {feed?.hasCaFile
            ? 'Certificates are stored; paste others to replace them.'
            : "For a server whose certificate a private CA signed, besides the system's."}
        </p>
        {feed?.hasCaFile && (
          <label>
            <input
              type="checkbox"
              checked={form.removeCa}
              onChange={(e) => set({ removeCa: e.currentTarget.checked })}
            />{' '}
            Remove the stored certificates
          </label>
        )}
        <h3>What the items get when they say nothing themselves</h3>
        {text('rating', 'Rating (0–5)', { type: 'number' })}
        {text('confidence', 'Confidence (0–100)', { type: 'number' })}
        {text('tags', 'Tags', { hint: 'Comma-separated' })}
        {text('securityLabel', 'Security label', {
          hint: "One of the owner's labels or a TLP label; none is invented",
        })}
        {text('interval', 'Runs every', { hint: '15m, 1h, 1d or seconds; at least 1m', required: true })}
        {text('importFrom', 'Nothing older than (optional)', { hint: 'An ISO 8601 date or time' })}
        {text('maxObjectsPerRun', 'Most objects a run takes (optional)', { type: 'number' })}
        <label>
          <input type="checkbox" checked={form.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} />{' '}
          Enabled: runs on its schedule
        </label>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <p class="inline">
          <button type="submit" disabled={saving}>
            {feed ? 'Save the feed' : 'Add the feed'}
          </button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </p>
      </form>
    </section>
  )
}
