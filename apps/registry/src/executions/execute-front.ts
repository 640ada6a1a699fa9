import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { AccessLevel, TokenAuthenticator } from '../auth/token-authenticator.js';
import { sendProblem } from '../problem/problem-details.filter.js';
import type { ExecuteSkill } from './execute-skill.js';
import { executeOverHttp } from './execute-over-http.js';

/** The route the front answers, as ExecutionsController registers it. */
const EXECUTE_ROUTE = '/v1/skills/:name/executions';

/** What the front answers with: Nest providers, resolved on the first request, and the route's access level. */
export interface ExecuteFrontTargets {
  executeSkill: ExecuteSkill;
  authenticator: TokenAuthenticator;
  /** The controller method's level, as AuthGuard reads it (accessLevelOf). */
  accessLevel: AccessLevel;
}

/**
 * `POST /v1/skills/:name/executions` answered at the end of Fastify's pipeline instead of through Nest's: a route-level
 * `preHandler` of that route answers and the Nest handler is never called. Everything before it runs as for any
 * route — the application's hooks (Host and Origin, request logging and tracing), the strict JSON body parser and the
 * parameter checks (http-edge.ts) — and the hook then does what Nest would: the read/write rule of the controller
 * method's access level (TokenAuthenticator, as AuthGuard), the controller's code (executeOverHttp, shared with it) and
 * errors as problem details (sendProblem, as ProblemDetailsFilter). What it skips is Nest's request pipeline (router
 * proxy, execution context, guard and parameter decorators read through reflection, the exception zone, the response
 * controller), which the read front (read-fast-path.ts) showed costs more than a short request's own work; an
 * execution is the registry's hottest write. The Nest route stays: it is the documented API (OpenAPI), and it
 * answers when the front is off.
 *
 * Install on the Fastify instance before the Nest application is created (before its routes are registered).
 */
export function installExecuteFront(fastify: FastifyInstance, options: { targets: () => ExecuteFrontTargets }): void {
  const logger = new Logger('ProblemDetails');
  let targets: ExecuteFrontTargets | null = null;

  function answer(request: FastifyRequest, reply: FastifyReply): void {
    let sent: Promise<unknown>;
    try {
      targets ??= options.targets();
      const principal = targets.authenticator.authorize(request.headers.authorization, targets.accessLevel);
      sent = executeOverHttp(targets.executeSkill, {
        name: (request.params as { name: string }).name,
        rawBody: request.body,
        rawQuery: request.query,
        rawKey: request.headers['idempotency-key'] as string | undefined,
        principal,
        request,
        reply,
      }).then((view) => reply.send(view));
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.catch((error: unknown) => sendProblem(reply, request, error, logger));
  }

  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (route.url !== EXECUTE_ROUTE || (Array.isArray(route.method) ? !route.method.includes('POST') : route.method !== 'POST')) return;
    const existing = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    // Last, after any the route had: the answer ends the request (done is not called, so the Nest handler never runs).
    route.preHandler = [
      ...existing,
      (request: FastifyRequest, reply: FastifyReply, _done: HookHandlerDoneFunction) => answer(request, reply),
    ];
  });
}
