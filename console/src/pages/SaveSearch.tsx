/** "Save this search" under a search: a name, and private or shared with one of the person's owners. */
import { useEffect, useState } from 'preact/hooks'
import { type OwnerAccess, ownerAccess } from '../api.js'
import { saveSearch } from '../saved-searches.js'

export function SaveSearch({ tql }: { tql: string }) {
  const [name, setName] = useState('')
  const [owner, setOwner] = useState('')
  const [owners, setOwners] = useState<OwnerAccess[]>([])
  const [said, setSaid] = useState<{ ok: boolean; text: string }>()
  useEffect(() => void ownerAccess().then((all) => setOwners(all.filter((o) => o.ownerRole !== 'Banned'))), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    try {
      const saved = await saveSearch({ name: name.trim(), tql, ...(owner ? { owner } : {}) })
      setSaid({
        ok: true,
        text: `Saved “${saved.name}”${saved.shared ? `, shared with ${saved.owner}` : ', private'}.`,
      })
      setName('')
    } catch (error) {
      setSaid({ ok: false, text: (error as Error).message })
    }
  }
  return (
    <form class="save-search" onSubmit={submit} aria-label="Save this search">
      <label for="save-search-name">Name of the saved search</label>
      <input id="save-search-name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="save-search-owner">Visible to</label>
      <select id="save-search-owner" value={owner} onChange={(e) => setOwner(e.currentTarget.value)}>
        <option value="">Only me</option>
        {owners.map((o) => (
          <option key={o.id} value={o.name}>
            Members of {o.name}
          </option>
        ))}
      </select>
      <button type="submit" disabled={name.trim() === ''}>
        Save this search
      </button>
      {said &&
        (said.ok ? (
          <span role="status">
            {said.text} <a href="#/saved-searches">Saved searches</a>
          </span>
        ) : (
          <span role="alert" class="error">
            {said.text}
          </span>
        ))}
    </form>
  )
}
