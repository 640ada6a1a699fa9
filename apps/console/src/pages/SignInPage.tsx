import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { useAccess } from '../access/AccessContext';

export function SignInPage() {
  const { signIn } = useAccess();
  const navigate = useNavigate();
  const [token, setToken] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!token.trim()) return;
    signIn(token);
    navigate('/');
  };
  return (
    <section className="narrow">
      <h1>Sign in</h1>
      <p>
        Paste a bearer token of this registry (an admin, publisher or agent token). It is kept in this tab's session storage only and sent
        to this registry alone; closing the tab forgets it.
      </p>
      <form onSubmit={submit} className="stack">
        <label htmlFor="token">Token</label>
        <input id="token" type="password" autoComplete="off" value={token} onChange={(event) => setToken(event.target.value)} required />
        <button type="submit" className="primary">
          Sign in
        </button>
      </form>
    </section>
  );
}
