/**
 * What GET /api/v3/dashboard answers, declared once for the server (dashboard.ts) and the console
 * (console/src/pages/Dashboard.tsx). Types only, importing nothing: the console's type check reads this file alone
 * rather than the server behind it, and its build drops the type-only import.
 */

export interface Bucket {
  /** What the bucket is: an owner's or type's name, a rating (`'4'`, or `'unrated'`), `'active'` / `'inactive'`, a day. */
  label: string
  count: number
  /** The TQL of the Indicators it counts. */
  tql: string
}

export interface DashboardIndicator {
  id: number
  type: string
  summary: string
  ownerName: string
  rating?: number
  active: boolean
  dateAdded: string
}

export interface DashboardGroup {
  id: number
  type: string
  name: string
  ownerName: string
  dateAdded: string
}

export interface PinnedCard {
  id: number
  name: string
  tql: string
  kind: 'indicators' | 'groups'
  /** Matches, at most COUNT_BOUND; absent when the count ran out of time. */
  count?: number
  /** More than COUNT_BOUND match. */
  more: boolean
  /** Why there is no count. */
  error?: string
}

export interface Dashboard {
  total: number
  byOwner: Bucket[]
  byType: Bucket[]
  byRating: Bucket[]
  byActive: Bucket[]
  /** The last DAYS UTC days, oldest first, days without additions included. */
  addedPerDay: Bucket[]
  newestIndicators: DashboardIndicator[]
  highestRatedIndicators: DashboardIndicator[]
  /** Ratings whose Indicators were not read in time, highest first: the list above skips them. */
  highestRatedSkipped: { rating: number; count: number; tql: string }[]
  newestGroups: DashboardGroup[]
  pinned: PinnedCard[]
  countBound: number
}
