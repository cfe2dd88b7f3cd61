import { useState } from 'preact/hooks'
import { ApiError, type Session, signIn } from '../api.js'

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [userName, setUserName] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      onSignedIn(await signIn(userName, password))
    } catch (e) {
      setPassword('')
      setError(e instanceof ApiError ? e.message : 'The server could not be reached')
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="narrow">
      <h1>Sign in to Bulwark</h1>
      <form class="sign-in" onSubmit={submit}>
        <label for="user-name">User name</label>
        <input
          id="user-name"
          name="userName"
          autocomplete="username"
          required
          value={userName}
          onInput={(e) => setUserName(e.currentTarget.value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  )
}
