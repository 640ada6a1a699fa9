import { NavLink, Outlet, useNavigate } from 'react-router';
import { useAccess } from '../access/AccessContext';

const LINKS = [
  { to: '/', label: 'Catalog', end: true },
  { to: '/executions', label: 'Executions' },
  { to: '/twin', label: 'Twin' },
];

export function Layout() {
  const { access, signedIn, signOut, refused } = useAccess();
  const navigate = useNavigate();
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <NavLink to="/" className="brand" end>
          Skill Registry
        </NavLink>
        <nav aria-label="Main">
          <ul>
            {LINKS.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} end={link.end}>
                  {link.label}
                </NavLink>
              </li>
            ))}
            {access?.may.publish && (
              <li>
                <NavLink to="/publish">Publish</NavLink>
              </li>
            )}
          </ul>
        </nav>
        <div className="who">
          {access && (
            <span className="identity" data-testid="identity">
              {access.identity} <span className={`role role-${access.role}`}>{access.role}</span>
            </span>
          )}
          {signedIn ? (
            <button type="button" className="link" onClick={signOut}>
              Sign out
            </button>
          ) : (
            <button type="button" className="link" onClick={() => navigate('/sign-in')}>
              Sign in
            </button>
          )}
        </div>
      </header>
      {refused && (
        <p className="banner" role="alert">
          {refused.status === 401
            ? 'The registry needs a valid token for this: sign in with one.'
            : `The registry refused the token: ${refused.detail ?? 'unknown error'}`}
        </p>
      )}
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
