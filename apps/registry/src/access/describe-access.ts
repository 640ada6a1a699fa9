import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { mayPublish, type Principal } from '../auth/principal.js';
import type { AccessView } from './access.views.js';

/**
 * What a principal may do, from the same rules the guard and the use-cases apply (token-authenticator.ts,
 * principal.ts): a client shows only the actions this allows; every call is still decided by the server.
 */
@Injectable()
export class DescribeAccess {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  run(principal: Principal, skill: string | undefined): AccessView {
    const known = principal.role !== 'anonymous';
    const publishes = principal.role === 'admin' || (principal.role === 'publisher' && (principal.scopes ?? []).length > 0);
    return {
      identity: principal.identity,
      role: principal.role,
      scopes: principal.role === 'publisher' ? [...(principal.scopes ?? [])] : null,
      may: {
        // The guard let this call through, so reads and executions are open to it (AGENT_TOKENS unset, or a known token).
        read: known || this.config.AGENT_TOKENS.length === 0,
        execute: known || this.config.AGENT_TOKENS.length === 0,
        write_twin: known,
        publish: publishes,
        promote: principal.role === 'admin',
      },
      skill:
        skill === undefined
          ? null
          : { name: skill, may_publish: mayPublish(principal, skill), may_deprecate: mayPublish(principal, skill) },
    };
  }
}
