/** Owners: every Organization, Community and Source, and a form that creates one (POST /api/v3/admin/owners). */
import { useState } from 'preact/hooks'
import { api } from '../../api.js'
import { OWNER_TYPES } from '../../../../src/model/kinds.js'
import { OutcomeLine, useChange } from '../Triage.js'
import { ADMIN_API, type AdminOwner, Choice, ListState, useAdminList } from './account-admin.js'

export function OwnersSection() {
  const owners = useAdminList<AdminOwner>('/owners')
  const [name, setName] = useState('')
  const [type, setType] = useState<string>('Source')
  const [description, setDescription] = useState('')
  const [outcome, run] = useChange(owners.reload)

  const create = async () => {
    await api(`${ADMIN_API}/owners`, {
      method: 'POST',
      body: { name, type, ...(description.trim() ? { description } : {}) },
    })
    setName('')
    setDescription('')
  }

  return (
    <>
      <section aria-labelledby="owners-new">
        <h2 id="owners-new">New owner</h2>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault()
            void run(create, `Created the ${type} ${name.trim()}`)
          }}
        >
          <label for="owner-name">Owner name</label>
          <input id="owner-name" value={name} onInput={(e) => setName(e.currentTarget.value)} autocomplete="off" />
          <Choice id="owner-type" label="Owner type" value={type} options={OWNER_TYPES} onChange={setType} />
          <label for="owner-description">Description (optional)</label>
          <input
            id="owner-description"
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
            autocomplete="off"
          />
          <button type="submit">Create owner</button>
        </form>
        <OutcomeLine outcome={outcome} />
      </section>
      <section aria-labelledby="owners-list">
        <h2 id="owners-list">Every owner{owners.items ? ` (${owners.items.length})` : ''}</h2>
        {!owners.items ? (
          <ListState error={owners.error} what="the owners" />
        ) : (
          <table class="results">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Description</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {owners.items.map((o) => (
                <tr key={o.id}>
                  <td>{o.name}</td>
                  <td>{o.type}</td>
                  <td class="description">{o.description ?? ''}</td>
                  <td>{o.dateAdded}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  )
}
