import { networkInterfaces, hostname } from 'node:os';
import type { IncomingHttpHeaders } from 'node:http';
import { HostNotAllowed, OriginNotAllowed } from '../problem/domain-errors.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
/** Probes (load balancers, orchestrators) call these by whatever address they have. */
const UNGUARDED_PATHS = new Set(['/healthz', '/readyz']);
/** Routes a browser page could use through a rebound name: checked for Origin as well. */
const BROWSER_REACHABLE = /^\/(mcp|v1\/executions\/[^/]+\/events)(\?|$)/;

/**
 * DNS-rebinding protection (what the MCP SDKs' `allowedHosts` does, for every route): a request is
 * answered only when its Host names this registry, and a browser request on the MCP or event-stream
 * routes only when its Origin does too. A page that rebinds evil.example to 127.0.0.1 sends
 * `Host: evil.example` and is refused.
 *
 * Names come from ALLOWED_HOSTS; by default the loopback names when bound to loopback, and the
 * machine's own names and addresses when bound to every interface. `*` turns the Host check off
 * (Origin must then equal Host).
 */
export class HostGuard {
  private readonly allowed: Set<string> | null;

  constructor(allowedHosts: string[] | undefined, listenHost: string) {
    if (allowedHosts?.includes('*')) this.allowed = null;
    else this.allowed = new Set((allowedHosts && allowedHosts.length > 0 ? allowedHosts : defaultHosts(listenHost)).map(normalise));
  }

  /** The names accepted, for the start-up log; null when any Host is. */
  get names(): string[] | null {
    return this.allowed ? [...this.allowed] : null;
  }

  /**
   * `host`: the name the request was sent to as the application reads it — Fastify's `request.host`, which is the
   * X-Forwarded-Host of a trusted proxy (TRUST_PROXY) — else the Host header.
   */
  check(request: { url: string; headers: IncomingHttpHeaders; host?: string }): void {
    const path = request.url;
    const query = path.indexOf('?');
    if (UNGUARDED_PATHS.has(query < 0 ? path : path.slice(0, query))) return;
    const host = request.host ?? request.headers.host ?? '';
    if (this.allowed && !this.allowed.has(hostnameOf(host))) throw new HostNotAllowed(host);
    const origin = request.headers.origin;
    if (origin === undefined || !BROWSER_REACHABLE.test(path)) return;
    let originHost: string | null = null;
    try {
      originHost = new URL(origin).host;
    } catch {
      /* not a URL: refused below */
    }
    const accepted = originHost !== null && (this.allowed ? this.allowed.has(hostnameOf(originHost)) : originHost === host);
    if (!accepted) throw new OriginNotAllowed(origin);
  }
}

/** `host[:port]` or `[v6]:port` → the lower-case name without port or brackets. */
function hostnameOf(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') > 0 ? value.indexOf(']') : undefined);
  const colon = value.indexOf(':');
  return colon >= 0 && value.indexOf(':', colon + 1) < 0 ? value.slice(0, colon) : value;
}

function normalise(name: string): string {
  return hostnameOf(name);
}

function defaultHosts(listenHost: string): string[] {
  const host = normalise(listenHost);
  if (LOOPBACK_NAMES.includes(host) || host.startsWith('127.')) return [...LOOPBACK_NAMES, host];
  if (host !== '0.0.0.0' && host !== '::') return [...LOOPBACK_NAMES, host];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .map((entry) => entry?.address)
    .filter((address): address is string => typeof address === 'string');
  return [...LOOPBACK_NAMES, hostname(), ...addresses];
}
