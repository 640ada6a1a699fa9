type Role = 'admin' | 'publisher' | 'agent' | 'anonymous';

/** Who is calling: the identity a token acts as, and for a publisher the skill names it may publish. */
export interface Principal {
  identity: string;
  role: Role;
  /** A publisher's name scopes: `acme_*` (a prefix), an exact name, or `*` (every name). */
  scopes?: readonly string[];
}

export const ANONYMOUS: Principal = { identity: 'anonymous', role: 'anonymous' };

/**
 * Whose share of a bounded resource a call counts against (StreamReaders): a token's identity, or for an anonymous
 * caller its network address (`request.ip` behind no proxy, a gRPC call's peer), so that anonymous clients do not share one.
 */
export function callerKey(principal: Principal, address: string | undefined): string {
  return principal.role === 'anonymous' ? `anonymous@${address ?? 'unknown'}` : principal.identity;
}

/** A gRPC peer (`ipv4:127.0.0.1:53712`, `ipv6:[::1]:53712`) without its port: the address it calls from. */
export function peerAddress(peer: string | undefined): string | undefined {
  const match = peer ? /^(?:ipv4:|ipv6:)?\[?(.*?)\]?:\d+$/.exec(peer) : null;
  return match?.[1] ?? peer;
}

/** Whether `principal` may publish and deprecate the skill `name`: admins always, publishers within their scopes. */
export function mayPublish(principal: Principal, name: string): boolean {
  if (principal.role === 'admin') return true;
  if (principal.role !== 'publisher') return false;
  return (principal.scopes ?? []).some((scope) => (scope.endsWith('*') ? name.startsWith(scope.slice(0, -1)) : name === scope));
}
