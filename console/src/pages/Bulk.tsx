/**
 * Tagging or labelling many selected Indicators at once: one v3 PUT (append mode) per Indicator, four
 * at a time, then one line saying how many took it and, for those refused, the server's reason.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { eachOf } from '../writes.js'
import { OutcomeLine, putItem, useChange } from './Triage.js'

export interface Selection {
  ids: Set<number>
  toggle: (ids: number[], on: boolean) => void
  /** Whether a row's owner lets the person tag it: other rows have no box. */
  may: (ownerName: string | undefined) => boolean
}

let labelNames: Promise<string[]> | undefined

export function BulkBar({ ids, onDone }: { ids: number[]; onDone: () => void }) {
  const [tag, setTag] = useState('')
  const [label, setLabel] = useState('')
  const [labels, setLabels] = useState<string[]>([])
  const [outcome, run] = useChange(onDone)
  useEffect(() => {
    labelNames ??= api<{ data: { name: string }[] }>('/api/v3/securityLabels?resultLimit=500').then(
      (r) => r.data.map((l) => l.name),
      () => [],
    )
    void labelNames.then((names) => {
      setLabels(names)
      if (names.length) setLabel((old) => old || names[0])
    })
  }, [])
  const apply = (field: 'tags' | 'securityLabels', name: string, word: string) =>
    run(
      async () => {
        if (!name.trim()) throw new Error(`Give the ${word}`)
        const refused = await eachOf(ids, (id) =>
          putItem('indicators', id, { [field]: { data: [{ name: name.trim() }], mode: 'append' } }),
        )
        if (refused.size)
          throw new Error(
            `${ids.length - refused.size} of ${ids.length} took the ${word}; refused: ${[...new Set(refused.values())].join('; ')}`,
          )
      },
      `${ids.length} Indicator${ids.length === 1 ? '' : 's'} now carry the ${word} ${name.trim()}`,
    )
  return (
    <section class="bulk" aria-label="Change the selected Indicators">
      <p>
        <strong>{ids.length}</strong> selected
      </p>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault()
          void apply('tags', tag, 'tag')
        }}
      >
        <label for="bulk-tag">Tag for the selected</label>
        <input id="bulk-tag" value={tag} onInput={(e) => setTag(e.currentTarget.value)} />
        <button type="submit">Tag selected</button>
      </form>
      {labels.length > 0 && (
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault()
            void apply('securityLabels', label, 'security label')
          }}
        >
          <label for="bulk-label">Security label for the selected</label>
          <select id="bulk-label" value={label} onChange={(e) => setLabel(e.currentTarget.value)}>
            {labels.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
          <button type="submit">Label selected</button>
        </form>
      )}
      <OutcomeLine outcome={outcome} />
    </section>
  )
}
