/** The pasted bearer token, kept in sessionStorage: it lasts as long as the tab and is never sent to another origin. */
const KEY = 'skill-registry.token';

export function readToken(): string | null {
  return window.sessionStorage.getItem(KEY);
}

export function saveToken(token: string | null): void {
  if (token) window.sessionStorage.setItem(KEY, token);
  else window.sessionStorage.removeItem(KEY);
}
