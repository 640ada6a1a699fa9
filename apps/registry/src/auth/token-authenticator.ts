import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig, type TokenEntry } from '../config/app-config.js';
import { ANONYMOUS, mayPublish, type Principal } from './principal.js';

/** Most recognised tokens remembered (see TokenAuthenticator.recognised); the least recently used go first. */
const MAX_RECOGNISED_TOKENS = 1024;

export class Unauthenticated extends Error {
  readonly code = 'UNAUTHENTICATED';
}
export class Forbidden extends Error {
  readonly code = 'FORBIDDEN';
}

/**
 * What a route needs: `read` any known token (or none while AGENT_TOKENS is unset), `write` any
 * known token (never none: a write is recorded with who made it), `publish` a
 * publisher or admin token (the name scope is checked by the use-case, see assertMayPublish), `admin`
 * an admin token.
 */
export type AccessLevel = 'public' | 'read' | 'write' | 'publish' | 'admin';

/**
 * The one place that decides who a bearer token is and what it may do; REST, gRPC and MCP all ask
 * it. Reads are open unless AGENT_TOKENS is set; publishing needs a publisher or admin token; admin
 * calls always need an admin token.
 */
@Injectable()
export class TokenAuthenticator {
  /** Every configured token's hash decoded once (it was decoded from hex on every request), with its principal. */
  private readonly known: { hash: Buffer; principal: Principal }[];
  /**
   * Tokens already recognised, by their exact text (hashing and comparing cost a few µs per request
   * on the hot reads, most of a read's own cost). Only tokens that matched are kept, so unknown
   * tokens can neither fill it nor be told apart by timing; the configuration, which cannot change
   * while the process runs, holds these same tokens in the environment already.
   */
  private readonly recognised = new LRUCache<string, Principal>({ max: MAX_RECOGNISED_TOKENS });

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const principals: [TokenEntry, Principal][] = [
      ...config.ADMIN_TOKENS.map((entry): [TokenEntry, Principal] => [entry, { identity: entry.identity, role: 'admin' }]),
      ...config.PUBLISHER_TOKENS.map((entry): [TokenEntry, Principal] => [
        entry,
        { identity: entry.identity, role: 'publisher', scopes: entry.scopes ?? [] },
      ]),
      ...config.AGENT_TOKENS.map((entry): [TokenEntry, Principal] => [entry, { identity: entry.identity, role: 'agent' }]),
    ];
    this.known = principals.map(([entry, principal]) => ({ hash: Buffer.from(entry.tokenHash, 'hex'), principal }));
  }

  /** The principal for an `Authorization` header value, or an error saying why access is refused. */
  authorize(authorization: string | undefined, level: AccessLevel): Principal {
    if (level === 'public') return ANONYMOUS;
    const token = parseBearer(authorization);
    const principal = token === null ? null : this.identify(token);
    if (authorization !== undefined && principal === null) {
      throw new Unauthenticated(token === null ? 'Authorization header must be "Bearer <token>"' : 'Unknown bearer token');
    }
    if (level === 'admin') {
      if (!principal) throw new Unauthenticated('This call needs an admin bearer token');
      if (principal.role !== 'admin')
        throw new Forbidden(`${principal.identity} is ${article(principal.role)} token; this call needs an admin token`);
      return principal;
    }
    if (level === 'publish') {
      if (!principal) throw new Unauthenticated('This call needs a publisher or admin bearer token');
      if (principal.role !== 'admin' && principal.role !== 'publisher') {
        throw new Forbidden(`${principal.identity} is an agent token; this call needs a publisher or admin token`);
      }
      return principal;
    }
    if (level === 'write' && !principal)
      throw new Unauthenticated('This call writes to the twin and needs an agent, publisher or admin bearer token');
    if (principal) return principal;
    if (this.config.AGENT_TOKENS.length > 0) throw new Unauthenticated('This call needs a bearer token (AGENT_TOKENS is set)');
    return ANONYMOUS;
  }

  /** The principal of a token; admin tokens first, then publisher, then agent (boot refuses one token in two lists). */
  private identify(token: string): Principal | null {
    const remembered = this.recognised.get(token);
    if (remembered) return remembered;
    const hash = createHash('sha256').update(token).digest();
    const principal = this.known.find((candidate) => timingSafeEqual(candidate.hash, hash))?.principal ?? null;
    if (principal) {
      this.recognised.set(token, principal);
    }
    return principal;
  }
}

/** Refuses a publish or deprecation of `name` by a publisher whose scopes do not cover it (the one place of that rule). */
export function assertMayPublish(principal: Principal, name: string): void {
  if (mayPublish(principal, name)) return;
  if (principal.role === 'publisher') {
    throw new Forbidden(
      `Publisher ${principal.identity} may publish names matching ${(principal.scopes ?? []).join(', ') || '(none)'}; '${name}' is outside them`,
    );
  }
  throw new Forbidden(`${principal.identity} may not publish or deprecate '${name}'; that needs a publisher or admin token`);
}

function article(role: string): string {
  return /^[aeiou]/.test(role) ? `an ${role}` : `a ${role}`;
}

function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? (match[1] as string) : null;
}
