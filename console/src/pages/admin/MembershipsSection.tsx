/**
 * Memberships: every account's role in each owner, a form that gives an account a role in an owner (adds the
 * membership or changes it; the role list follows the owner's type) and removing one from a Community or Source.
 */
import { useState } from 'preact/hooks'
import { api } from '../../api.js'
import { COMMUNITY_ROLES, ORGANIZATION_ROLES } from '../../../../src/model/roles.js'
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

const membershipPath = (userName: string, owner: string) =>
  `${ADMIN_API}/memberships/${segment(userName)}/${segment(owner)}`

export function MembershipsSection() {
  const memberships = useAdminList<AdminMembership>('/memberships')
  const accounts = useAdminList<AdminAccount>('/accounts')
  const owners = useAdminList<AdminOwner>('/owners')
  const [shownFor, setShownFor] = useState('')
  const [outcome, run] = useChange(memberships.reload)
  const shown = memberships.items?.filter((m) => !shownFor || m.userName === shownFor)

  return (
    <>
      {accounts.items && owners.items && (
        <SetMembership accounts={accounts.items} owners={owners.items} after={memberships.reload} />
      )}
      <section aria-labelledby="memberships-list">
        <h2 id="memberships-list">Memberships shown{shown ? ` (${shown.length})` : ''}</h2>
        <OutcomeLine outcome={outcome} />
        <form class="inline" onSubmit={(e) => e.preventDefault()}>
          <Choice
            id="memberships-of"
            label="Show the memberships of"
            value={shownFor}
            options={(accounts.items ?? []).map((a) => a.userName)}
            empty="Every account"
            onChange={setShownFor}
          />
        </form>
        {!shown ? (
          <ListState error={memberships.error} what="the memberships" />
        ) : (
          <table class="results">
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Owner</th>
                <th scope="col">Owner type</th>
                <th scope="col">Role</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((m) => (
                <tr key={`${m.userName}\n${m.owner}`}>
                  <td>{m.userName}</td>
                  <td>{m.owner}</td>
                  <td>{m.ownerType}</td>
                  <td>{m.role}</td>
                  <td>
                    {m.ownerType === 'Organization' ? (
                      <span class="hint">Its home</span>
                    ) : (
                      <button
                        type="button"
                        onClick={() =>
                          void run(
                            () => api(membershipPath(m.userName, m.owner), { method: 'DELETE' }),
                            `Removed ${m.userName} from ${m.owner}`,
                          )
                        }
                      >
                        Remove <span class="visually-hidden">{`${m.userName} from ${m.owner}`}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  )
}

function SetMembership(props: { accounts: AdminAccount[]; owners: AdminOwner[]; after: () => void }) {
  const [outcome, run] = useChange(props.after)
  const [userName, setUserName] = useState(props.accounts[0]?.userName ?? '')
  const [ownerName, setOwnerName] = useState(props.owners[0]?.name ?? '')
  const [role, setRole] = useState('')
  const owner = props.owners.find((o) => o.name === ownerName)
  const roles: readonly string[] = owner?.type === 'Organization' ? ORGANIZATION_ROLES : COMMUNITY_ROLES
  const chosenRole = roles.includes(role) ? role : roles[0]

  return (
    <section aria-labelledby="memberships-set">
      <h2 id="memberships-set">Give a role in an owner</h2>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault()
          void run(
            () => api(membershipPath(userName, ownerName), { method: 'PUT', body: { role: chosenRole } }),
            `${userName} is now ${chosenRole} in ${ownerName}`,
          )
        }}
      >
        <Choice
          id="membership-account"
          label="Account"
          value={userName}
          options={props.accounts.map((a) => a.userName)}
          onChange={setUserName}
        />
        <Choice
          id="membership-owner"
          label="Owner"
          value={ownerName}
          options={props.owners.map((o) => o.name)}
          onChange={setOwnerName}
        />
        <Choice id="membership-role" label="Role" value={chosenRole} options={roles} onChange={setRole} />
        <p class="hint">
          {owner?.type === 'Organization'
            ? 'An Organization role, for the account’s own Organization only.'
            : 'A role for a Community or Source; Banned keeps the account out.'}
        </p>
        <button type="submit">Set role</button>
      </form>
      <OutcomeLine outcome={outcome} />
    </section>
  )
}
