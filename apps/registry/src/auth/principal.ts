type Role = 'admin' | 'publisher' | 'agent' | 'anonymous';

/** Who is calling: the identity a token acts as, and for a publisher the skill names it may publish. */
export interface Principal {
  identity: string;
  role: Role;
  /** A publisher's name scopes: `acme_*` (a prefix), an exact name, or `*` (every name). */
  scopes?: readonly string[];
}

export const ANONYMOUS: Principal = { identity: 'anonymous', role: 'anonymous' };

/** Whether `principal` may publish and deprecate the skill `name`: admins always, publishers within their scopes. */
export function mayPublish(principal: Principal, name: string): boolean {
  if (principal.role === 'admin') return true;
  if (principal.role !== 'publisher') return false;
  return (principal.scopes ?? []).some((scope) => (scope.endsWith('*') ? name.startsWith(scope.slice(0, -1)) : name === scope));
}
