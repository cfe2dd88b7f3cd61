/**
 * Creates an Indicator (its type found by the server's own value detection, defanged values too) or a
 * Group, in an owner the person may write, through POST /api/v3/indicators or /api/v3/groups; then
 * opens the new item's page.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { GROUP_TYPES, indicatorBody, writableOwners } from '../writes.js'
import type { Route } from '../route.js'
import { OutcomeLine, useAccess, useChange } from './Triage.js'

export function NewItem({ navigate }: { navigate: (route: Route) => void }) {
  const access = useAccess()
  const [what, setWhat] = useState<'indicators' | 'groups'>('indicators')
  const [owner, setOwner] = useState('')
  const [value, setValue] = useState('')
  const [groupType, setGroupType] = useState(GROUP_TYPES[0])
  const [outcome, run] = useChange(() => undefined)
  const owners = access ? writableOwners(access, what === 'indicators' ? 'permIndicator' : 'permGroup') : []
  useEffect(() => {
    if (owners.length && !owners.some((o) => o.name === owner)) setOwner(owners[0].name)
  }, [owners.map((o) => o.name).join('\n')])
  if (!access) return <p>Loading…</p>
  if (owners.length === 0 && what === 'indicators')
    return <p role="alert">You may not create Indicators or Groups in any owner.</p>

  const create = async () => {
    let body: Record<string, unknown>
    if (what === 'indicators') {
      const made = indicatorBody(value)
      if ('reason' in made) throw new Error(made.reason)
      body = made.body
    } else {
      if (!value.trim()) throw new Error('A Group needs a name')
      body = { type: groupType, name: value.trim() }
    }
    const created = await api<{ data: { id: number } }>(`/api/v3/${what}?${new URLSearchParams({ owner })}`, {
      method: 'POST',
      body,
    })
    navigate({ page: 'details', kind: what, id: Number(created.data.id) })
  }

  return (
    <section aria-labelledby="new-heading">
      <h1 id="new-heading">New Indicator or Group</h1>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault()
          void run(create, 'Created')
        }}
      >
        <label for="new-what">What</label>
        <select id="new-what" value={what} onChange={(e) => setWhat(e.currentTarget.value as 'indicators' | 'groups')}>
          <option value="indicators">Indicator</option>
          <option value="groups">Group</option>
        </select>
        <label for="new-owner">Owner</label>
        <select id="new-owner" value={owner} onChange={(e) => setOwner(e.currentTarget.value)}>
          {owners.map((o) => (
            <option key={o.id} value={o.name}>
              {o.name}
            </option>
          ))}
        </select>
        {what === 'groups' && (
          <>
            <label for="new-group-type">Group type</label>
            <select id="new-group-type" value={groupType} onChange={(e) => setGroupType(e.currentTarget.value)}>
              {GROUP_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </>
        )}
        <label for="new-value">{what === 'indicators' ? 'Value' : 'Name'}</label>
        <input id="new-value" value={value} onInput={(e) => setValue(e.currentTarget.value)} autocomplete="off" />
        <button type="submit">{what === 'indicators' ? 'Create Indicator' : 'Create Group'}</button>
      </form>
      <OutcomeLine outcome={outcome} />
    </section>
  )
}
