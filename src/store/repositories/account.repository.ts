/**
 * Accounts, memberships and credentials. The lookup every request makes (credential →
 * account with its memberships, one statement) is a prepared statement on the raw
 * drivers: it runs on every call, so it skips query building. Everything else uses Kysely.
 */
import type { Insertable, Kysely, Updateable } from 'kysely'
import type { OwnerType } from '../../model/kinds.js'
import { type Store, readingHandle } from '../connect.js'
import { CredentialCache } from '../engine/credential-cache.js'
import type { Database } from '../database.js'

export interface AccountRow {
  id: number
  user_name: string
  kind: 'human' | 'api' | 'taxii'
  first_name: string | null
  last_name: string | null
  pseudonym: string | null
  system_role: string
  organization_id: number
  disabled: number
  observations_enabled: number
  tql_timeout_ms: number | null
}

export interface MembershipRow {
  owner_id: number
  owner_name: string
  owner_type: OwnerType
  role: string
}

const ACCOUNT_COLUMNS =
  'u.id, u.user_name, u.kind, u.first_name, u.last_name, u.pseudonym, u.system_role, u.organization_id, u.disabled, u.observations_enabled, u.tql_timeout_ms'

/**
 * The account's memberships as one JSON column, so a credential check is one statement
 * (one round trip on PostgreSQL) instead of two. Items: [owner_id, owner_name, owner_type, role].
 */
const MEMBERSHIPS_COLUMN = {
  sqlite: `(SELECT json_group_array(json_array(x.owner_id, x.owner_name, x.owner_type, x.role)) FROM
    (SELECT m.owner_id, o.name AS owner_name, o.type AS owner_type, m.role FROM membership m JOIN owner o ON o.id = m.owner_id
     WHERE m.user_id = u.id ORDER BY o.id) x) AS memberships`,
  postgres: `(SELECT coalesce(json_agg(json_build_array(m.owner_id, o.name, o.type, m.role) ORDER BY o.id), '[]'::json)
    FROM membership m JOIN owner o ON o.id = m.owner_id WHERE m.user_id = u.id) AS memberships`,
} as const

function queriesFor(dialect: Store['dialect']) {
  const account = `${ACCOUNT_COLUMNS}, ${MEMBERSHIPS_COLUMN[dialect]}`
  return {
    byAccessId: `SELECT ${account}, k.secret_ciphertext FROM access_key k JOIN user_account u ON u.id = k.user_id WHERE k.access_id = ?`,
    byTokenHash: `SELECT ${account}, t.expires_at, t.kind AS token_kind FROM api_token t JOIN user_account u ON u.id = t.user_id WHERE t.token_hash = ?`,
    byUserName: `SELECT ${account}, u.password_hash FROM user_account u WHERE u.user_name = ?`,
    bySessionHash: `SELECT ${account}, s.expires_at, s.csrf_token FROM console_session s JOIN user_account u ON u.id = s.user_id WHERE s.token_hash = ?`,
    memberships:
      'SELECT m.owner_id, o.name AS owner_name, o.type AS owner_type, m.role FROM membership m JOIN owner o ON o.id = m.owner_id WHERE m.user_id = ? ORDER BY o.id',
  } as const
}

type QueryName = keyof ReturnType<typeof queriesFor>

/** An account found by a credential, with every membership it has. */
export type AuthRow<Extra> = AccountRow & Extra & { memberships: MembershipRow[] }

export interface AuthRepository {
  findByAccessId(accessId: string): Promise<AuthRow<{ secret_ciphertext: string }> | undefined>
  findByTokenHash(hash: string): Promise<AuthRow<{ expires_at: string | null; token_kind: string }> | undefined>
  findByUserName(userName: string): Promise<AuthRow<{ password_hash: string | null }> | undefined>
  /** A console session by the SHA-256 of its cookie token, with its expiry and CSRF token. */
  findBySessionHash(hash: string): Promise<AuthRow<{ expires_at: string; csrf_token: string }> | undefined>
  listMemberships(userId: number): Promise<MembershipRow[]>
}

type Packed = [number, string, OwnerType, string]

/** SQLite hands the JSON column over as text, pg already parsed; the typed methods say what comes out. */
function unpack(row: { memberships: string | Packed[] } | undefined): any {
  if (!row) return undefined
  const packed = typeof row.memberships === 'string' ? (JSON.parse(row.memberships) as Packed[]) : row.memberships
  return {
    ...row,
    memberships: packed.map(([owner_id, owner_name, owner_type, role]) => ({ owner_id, owner_name, owner_type, role })),
  }
}

/** The credential lookups, behind a cache bounded as credential-cache.ts explains. */
export function createAuthRepository(store: Store): AuthRepository {
  const direct = createDirectAuthRepository(store)
  const cache = new CredentialCache<AuthRow<any>>()
  return {
    findByAccessId: (accessId) => cache.get(`a:${accessId}`, () => direct.findByAccessId(accessId)),
    findByTokenHash: (hash) => cache.get(`t:${hash}`, () => direct.findByTokenHash(hash)),
    findByUserName: (userName) => cache.get(`u:${userName}`, () => direct.findByUserName(userName)),
    findBySessionHash: (hash) => cache.get(`s:${hash}`, () => direct.findBySessionHash(hash)),
    listMemberships: (userId) => direct.listMemberships(userId),
  }
}

function createDirectAuthRepository(store: Store): AuthRepository {
  const queries = queriesFor(store.dialect)
  if (store.sqlite) {
    type Prepared = Record<QueryName, ReturnType<NonNullable<Store['sqlite']>['prepare']>>
    const byHandle = new WeakMap<object, Prepared>()
    // The writer, or beside another caller's open transaction the reader (store/connect.ts, readingHandle): a look-up
    // must not see a credential that transaction has not committed. An in-memory store has only the writer.
    const prepared = (): Prepared => {
      const handle = readingHandle(store) ?? store.sqlite!
      let statements = byHandle.get(handle)
      if (!statements)
        byHandle.set(
          handle,
          (statements = Object.fromEntries(
            Object.entries(queries).map(([name, text]) => [name, handle.prepare(text)]),
          ) as Prepared),
        )
      return statements
    }
    return {
      findByAccessId: async (accessId) => unpack(prepared().byAccessId.get(accessId) as any),
      findByTokenHash: async (hash) => unpack(prepared().byTokenHash.get(hash) as any),
      findByUserName: async (userName) => unpack(prepared().byUserName.get(userName) as any),
      findBySessionHash: async (hash) => unpack(prepared().bySessionHash.get(hash) as any),
      listMemberships: async (userId) => prepared().memberships.all(userId) as MembershipRow[],
    }
  }
  const pool = store.pool!
  const run = async (name: QueryName, value: unknown) => {
    let n = 0
    const text = queries[name].replace(/\?/g, () => `$${++n}`)
    // Unnamed behind a transaction pooler (prepared-read.ts queryNamed says why).
    return (await pool.query({ name: store.transactionPooling ? undefined : `auth_${name}`, text, values: [value] }))
      .rows
  }
  return {
    findByAccessId: async (accessId) => unpack((await run('byAccessId', accessId))[0]),
    findByTokenHash: async (hash) => unpack((await run('byTokenHash', hash))[0]),
    findByUserName: async (userName) => unpack((await run('byUserName', userName))[0]),
    findBySessionHash: async (hash) => unpack((await run('bySessionHash', hash))[0]),
    listMemberships: async (userId) => (await run('memberships', userId)) as MembershipRow[],
  }
}

export function findOwnerByName(db: Kysely<Database>, name: string) {
  return db.selectFrom('owner').selectAll().where('name', '=', name).executeTakeFirst()
}

export function findOwnerById(db: Kysely<Database>, id: number) {
  return db.selectFrom('owner').selectAll().where('id', '=', id).executeTakeFirst()
}

export function listOwners(db: Kysely<Database>) {
  return db.selectFrom('owner').selectAll().orderBy('id').execute()
}

export async function insertOwner(
  db: Kysely<Database>,
  values: { name: string; type: OwnerType; description?: string | null; date_added: string },
) {
  const row = await db
    .insertInto('owner')
    .values({ ...values, description: values.description ?? null })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function insertAccount(
  db: Kysely<Database>,
  values: Insertable<Database['user_account']>,
): Promise<number> {
  return (await db.insertInto('user_account').values(values).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateAccount(db: Kysely<Database>, id: number, changes: Updateable<Database['user_account']>) {
  if (Object.keys(changes).length === 0) return
  await db.updateTable('user_account').set(changes).where('id', '=', id).execute()
}

export async function insertApiToken(db: Kysely<Database>, values: Insertable<Database['api_token']>) {
  await db.insertInto('api_token').values(values).execute()
}

/** Removes every API token of the account; returns how many there were. */
export async function deleteApiTokens(db: Kysely<Database>, userId: number): Promise<number> {
  return Number((await db.deleteFrom('api_token').where('user_id', '=', userId).executeTakeFirst()).numDeletedRows)
}

export async function accessIdExists(db: Kysely<Database>, accessId: string): Promise<boolean> {
  return !!(await db.selectFrom('access_key').select('id').where('access_id', '=', accessId).executeTakeFirst())
}

export async function insertAccessKey(db: Kysely<Database>, values: Insertable<Database['access_key']>) {
  await db.insertInto('access_key').values(values).execute()
}

export function findAccountById(db: Kysely<Database>, id: number) {
  return db.selectFrom('user_account').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findAccountByUserName(db: Kysely<Database>, userName: string) {
  return db.selectFrom('user_account').selectAll().where('user_name', '=', userName).executeTakeFirst()
}

export function listAccounts(db: Kysely<Database>, filter: { organizationId?: number; kind?: string } = {}) {
  let query = db.selectFrom('user_account').selectAll().orderBy('id')
  if (filter.organizationId !== undefined) query = query.where('organization_id', '=', filter.organizationId)
  if (filter.kind) query = query.where('kind', '=', filter.kind as AccountRow['kind'])
  return query.execute()
}

export function listOwnerMembers(db: Kysely<Database>, ownerId: number) {
  return db
    .selectFrom('membership')
    .innerJoin('user_account as u', 'u.id', 'membership.user_id')
    .select([
      'u.id',
      'u.user_name',
      'u.first_name',
      'u.last_name',
      'u.pseudonym',
      'u.kind',
      'u.disabled',
      'membership.role',
    ])
    .where('membership.owner_id', '=', ownerId)
    .orderBy('u.id')
    .execute()
}

export async function upsertMembership(
  db: Kysely<Database>,
  userId: number,
  ownerId: number,
  role: string,
  now: string,
) {
  await db
    .insertInto('membership')
    .values({ user_id: userId, owner_id: ownerId, role, date_added: now })
    .onConflict((oc) => oc.columns(['user_id', 'owner_id']).doUpdateSet({ role }))
    .execute()
}

export async function deleteMembership(db: Kysely<Database>, userId: number, ownerId: number) {
  const result = await db
    .deleteFrom('membership')
    .where('user_id', '=', userId)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export function findSetting(db: Kysely<Database>, name: string) {
  return db.selectFrom('setting').select('value').where('name', '=', name).executeTakeFirst()
}

export function listSettings(db: Kysely<Database>) {
  return db.selectFrom('setting').selectAll().orderBy('name').execute()
}

export async function upsertSetting(db: Kysely<Database>, name: string, value: string) {
  await db
    .insertInto('setting')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
    .execute()
}

/** Rows in one of the tables the admin status reports on. */
export async function countRows(db: Kysely<Database>, table: 'owner' | 'user_account' | 'indicator' | 'intel_group') {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function deleteAccessKeys(db: Kysely<Database>, userId: number, accessId?: string) {
  let query = db.deleteFrom('access_key').where('user_id', '=', userId)
  if (accessId !== undefined) query = query.where('access_id', '=', accessId)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows)
}
