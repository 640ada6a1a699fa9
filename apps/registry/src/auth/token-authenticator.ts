import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type TokenEntry } from '../config/app-config.js';
import { ANONYMOUS, type Principal } from './principal.js';

export class Unauthenticated extends Error {
  readonly code = 'UNAUTHENTICATED';
}
export class Forbidden extends Error {
  readonly code = 'FORBIDDEN';
}

export type AccessLevel = 'public' | 'read' | 'admin';

/**
 * The one place that decides who a bearer token is and what it may do; REST, gRPC and MCP all ask
 * it. Reads are open unless AGENT_TOKENS is set; admin calls always need an admin token.
 */
@Injectable()
export class TokenAuthenticator {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

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
      if (principal.role !== 'admin') throw new Forbidden(`${principal.identity} is an agent token; this call needs an admin token`);
      return principal;
    }
    if (principal) return principal;
    if (this.config.AGENT_TOKENS.length > 0) throw new Unauthenticated('This call needs a bearer token (AGENT_TOKENS is set)');
    return ANONYMOUS;
  }

  private identify(token: string): Principal | null {
    const hash = createHash('sha256').update(token).digest();
    const admin = findToken(this.config.ADMIN_TOKENS, hash);
    if (admin) return { identity: admin.identity, role: 'admin' };
    const agent = findToken(this.config.AGENT_TOKENS, hash);
    if (agent) return { identity: agent.identity, role: 'agent' };
    return null;
  }
}

function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? (match[1] as string) : null;
}

function findToken(entries: TokenEntry[], hash: Buffer): TokenEntry | undefined {
  return entries.find((entry) => timingSafeEqual(Buffer.from(entry.tokenHash, 'hex'), hash));
}
