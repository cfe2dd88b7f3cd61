/**
 * API tokens and access keys of human and API accounts. A new token (or secret key) is in the answer of the call
 * that made it and nowhere else: it is shown here once, read-only with a copy button, and kept only in this page's
 * memory, so a reload no longer shows it. Revoking takes every token of the account, or its access keys.
 */
import { useState } from 'preact/hooks'
import { api } from '../../api.js'
import { OutcomeLine, useChange } from '../Triage.js'
import { ADMIN_API, type AdminAccount, Choice, ListState, segment, useAdminList } from './account-admin.js'

interface Issued {
  userName: string
  token?: string
  expiresAt?: string | null
  accessId?: string
  secretKey?: string
}

export function TokensSection() {
  const accounts = useAdminList<AdminAccount>('/accounts').items?.filter((a) => a.kind !== 'taxii')
  const [userName, setUserName] = useState('')
  const [lifetime, setLifetime] = useState('')
  const [temporary, setTemporary] = useState(false)
  const [issued, setIssued] = useState<Issued>()
  const [outcome, run] = useChange(() => undefined)
  if (!accounts) return <ListState what="the accounts" />
  if (accounts.length === 0) return <p>No human or API account yet.</p>
  const chosen = accounts.find((a) => a.userName === userName) ?? accounts[0]
  const path = `${ADMIN_API}/accounts/${segment(chosen.userName)}`

  const issue = async () => {
    setIssued(undefined)
    const body = { ...(lifetime.trim() ? { lifetimeDays: Number(lifetime) } : {}), ...(temporary ? { temporary } : {}) }
    setIssued((await api<{ data: Issued }>(`${path}/tokens`, { method: 'POST', body })).data)
  }
  const createKey = async () => {
    setIssued(undefined)
    setIssued((await api<{ data: Issued }>(`${path}/keys`, { method: 'POST' })).data)
  }
  const revoke = (what: 'tokens' | 'keys') =>
    run(
      async () => {
        const done = await api<{ data: { revoked: number } }>(`${path}/${what}`, { method: 'DELETE' })
        setIssued(undefined)
        return done
      },
      `Revoked every ${what === 'tokens' ? 'API token' : 'access key'} of ${chosen.userName}`,
    )

  return (
    <>
      <section aria-labelledby="tokens-issue">
        <h2 id="tokens-issue">Issue an API token</h2>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault()
            void run(issue, `Issued a token for ${chosen.userName}`)
          }}
        >
          <Choice
            id="token-account"
            label="Account"
            value={chosen.userName}
            options={accounts.map((a) => a.userName)}
            onChange={setUserName}
          />
          <label for="token-lifetime">Lifetime in days (optional; default: the account’s token lifetime)</label>
          <input
            id="token-lifetime"
            type="number"
            min={1}
            value={lifetime}
            disabled={temporary}
            onInput={(e) => setLifetime(e.currentTarget.value)}
          />
          <label>
            <input type="checkbox" checked={temporary} onChange={(e) => setTemporary(e.currentTarget.checked)} /> A
            temporary token (4 hours)
          </label>
          <button type="submit">Issue token</button>
        </form>
        <p class="inline">
          <button type="button" onClick={() => void revoke('tokens')}>
            Revoke every token of {chosen.userName}
          </button>
          {chosen.kind === 'api' && (
            <>
              <button type="button" onClick={() => void run(createKey, `Created an access key for ${chosen.userName}`)}>
                Create an access key for {chosen.userName}
              </button>
              <button type="button" onClick={() => void revoke('keys')}>
                Revoke every access key of {chosen.userName}
              </button>
            </>
          )}
        </p>
        <OutcomeLine outcome={outcome} />
      </section>
      {issued && <ShownOnce issued={issued} />}
    </>
  )
}

function ShownOnce({ issued }: { issued: Issued }) {
  const secret = issued.token ?? issued.secretKey ?? ''
  const label = issued.token ? 'API token' : 'Secret key'
  const [copied, setCopied] = useState<string>()
  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setCopied('Copied.'),
      () => setCopied('The browser refused to copy: select the text and copy it.'),
    )
  return (
    <section class="bulk" aria-labelledby="shown-once">
      <h2 id="shown-once">
        New {label} for {issued.userName}
      </h2>
      <p>
        <strong>This is the only time it is shown.</strong> Copy it now and keep it safe: it cannot be shown again, only
        revoked and replaced.
      </p>
      {issued.accessId && (
        <>
          <label for="shown-access-id">Access id</label>{' '}
          <input id="shown-access-id" readOnly value={issued.accessId} size={24} />
        </>
      )}
      <p class="inline">
        <label for="shown-secret">{label}</label>
        <input id="shown-secret" readOnly value={secret} size={48} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy the {label}
        </button>
      </p>
      {issued.token && (
        <p class="hint">
          {issued.expiresAt ? `Expires ${issued.expiresAt}.` : 'Does not expire.'} Send it as{' '}
          <code>Authorization: TC-Token &lt;token&gt;</code>.
        </p>
      )}
      <p class="status" role="status">
        {copied ?? ''}
      </p>
    </section>
  )
}
