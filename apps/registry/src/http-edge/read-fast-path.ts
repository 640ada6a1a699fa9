import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { TokenAuthenticator } from '../auth/token-authenticator.js';
import { sendProblem } from '../problem/problem-details.filter.js';
import type { SearchReads } from '../search/search-reads.js';
import { parseSearchSkillsQuery } from '../search/search.dto.js';
import type { SkillReads } from '../skills/skill-reads.js';
import { parseListSkillsQuery } from '../skills/skills.dto.js';
import { type JsonRead, sendJsonRead } from './conditional-get.js';
import { checkParameters } from './http-edge.js';

/** What the fast path answers with: Nest providers, resolved on the first request. */
export interface ReadFastPathTargets {
  skills: SkillReads;
  search: SearchReads;
  authenticator: TokenAuthenticator;
}

type Read = (targets: ReadFastPathTargets, request: FastifyRequest) => JsonRead | Promise<JsonRead>;

const param = (request: FastifyRequest, name: string) => (request.params as Record<string, string>)[name] as string;

/**
 * The reads answered here, by the route pattern their Nest controller (SkillsController,
 * SearchController) registers; each is that controller method's one call.
 */
const READS = new Map<string, Read>(
  Object.entries({
  '/v1/skills': ({ skills }, request) => skills.list(parseListSkillsQuery(request.query)),
  '/v1/skills/:name': ({ skills }, request) => skills.current(param(request, 'name')),
  '/v1/skills/:name/versions': ({ skills }, request) => skills.versions(param(request, 'name')),
  '/v1/skills/:name/versions/:version': ({ skills }, request) => skills.version(param(request, 'name'), param(request, 'version')),
  '/v1/search': ({ search }, request) => search.search(parseSearchSkillsQuery(request.query)),
  } satisfies Record<string, Read>),
);

/**
 * The hot catalog reads, answered from pre-serialised JSON before Nest's request pipeline (router
 * proxy, guard, interceptors, pipes, exception zone), which costs more than the read itself. The
 * Nest routes stay: they are the documented API and the fallback for everything not handled here
 * (HEAD, every other route).
 *
 * The fast path is a route-level `onRequest` hook of those GET routes. Route hooks run after every
 * application hook, so the request has already been through the same logging (nestjs-pino), Host
 * check (HostGuard) and metrics (onResponse) as any other. The hook then runs what the rest of the
 * pipeline would, in the same order and by calling the same code: storable-text parameters
 * (checkParameters, the preValidation check), the read rule (TokenAuthenticator, as AuthGuard does:
 * these routes carry no access mark, so they are reads), the query's zod parser and the read (as the
 * controller), and errors as problem details (sendProblem, as ProblemDetailsFilter).
 *
 * Install before the Nest routes are registered (before `app.init()`).
 */
export function installReadFastPath(fastify: FastifyInstance, resolveTargets: () => ReadFastPathTargets): void {
  const logger = new Logger('ProblemDetails');
  let targets: ReadFastPathTargets | null = null;

  function answer(read: Read, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (request.method !== 'GET') return done();
    targets ??= resolveTargets();
    try {
      checkParameters(request.query, 'query');
      checkParameters(request.params, 'path');
      targets.authenticator.authorize(request.headers.authorization, 'read');
      const result = read(targets, request);
      if (result instanceof Promise) {
        result.then(
          (value) => sendJsonRead(request, reply, value),
          (error: unknown) => sendProblem(reply, request, error, logger),
        );
      } else sendJsonRead(request, reply, result);
    } catch (error) {
      sendProblem(reply, request, error, logger);
    }
  }

  fastify.addHook('onRoute', (route: RouteOptions) => {
    const read = READS.get(route.url);
    if (route.method !== 'GET' || read === undefined) return;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [
      ...existing,
      (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => answer(read, request, reply, done),
    ];
  });
}
