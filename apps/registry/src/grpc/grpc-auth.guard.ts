import { type TraceContext, extractTraceContext } from '#observability/index.js';
import type { Metadata } from '@grpc/grpc-js';
import { type CanActivate, type ExecutionContext, Injectable, SetMetadata, createParamDecorator } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ANONYMOUS, type Principal } from '../auth/principal.js';
import { type AccessLevel, TokenAuthenticator } from '../auth/token-authenticator.js';

const GRPC_ACCESS = 'skill-registry:grpc-access';

/** Marks an RPC (or a controller's RPCs) as needing an admin token; RPCs are reads otherwise, as on REST. */
export const GrpcAdminOnly = () => SetMetadata(GRPC_ACCESS, 'admin' satisfies AccessLevel);

/** Marks an RPC as needing a publisher or admin token (overrides the controller's GrpcAdminOnly). */
export const GrpcPublisherOrAdmin = () => SetMetadata(GRPC_ACCESS, 'publish' satisfies AccessLevel);

/** Marks an RPC as a write to the twin: any known token, never none (REST's AnyToken), whatever AGENT_TOKENS says. */
export const GrpcAnyToken = () => SetMetadata(GRPC_ACCESS, 'write' satisfies AccessLevel);

/** The principal of each call, by the call's metadata object (which lives as long as the call). */
const principals = new WeakMap<object, Principal>();

/**
 * The gRPC transport's auth step: `authorization: Bearer <token>` metadata goes through the same
 * TokenAuthenticator as the REST header, at the same levels.
 */
@Injectable()
export class GrpcAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: TokenAuthenticator,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'rpc') return true;
    const level =
      this.reflector.getAllAndOverride<AccessLevel | undefined>(GRPC_ACCESS, [context.getHandler(), context.getClass()]) ?? 'read';
    const metadata = context.switchToRpc().getContext<Metadata>();
    const [value] = metadata.get('authorization');
    principals.set(metadata, this.authenticator.authorize(typeof value === 'string' ? value : undefined, level));
    return true;
  }
}

/** The caller of the current RPC, as GrpcAuthGuard identified it. */
export const GrpcCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => principals.get(context.switchToRpc().getContext<object>()) ?? ANONYMOUS,
);

/** The caller's trace context, from the call's `traceparent` metadata (root when none). */
export const GrpcTraceContext = createParamDecorator((_data: unknown, context: ExecutionContext): TraceContext => {
  const metadata = context.switchToRpc().getContext<{ get?: (key: string) => unknown[] }>();
  return extractTraceContext({ traceparent: metadata.get?.('traceparent')?.[0], tracestate: metadata.get?.('tracestate')?.[0] });
});
