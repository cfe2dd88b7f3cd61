/**
 * System settings: each with its description, value and default; one form sends the changed ones together
 * (PUT /api/v3/admin/settings), which the server checks all before storing any.
 */
import { useState } from 'preact/hooks'
import { api } from '../../api.js'
import { OutcomeLine, useChange } from '../Triage.js'
import { ADMIN_API, ListState, useAdminList } from './account-admin.js'

interface Setting {
  name: string
  value: boolean | number
  default: boolean | number
  type: 'boolean' | 'integer'
  description: string
}

export function SettingsSection() {
  const settings = useAdminList<Setting>('/settings')
  const [edits, setEdits] = useState<Record<string, string>>({})
  const [outcome, run] = useChange(settings.reload)
  if (!settings.items) return <ListState error={settings.error} what="the settings" />
  const items = settings.items
  const changed = Object.entries(edits).filter(
    ([name, text]) => String(items.find((s) => s.name === name)?.value) !== text,
  )

  const save = async () => {
    if (!changed.length) throw new Error('Nothing was changed')
    await api(`${ADMIN_API}/settings`, { method: 'PUT', body: Object.fromEntries(changed) })
    setEdits({})
  }

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault()
        void run(save, `Saved ${changed.map(([name]) => name).join(', ')}`)
      }}
    >
      <table class="results">
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">What it does</th>
            <th scope="col">Value</th>
            <th scope="col">Default</th>
          </tr>
        </thead>
        <tbody>
          {items.map((s) => {
            const id = `setting-${s.name}`
            const value = edits[s.name] ?? String(s.value)
            // From the edits as they are when the event comes, not as this render saw them: two quick edits keep both.
            const edit = (text: string) => setEdits((now) => ({ ...now, [s.name]: text }))
            return (
              <tr key={s.name}>
                <td>
                  <label for={id}>{s.name}</label>
                </td>
                <td id={`${id}-about`}>{s.description}</td>
                <td>
                  {s.type === 'boolean' ? (
                    <select
                      id={id}
                      aria-describedby={`${id}-about`}
                      value={value}
                      onChange={(e) => edit(e.currentTarget.value)}
                    >
                      <option value="true">true</option>
                      <option value="false">false</option>
                    </select>
                  ) : (
                    <input
                      id={id}
                      aria-describedby={`${id}-about`}
                      inputMode="numeric"
                      value={value}
                      size={12}
                      onInput={(e) => edit(e.currentTarget.value)}
                    />
                  )}
                </td>
                <td>{String(s.default)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
      <p class="inline">
        <button type="submit">Save changed settings</button>
      </p>
      <OutcomeLine outcome={outcome} />
    </form>
  )
}
