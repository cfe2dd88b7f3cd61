/**
 * Triage on an item page: tags, security labels, attributes and associations for every kind;
 * rating, confidence, active, false positives and observations for Indicators. Shown only to a person
 * whose role in the item's owner lets them write (from /api/v3/security/owners); the API checks again.
 * Every write goes through the v3 API with the session's CSRF header (api.ts).
 */
import { useEffect, useState } from 'preact/hooks'
import { type OwnerAccess, api, ownerAccess } from '../api.js'
import { tqlString } from '../query.js'

/** The person's owners and permissions, once loaded. */
export function useAccess(): OwnerAccess[] | undefined {
  const [access, setAccess] = useState<OwnerAccess[]>()
  useEffect(() => void ownerAccess().then(setAccess), [])
  return access
}

export interface Outcome {
  ok?: string
  error?: string
}

/** Runs one change, then says what happened (a status for success, an alert for a refusal). */
export function useChange(after: () => void): [Outcome, (work: () => Promise<unknown>, done: string) => Promise<void>] {
  const [outcome, setOutcome] = useState<Outcome>({})
  const run = async (work: () => Promise<unknown>, done: string) => {
    setOutcome({})
    try {
      await work()
      setOutcome({ ok: done })
      after()
    } catch (error) {
      setOutcome({ error: (error as Error).message })
    }
  }
  return [outcome, run]
}

export function OutcomeLine({ outcome }: { outcome: Outcome }) {
  return (
    <>
      <p class="status" role="status">
        {outcome.ok ?? ''}
      </p>
      {outcome.error && (
        <p role="alert" class="error">
          {outcome.error}
        </p>
      )}
    </>
  )
}

/** PUT one v3 item with a partial body. */
export function putItem(kind: string, id: number, body: Record<string, unknown>): Promise<unknown> {
  return api(`/api/v3/${kind}/${id}`, { method: 'PUT', body })
}

let labelNames: Promise<string[]> | undefined
function securityLabelNames(): Promise<string[]> {
  labelNames ??= api<{ data: { name: string }[] }>('/api/v3/securityLabels?resultLimit=500').then(
    (r) => r.data.map((l) => l.name),
    () => [],
  )
  return labelNames
}

/** Tags or security labels of an item: the names as text, and for a writer "Add …" and "Remove …". */
export function NameEditor({
  kind,
  id,
  field,
  names,
  canWrite,
  onChanged,
}: {
  kind: string
  id: number
  field: 'tags' | 'securityLabels'
  names: string[]
  canWrite: boolean
  onChanged: () => void
}) {
  const word = field === 'tags' ? 'tag' : 'security label'
  const title = field === 'tags' ? 'Tags' : 'Security labels'
  const [text, setText] = useState('')
  const [choices, setChoices] = useState<string[]>([])
  const [outcome, run] = useChange(onChanged)
  useEffect(() => {
    if (field === 'securityLabels' && canWrite) void securityLabelNames().then(setChoices)
  }, [field, canWrite])
  const change = (name: string, mode: 'append' | 'delete') =>
    run(
      () => putItem(kind, id, { [field]: { data: [{ name }], mode } }),
      mode === 'append' ? `Added the ${word} ${name}` : `Removed the ${word} ${name}`,
    )
  const inputId = `new-${field}`
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      <p>
        {names.length === 0
          ? 'None'
          : names.map((name) => (
              <span class="tag" key={name}>
                {name}
                {canWrite && (
                  <button
                    type="button"
                    class="remove"
                    aria-label={`Remove ${word} ${name}`}
                    onClick={() => void change(name, 'delete')}
                  >
                    ×
                  </button>
                )}
              </span>
            ))}
      </p>
      {canWrite && (
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault()
            const name = text.trim()
            if (!name) return
            void change(name, 'append').then(() => setText(''))
          }}
        >
          <label for={inputId}>{field === 'tags' ? 'New tag' : 'New security label'}</label>
          {field === 'securityLabels' && choices.length > 0 ? (
            <select id={inputId} value={text} onChange={(e) => setText(e.currentTarget.value)}>
              <option value="">Choose a label</option>
              {choices.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          ) : (
            <input id={inputId} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          )}
          <button type="submit">{field === 'tags' ? 'Add tag' : 'Add security label'}</button>
        </form>
      )}
      <OutcomeLine outcome={outcome} />
    </section>
  )
}

/** Rating, confidence and active of an Indicator; a false positive; an observation. */
export function IndicatorTriage({
  id,
  rating,
  confidence,
  active,
  canTrack,
  onChanged,
}: {
  id: number
  rating?: number
  confidence?: number
  active?: boolean
  canTrack: boolean
  onChanged: () => void
}) {
  const [form, setForm] = useState({ rating: String(rating ?? 0), confidence: String(confidence ?? 0), active })
  const [outcome, run] = useChange(onChanged)
  return (
    <section aria-label="Triage" class="triage">
      <h2>Triage</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault()
          void run(
            () =>
              putItem('indicators', id, {
                rating: Number(form.rating),
                confidence: Number(form.confidence),
                active: !!form.active,
              }),
            'Saved rating, confidence and active',
          )
        }}
      >
        <label for="edit-rating">Rating</label>
        <select
          id="edit-rating"
          value={form.rating}
          onChange={(e) => setForm({ ...form, rating: e.currentTarget.value })}
        >
          {[0, 1, 2, 3, 4, 5].map((n) => (
            <option key={n} value={String(n)}>
              {n === 0 ? 'Unrated' : `${n} of 5`}
            </option>
          ))}
        </select>
        <label for="edit-confidence">Confidence</label>
        <input
          id="edit-confidence"
          type="number"
          min={0}
          max={100}
          value={form.confidence}
          onInput={(e) => setForm({ ...form, confidence: e.currentTarget.value })}
        />
        <input
          id="edit-active"
          type="checkbox"
          checked={!!form.active}
          onChange={(e) => setForm({ ...form, active: e.currentTarget.checked })}
        />
        <label for="edit-active">Active</label>
        <button type="submit">Save</button>
      </form>
      {canTrack && (
        <p class="inline">
          <button
            type="button"
            onClick={() =>
              void run(() => putItem('indicators', id, { falsePositiveFlag: true }), 'Reported a false positive')
            }
          >
            Report false positive
          </button>
          <button
            type="button"
            onClick={() => void run(() => putItem('indicators', id, { observations: 1 }), 'Reported an observation')}
          >
            Report observation
          </button>
        </p>
      )}
      <OutcomeLine outcome={outcome} />
    </section>
  )
}

/** Adds an attribute (type and value) to an item of a kind that has them. */
export function AttributeAdder({
  endpoint,
  parentField,
  id,
  onChanged,
}: {
  endpoint: string
  parentField: string
  id: number
  onChanged: () => void
}) {
  const [type, setType] = useState('Description')
  const [value, setValue] = useState('')
  const [outcome, run] = useChange(onChanged)
  return (
    <>
      <form
        class="inline"
        aria-label="New attribute"
        onSubmit={(e) => {
          e.preventDefault()
          void run(
            () => api(`/api/v3/${endpoint}`, { method: 'POST', body: { [parentField]: id, type, value } }),
            `Added a ${type} attribute`,
          ).then(() => setValue(''))
        }}
      >
        <label for="attribute-type">Attribute type</label>
        <input id="attribute-type" value={type} onInput={(e) => setType(e.currentTarget.value)} />
        <label for="attribute-value">Attribute value</label>
        <input id="attribute-value" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        <button type="submit">Add attribute</button>
      </form>
      <OutcomeLine outcome={outcome} />
    </>
  )
}

/** Where a partner named by name or value is looked up: its v3 list and the TQL field that names it. */
const PARTNER_LOOKUP: Record<string, [list: string, field: string]> = {
  associatedGroups: ['groups', 'name'],
  associatedIndicators: ['indicators', 'summary'],
  associatedCases: ['cases', 'name'],
}

/** The id of the partner a person typed: an id as it is, a name or value when exactly one readable item has it. */
async function partnerId(field: string, word: string, typed: string): Promise<number> {
  const text = typed.trim()
  if (/^\d{1,15}$/.test(text)) return Number(text)
  const lookup = PARTNER_LOOKUP[field]
  if (!text || !lookup) throw new Error(`Give the id of the ${word}`)
  const [list, name] = lookup
  const params = new URLSearchParams({ tql: `${name} = ${tqlString(text)}`, resultLimit: '2' })
  const found = await api<{ data: { id: number }[] }>(`/api/v3/${list}?${params}`)
  if (found.data.length === 1) return Number(found.data[0].id)
  throw new Error(
    found.data.length === 0
      ? `No ${word} you can read is named ${text}`
      : `More than one ${word} is named ${text}: give its id`,
  )
}

/** Associates the item with another by its id, name or value: v3's associated<Kind> in append mode. */
export function Associator({
  kind,
  id,
  partners,
  onChanged,
}: {
  kind: string
  id: number
  /** [field of the PUT body, what a person calls it], e.g. ['associatedGroups', 'Group']. */
  partners: [string, string][]
  onChanged: () => void
}) {
  const [field, setField] = useState(partners[0][0])
  const [partner, setPartner] = useState('')
  const [outcome, run] = useChange(onChanged)
  const word = partners.find(([f]) => f === field)?.[1] ?? ''
  return (
    <section aria-label="Associate">
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault()
          const typed = partner
          void run(async () => {
            const target = await partnerId(field, word, typed)
            await putItem(kind, id, { [field]: { data: [{ id: target }], mode: 'append' } })
          }, `Associated ${word} ${typed.trim()}`).then(() => setPartner(''))
        }}
      >
        <label for="associate-kind">Associate with a</label>
        <select id="associate-kind" value={field} onChange={(e) => setField(e.currentTarget.value)}>
          {partners.map(([f, w]) => (
            <option key={f} value={f}>
              {w}
            </option>
          ))}
        </select>
        <label for="associate-id">Its id or name</label>
        <input
          id="associate-id"
          inputMode="numeric"
          value={partner}
          onInput={(e) => setPartner(e.currentTarget.value)}
        />
        <button type="submit">Associate</button>
      </form>
      <OutcomeLine outcome={outcome} />
    </section>
  )
}
