/**
 * The dashboard: server-side aggregates of the store (GET /api/v3/dashboard), each card a link to the search it
 * summarises. Bars are SVG rectangles sized by attributes; every label from the store is a text node.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'
import { DEFAULT_SORT, formatRoute } from '../route.js'
import type {
  Bucket,
  Dashboard as DashboardData,
  DashboardGroup,
  DashboardIndicator,
  PinnedCard,
} from '../../../src/domain/dashboard/dashboard-view.js'
import './dashboard.css'

const number = (n: number) => n.toLocaleString('en-US')

/** The console's address of a search of Indicators by TQL. */
export const searchHref = (tql: string, sort = DEFAULT_SORT) =>
  formatRoute({ page: 'search', q: tql, sort, pageNumber: 1 })

const BAR_WIDTH = 128

function Bars({ buckets, label }: { buckets: Bucket[]; label: (b: Bucket) => string }) {
  const most = Math.max(1, ...buckets.map((b) => b.count))
  if (buckets.length === 0) return <p>No Indicators.</p>
  return (
    <ul class="bars">
      {buckets.map((b) => (
        <li key={b.label}>
          <a href={searchHref(b.tql)}>{label(b)}</a>
          <svg width={BAR_WIDTH} height="14" aria-hidden="true">
            <rect class="bar" x="0" y="2" height="10" width={Math.max(1, Math.round((b.count / most) * BAR_WIDTH))} />
          </svg>
          <span class="count">{number(b.count)}</span>
        </li>
      ))}
    </ul>
  )
}

function Card({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  )
}

function PerDay({ days }: { days: Bucket[] }) {
  const most = Math.max(1, ...days.map((d) => d.count))
  const width = 11
  const height = 80
  const total = days.reduce((sum, d) => sum + d.count, 0)
  return (
    <>
      <p>
        <a href={searchHref(`dateAdded >= "${days[0]?.label}"`)}>
          {number(total)} in the last {days.length} days
        </a>
      </p>
      <svg class="days" width={days.length * width} height={height}>
        {days.map((d, i) => {
          const h = d.count === 0 ? 0 : Math.max(2, Math.round((d.count / most) * (height - 4)))
          return (
            <a key={d.label} href={searchHref(d.tql)} aria-label={`${d.label}: ${number(d.count)}`}>
              <title>{`${d.label}: ${number(d.count)}`}</title>
              <rect class="bar" x={i * width} y={height - h} width={width - 2} height={h} />
            </a>
          )
        })}
      </svg>
      <p>
        From {days[0]?.label} to {days[days.length - 1]?.label}; busiest day{' '}
        {number(most === 1 && total === 0 ? 0 : most)}.
      </p>
    </>
  )
}

function IndicatorRows({ rows, caption }: { rows: DashboardIndicator[]; caption: string }) {
  if (rows.length === 0) return <p>None.</p>
  return (
    <table>
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Indicator</th>
          <th scope="col">Type</th>
          <th scope="col">Rating</th>
          <th scope="col">Owner</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>
              <a href={`#/details/indicators/${r.id}/overview`}>{r.summary}</a>
            </td>
            <td>{r.type}</td>
            <td>{r.rating ?? '—'}</td>
            <td>{r.ownerName}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function PinnedCount({ card, bound }: { card: PinnedCard; bound: number }) {
  if (card.count === undefined) return <p role="note">{card.error ?? 'Not counted'}</p>
  return (
    <p class="figure">
      {card.more ? `${number(bound)}+` : number(card.count)}
      <span class="visually-hidden"> {card.kind === 'groups' ? 'Groups' : 'Indicators'}</span>
    </p>
  )
}

export function Dashboard() {
  const [data, setData] = useState<DashboardData>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    api<{ data: DashboardData }>('/api/v3/dashboard').then(
      (r) => setData(r.data),
      (e: Error) => setError(e.message),
    )
  }, [])
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    )
  if (!data) return <p>Loading the dashboard…</p>
  const topRating = data.highestRatedIndicators[0]?.rating
  return (
    <>
      <h1>Dashboard</h1>
      <p>
        <a href={searchHref('')}>{number(data.total)} Indicators</a> in the owners you read.
      </p>
      {data.pinned.length > 0 && (
        <div class="cards pinned" role="list" aria-label="Pinned saved searches">
          {data.pinned.map((card) => (
            <section class="card" role="listitem" key={card.id} aria-labelledby={`pinned-${card.id}`}>
              <h2 id={`pinned-${card.id}`}>
                {card.kind === 'indicators' ? <a href={searchHref(card.tql)}>{card.name}</a> : card.name}
              </h2>
              <PinnedCount card={card} bound={data.countBound} />
              <p>
                <code>{card.tql || '(every one)'}</code>
                {card.kind === 'groups' ? ' — a search of Groups' : ''}
              </p>
            </section>
          ))}
        </div>
      )}
      <div class="cards">
        <Card id="card-owner" title="Indicators by owner">
          <Bars buckets={data.byOwner} label={(b) => b.label} />
        </Card>
        <Card id="card-type" title="Indicators by type">
          <Bars buckets={data.byType} label={(b) => b.label} />
        </Card>
        <Card id="card-rating" title="Indicators by rating">
          <Bars buckets={data.byRating} label={(b) => (b.label === 'unrated' ? 'Unrated' : `Rating ${b.label}`)} />
        </Card>
        <Card id="card-active" title="Active and inactive">
          <Bars buckets={data.byActive} label={(b) => (b.label === 'active' ? 'Active' : 'Inactive')} />
        </Card>
        <Card id="card-days" title="Indicators added per day">
          <PerDay days={data.addedPerDay} />
        </Card>
        <Card id="card-newest" title="Newest Indicators">
          <IndicatorRows rows={data.newestIndicators} caption="Newest Indicators" />
          <p>
            <a href={searchHref('')}>All, newest first</a>
          </p>
        </Card>
        <Card id="card-rated" title="Highest-rated Indicators">
          {data.highestRatedSkipped.map((s) => (
            <p key={s.rating} role="note">
              Not listed: {number(s.count)} rated {s.rating} were not found in time.{' '}
              <a href={searchHref(s.tql, 'rating desc')}>Search them</a>
            </p>
          ))}
          <IndicatorRows rows={data.highestRatedIndicators} caption="Highest-rated Indicators" />
          {topRating !== undefined && (
            <p>
              <a href={searchHref(`rating >= ${Math.floor(topRating)}`, 'rating desc')}>
                All rated {Math.floor(topRating)} or more
              </a>
            </p>
          )}
        </Card>
        <Card id="card-groups" title="Newest Groups">
          {data.newestGroups.length === 0 ? (
            <p>None.</p>
          ) : (
            <ul>
              {data.newestGroups.map((g) => (
                <li key={g.id}>
                  <a href={`#/details/groups/${g.id}/overview`}>{g.name}</a> ({g.type}, {g.ownerName})
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </>
  )
}
