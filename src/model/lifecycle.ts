/**
 * How long an Indicator stays active without being seen again, by type, where its owner sets
 * nothing else (domain/lifecycle). Infrastructure moves fast and is reassigned to innocent users:
 * an address is a tenant's for weeks, a domain or URL for a campaign; a file's hash names the
 * same bytes forever, so it goes stale only because nobody cares any more. 0 means never.
 */
export const DEFAULT_STALE_DAYS: Readonly<Record<string, number>> = {
  Address: 30,
  CIDR: 60,
  Host: 60,
  URL: 60,
  EmailAddress: 90,
  'User Agent': 180,
  ASN: 365,
  Mutex: 365,
  'Registry Key': 365,
  File: 365,
}

/** The longest a policy may say: ten years. */
export const MAX_STALE_DAYS = 3650
