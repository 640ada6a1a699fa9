import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  type Type,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Principal } from './principal.js';
import { type AccessLevel, TokenAuthenticator } from './token-authenticator.js';

/** Metadata key of a route's access level (also read by the OpenAPI document, openapi/registry-document.ts). */
export const ACCESS_LEVEL = 'skill-registry:access-level';

/** Marks a route as open to everyone (liveness, readiness, docs). */
export const Public = () => SetMetadata(ACCESS_LEVEL, 'public' satisfies AccessLevel);
/** Marks a route as needing an admin token. */
export const AdminOnly = () => applyDecorators(SetMetadata(ACCESS_LEVEL, 'admin' satisfies AccessLevel), ApiBearerAuth());

type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

/** Marks a route as needing a publisher or admin token; the use-case checks the publisher's name scopes. */
export const PublisherOrAdmin = () => applyDecorators(SetMetadata(ACCESS_LEVEL, 'publish' satisfies AccessLevel), ApiBearerAuth());

/** Marks a route as a write by any known token (agent, publisher or admin), recorded with its identity. */
export const AnyToken = () => applyDecorators(SetMetadata(ACCESS_LEVEL, 'write' satisfies AccessLevel), ApiBearerAuth());

/** A route's access level: its method's mark, else its class's, else 'read' (what AuthGuard holds every route to). */
export function accessLevelOf(reflector: Reflector, handler: (...args: never[]) => unknown, controller: Type<unknown>): AccessLevel {
  return reflector.getAllAndOverride<AccessLevel | undefined>(ACCESS_LEVEL, [handler, controller]) ?? 'read';
}

/** Global guard: every route is a read unless marked Public, PublisherOrAdmin or AdminOnly (a method's mark wins over its class's). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: TokenAuthenticator,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const level = accessLevelOf(this.reflector, context.getHandler() as (...args: never[]) => unknown, context.getClass());
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    request.principal = this.authenticator.authorize(request.headers.authorization, level);
    return true;
  }
}

/** The caller of the current request. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal =>
    (context.switchToHttp().getRequest<AuthenticatedRequest>().principal ?? { identity: 'anonymous', role: 'anonymous' }) as Principal,
);
