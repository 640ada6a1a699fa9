import proxyAddr from '@fastify/proxy-addr';

/**
 * TRUST_PROXY: the peers whose `X-Forwarded-For`, `-Host` and `-Proto` the registry believes — a comma-separated list
 * of addresses, CIDR ranges (`10.0.0.0/8`) and the names `loopback`, `linklocal`, `uniquelocal`; empty (the default):
 * none, every request is taken as coming from its connection's peer. Then `request.ip` (an anonymous caller's share of
 * event streams, see callerKey) is the client's address the nearest untrusted hop gave, and the Host checks and the
 * origin of agent cards use the forwarded host and scheme. A hop count is refused: it trusts whatever a client puts in
 * the header when the client reaches the registry directly (Fastify ignores one for that reason).
 * Returns the entries, checked by the library Fastify reads them with; throws naming the entry at fault.
 */
export function parseTrustedProxies(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (/^\d+$/.test(entry) || entry === 'true' || entry === '*')
      throw new Error(
        `TRUST_PROXY '${entry}': list the proxies' addresses or ranges (e.g. 10.0.0.0/8,loopback); a hop count or 'every peer' would let any client that reaches the registry directly choose its own address`,
      );
    try {
      proxyAddr.compile(entry);
    } catch (error) {
      throw new Error(
        `TRUST_PROXY '${entry}' is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }
  return entries;
}
