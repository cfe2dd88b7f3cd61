/**
 * People and API accounts (human and api kinds), or TAXII accounts: the list with each account's state and, for
 * TAXII accounts, their memberships; creating one (a password optional, but required for TAXII); disabling and
 * enabling; a new password; the lifetime of new API tokens. Passwords go in and never come back.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../../api.js'
import { ORGANIZATION_ROLES, SYSTEM_ROLES } from '../../../../src/model/roles.js'
import { OutcomeLine, useChange } from '../Triage.js'
import {
  ADMIN_API,
  type AdminAccount,
  type AdminMembership,
  type AdminOwner,
  Choice,
  ListState,
  segment,
  useAdminList,
} from './account-admin.js'

type Kind = AdminAccount['kind']

const fullName = (a: AdminAccount) => [a.firstName, a.lastName].filter(Boolean).join(' ')

export function AccountsSection({ kinds }: { kinds: readonly Kind[] }) {
  const taxii = kinds.length === 1 && kinds[0] === 'taxii'
  const accounts = useAdminList<AdminAccount>(taxii ? '/accounts?kind=taxii' : '/accounts')
  const memberships = useAdminList<AdminMembership>('/memberships')
  const shown = accounts.items?.filter((a) => kinds.includes(a.kind))
  const reload = () => {
    accounts.reload()
    memberships.reload()
  }
  const [outcome, run] = useChange(reload)
  const setDisabled = (userName: string, disabled: boolean) =>
    run(
      () => api(`${ADMIN_API}/accounts/${segment(userName)}`, { method: 'PUT', body: { disabled } }),
      `${disabled ? 'Disabled' : 'Enabled'} ${userName}`,
    )

  return (
    <>
      <NewAccount kinds={kinds} after={reload} />
      <section aria-labelledby="accounts-list">
        <h2 id="accounts-list">
          {taxii ? 'Every TAXII account' : 'Every person and API account'}
          {shown ? ` (${shown.length})` : ''}
        </h2>
        <OutcomeLine outcome={outcome} />
        {!shown ? (
          <ListState error={accounts.error} what="the accounts" />
        ) : (
          <table class="results">
            <thead>
              <tr>
                <th scope="col">User name</th>
                {!taxii && <th scope="col">Kind</th>}
                <th scope="col">Name</th>
                <th scope="col">Organization</th>
                <th scope="col">Role</th>
                <th scope="col">System role</th>
                {taxii ? <th scope="col">Memberships</th> : <th scope="col">Token lifetime</th>}
                <th scope="col">State</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((a) => (
                <tr key={a.id}>
                  <td>{a.userName}</td>
                  {!taxii && <td>{a.kind}</td>}
                  <td>{fullName(a)}</td>
                  <td>{a.organization ?? ''}</td>
                  <td>{a.role ?? ''}</td>
                  <td>{a.systemRole}</td>
                  {taxii ? (
                    <td>
                      {(memberships.items ?? [])
                        .filter((m) => m.userName === a.userName)
                        .map((m) => (
                          <span class="tag" key={m.owner}>
                            {m.owner}: {m.role}
                          </span>
                        ))}
                    </td>
                  ) : (
                    <td>{a.tokenLifetimeDays === null ? 'No expiry' : `${a.tokenLifetimeDays} days`}</td>
                  )}
                  <td>{a.disabled ? 'Disabled' : 'Active'}</td>
                  <td>
                    <button type="button" onClick={() => void setDisabled(a.userName, !a.disabled)}>
                      {a.disabled ? 'Enable' : 'Disable'} <span class="visually-hidden">{a.userName}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {shown && shown.length > 0 && <ChangeAccount accounts={shown} tokens={!taxii} after={reload} />}
      {taxii && (
        <p class="hint">
          A TAXII account reads the owners it is a member of: give it memberships under{' '}
          <a href="#/admin/memberships">Memberships</a>.
        </p>
      )}
    </>
  )
}

/** Each form says what became of its own request, beside it. */
function NewAccount({ kinds, after }: { kinds: readonly Kind[]; after: () => void }) {
  const [outcome, run] = useChange(after)
  const taxii = kinds.length === 1 && kinds[0] === 'taxii'
  const organizations = useAdminList<AdminOwner>('/owners').items?.filter((o) => o.type === 'Organization')
  const [kind, setKind] = useState<Kind>(kinds[0])
  const [fields, setFields] = useState({
    userName: '',
    organization: '',
    role: 'Standard User',
    systemRole: '',
    firstName: '',
    lastName: '',
    email: '',
    password: '',
    tokenLifetimeDays: '',
  })
  useEffect(() => {
    if (organizations?.length && !fields.organization) setFields({ ...fields, organization: organizations[0].name })
  }, [organizations?.length])
  const field = (name: keyof typeof fields, label: string) => (
    <>
      <label for={`account-${name}`}>{label}</label>
      <input
        id={`account-${name}`}
        value={fields[name]}
        onInput={(e) => setFields({ ...fields, [name]: e.currentTarget.value })}
        autocomplete="off"
      />
    </>
  )

  const create = async () => {
    const body: Record<string, unknown> = { kind }
    for (const [name, value] of Object.entries(fields)) if (value.trim()) body[name] = value
    if (body.tokenLifetimeDays !== undefined) body.tokenLifetimeDays = Number(body.tokenLifetimeDays)
    if (taxii) delete body.role
    await api(`${ADMIN_API}/accounts`, { method: 'POST', body })
    setFields({ ...fields, userName: '', firstName: '', lastName: '', email: '', password: '', tokenLifetimeDays: '' })
  }

  return (
    <section aria-labelledby="accounts-new">
      <h2 id="accounts-new">{taxii ? 'New TAXII account' : 'New person or API account'}</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault()
          void run(create, `Created ${fields.userName.trim()}`)
        }}
      >
        {field('userName', 'User name')}
        {!taxii && (
          <>
            <label for="account-kind">Kind</label>
            <select id="account-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
              <option value="human">Person (signs in to the console with a password)</option>
              <option value="api">API account (tokens and access keys)</option>
            </select>
          </>
        )}
        <Choice
          id="account-organization"
          label="Organization"
          value={fields.organization}
          options={(organizations ?? []).map((o) => o.name)}
          onChange={(organization) => setFields({ ...fields, organization })}
        />
        {!taxii && (
          <>
            <Choice
              id="account-role"
              label="Organization role"
              value={fields.role}
              options={ORGANIZATION_ROLES}
              onChange={(role) => setFields({ ...fields, role })}
            />
            <Choice
              id="account-system-role"
              label="System role"
              value={fields.systemRole}
              options={SYSTEM_ROLES}
              empty="The default of its kind"
              onChange={(systemRole) => setFields({ ...fields, systemRole })}
            />
            {field('firstName', 'First name (optional)')}
            {field('lastName', 'Last name (optional)')}
            {field('email', 'Email (optional)')}
          </>
        )}
        <label for="account-password">
          {taxii ? 'Password (at least 8 characters)' : 'Password (optional, at least 8 characters)'}
        </label>
        <input
          id="account-password"
          type="password"
          value={fields.password}
          onInput={(e) => setFields({ ...fields, password: e.currentTarget.value })}
          autocomplete="new-password"
        />
        {!taxii && (
          <>
            <label for="account-lifetime">Token lifetime in days (optional)</label>
            <input
              id="account-lifetime"
              type="number"
              min={1}
              value={fields.tokenLifetimeDays}
              onInput={(e) => setFields({ ...fields, tokenLifetimeDays: e.currentTarget.value })}
            />
          </>
        )}
        <button type="submit">{taxii ? 'Create TAXII account' : 'Create account'}</button>
      </form>
      <OutcomeLine outcome={outcome} />
    </section>
  )
}

function ChangeAccount({ accounts, tokens, after }: { accounts: AdminAccount[]; tokens: boolean; after: () => void }) {
  const [outcome, run] = useChange(after)
  const [userName, setUserName] = useState('')
  const [password, setPassword] = useState('')
  const [lifetime, setLifetime] = useState('')
  const chosen = accounts.some((a) => a.userName === userName) ? userName : accounts[0].userName
  const put = (body: Record<string, unknown>) =>
    api(`${ADMIN_API}/accounts/${segment(chosen)}`, { method: 'PUT', body })

  return (
    <section aria-labelledby="accounts-change">
      <h2 id="accounts-change">Password{tokens ? ' and token lifetime' : ''}</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault()
          void run(async () => {
            await put({ password })
            setPassword('')
          }, `Set the password of ${chosen}`)
        }}
      >
        <Choice
          id="change-account"
          label="Account"
          value={chosen}
          options={accounts.map((a) => a.userName)}
          onChange={setUserName}
        />
        <label for="change-password">New password</label>
        <input
          id="change-password"
          type="password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          autocomplete="new-password"
        />
        <button type="submit">Set password</button>
      </form>
      {tokens && (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault()
            void run(
              () => put({ tokenLifetimeDays: lifetime.trim() ? Number(lifetime) : null }),
              `Set the token lifetime of ${chosen}`,
            )
          }}
        >
          <label for="change-lifetime">Token lifetime in days for {chosen} (empty: no expiry)</label>
          <input
            id="change-lifetime"
            type="number"
            min={1}
            value={lifetime}
            onInput={(e) => setLifetime(e.currentTarget.value)}
          />
          <button type="submit">Set token lifetime</button>
        </form>
      )}
      <OutcomeLine outcome={outcome} />
    </section>
  )
}
