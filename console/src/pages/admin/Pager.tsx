/** Previous and next over a counted list the server pages (`resultStart`, `resultLimit`), naming what it pages. */
export function Pager(props: {
  /** What the pages hold, in the buttons' names: "batch jobs", "refusals". */
  what: string
  start: number
  size: number
  count: number
  onStart: (start: number) => void
}) {
  const { what, start, size, count, onStart } = props
  if (count <= size && start === 0) return null
  return (
    <nav class="pager" aria-label={`Pages of ${what}`}>
      <span>
        {count === 0 ? 0 : start + 1}–{Math.min(start + size, count)} of {count}
      </span>
      {start > 0 && (
        <button type="button" onClick={() => onStart(Math.max(0, start - size))}>
          Previous {what}
        </button>
      )}
      {start + size < count && (
        <button type="button" onClick={() => onStart(start + size)}>
          Next {what}
        </button>
      )}
    </nav>
  )
}

/** A time as the API gives it (ISO 8601, UTC), to the second. */
export const when = (iso: string | undefined) => (iso ? `${iso.slice(0, 19).replace('T', ' ')} UTC` : '')
