import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { TokenAuthenticator } from '../auth/token-authenticator.js';
import { sendProblem } from '../problem/problem-details.filter.js';
import type { SearchReads } from '../search/search-reads.js';
import { parseSearchSkillsQuery } from '../search/search.dto.js';
import type { SkillReads } from '../skills/skill-reads.js';
import { parseListSkillsQuery } from '../skills/skills.dto.js';
import { type JsonRead, sendJsonRead } from './conditional-get.js';
import type { HostGuard } from './host-guard.js';
import { checkParameters } from './http-edge.js';

/** What the fast path answers with: Nest providers, resolved on the first request. */
export interface ReadFastPathTargets {
  skills: SkillReads;
  search: SearchReads;
  authenticator: TokenAuthenticator;
}

/** A parsed query and the key the response caches know it by. */
interface ParsedQuery<Q> {
  query: Q;
  key: string;
}

const MAX_REMEMBERED_QUERIES = 1024;

/**
 * The valid queries of one route by their raw query string: the same string always decodes to the
 * same parameters, so it passes the storable-text check and parses the same way every time. A
 * repeated query (agents repeat theirs) skips both; the first sight runs them. Bounded: the oldest
 * go first. Refused queries are never remembered.
 */
class RememberedQueries<Q> {
  private readonly parsed = new Map<string, ParsedQuery<Q>>();

  constructor(private readonly parse: (query: unknown) => Q) {}

  get(raw: string): ParsedQuery<Q> | undefined {
    return this.parsed.get(raw);
  }

  /** Parses (throwing the parser's RequestInvalid) and remembers. */
  add(raw: string, query: unknown): ParsedQuery<Q> {
    const parsed = this.parse(query);
    const entry = { query: parsed, key: JSON.stringify(parsed) };
    if (this.parsed.size >= MAX_REMEMBERED_QUERIES) this.parsed.delete(this.parsed.keys().next().value as string);
    this.parsed.set(raw, entry);
    return entry;
  }
}

interface FastRead {
  /** Set for the routes that parse their query (with the same zod parser as their controller). */
  queries?: RememberedQueries<unknown>;
  read(targets: ReadFastPathTargets, request: FastifyRequest, query: ParsedQuery<unknown> | undefined): JsonRead | Promise<JsonRead>;
}

const param = (request: FastifyRequest, name: string) => (request.params as Record<string, string>)[name] as string;

function withQuery<Q>(parse: (query: unknown) => Q, read: (targets: ReadFastPathTargets, query: ParsedQuery<Q>) => JsonRead): FastRead {
  return {
    queries: new RememberedQueries<unknown>(parse),
    read: (targets, _request, query) => read(targets, query as ParsedQuery<Q>),
  };
}

/**
 * The reads answered here, by the route pattern their Nest controller (SkillsController,
 * SearchController) registers; each makes that controller method's one call.
 */
function fastReads(): Map<string, FastRead> {
  return new Map<string, FastRead>([
    ['/v1/skills', withQuery(parseListSkillsQuery, ({ skills }, { query, key }) => skills.list(query, key))],
    ['/v1/skills/:name', { read: ({ skills }, request) => skills.current(param(request, 'name')) }],
    ['/v1/skills/:name/versions', { read: ({ skills }, request) => skills.versions(param(request, 'name')) }],
    [
      '/v1/skills/:name/versions/:version',
      { read: ({ skills }, request) => skills.version(param(request, 'name'), param(request, 'version')) },
    ],
    ['/v1/search', withQuery(parseSearchSkillsQuery, ({ search }, { query, key }) => search.search(query, key))],
  ]);
}

/** Where the fast path answers; see installReadFastPath. */
export interface ReadFastPath {
  /**
   * Call once the application is built: `ahead` when nothing between the framework's own hooks and
   * the routes observes each request (request logging and request tracing both off).
   */
  settle(placement: { ahead: boolean }): void;
}

/**
 * The hot catalog reads, answered from pre-serialised JSON before Nest's request pipeline (router
 * proxy, guard, interceptors, pipes, exception zone), which costs more than the read itself. The
 * Nest routes stay: they are the documented API and the fallback for everything not handled here
 * (HEAD, every other route).
 *
 * It answers from one of two places, after the same checks in the same order, by calling the same
 * code as the pipeline: the Host rule (HostGuard), storable-text parameters (checkParameters, the
 * preValidation check), the read rule (TokenAuthenticator, as AuthGuard does: these routes carry no
 * access mark, so they are reads), the query's zod parser and the read (as the controller), and
 * errors as problem details (sendProblem, as ProblemDetailsFilter).
 * - Ahead: an application `onRequest` hook added before Nest adds its middleware (nestjs-pino) and
 *   the registry its hooks; only the framework's own hooks (503 while closing, CORS, security
 *   headers) run before it. Used while nothing logs or traces each request: pino-http then writes
 *   nothing for a request, and skipping it saves what it costs (a child logger and an async context
 *   per request). An error the fast path logs still names the method and URL.
 * - Behind: a route-level `onRequest` hook of those routes, which runs after every application hook,
 *   so request logging (LOG_LEVEL debug/trace) and tracing (OTEL export on) see fast-path requests
 *   like any other.
 * Metrics count them either way (onResponse hooks run for every answer).
 *
 * Install on the Fastify instance before the Nest application is created (before its middleware
 * and routes are registered), then call `settle` once the application's own hooks are known.
 */
export function installReadFastPath(
  fastify: FastifyInstance,
  options: { hostGuard: HostGuard; targets: () => ReadFastPathTargets },
): ReadFastPath {
  const logger = new Logger('ProblemDetails');
  const reads = fastReads();
  let targets: ReadFastPathTargets | null = null;
  let ahead: boolean | null = null;

  function answer(route: FastRead, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (request.method !== 'GET') return done();
    targets ??= options.targets();
    try {
      if (ahead) options.hostGuard.check(request);
      const at = request.url.indexOf('?');
      const raw = at < 0 ? '' : request.url.slice(at + 1);
      const known = route.queries?.get(raw);
      if (known === undefined) checkParameters(request.query, 'query');
      checkParameters(request.params, 'path');
      targets.authenticator.authorize(request.headers.authorization, 'read');
      const result = route.read(targets, request, known ?? route.queries?.add(raw, request.query));
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

  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const route = ahead ? reads.get(request.routeOptions.url as string) : undefined;
    if (route === undefined) return done();
    answer(route, request, reply, done);
  });
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const read = reads.get(route.url as string);
    if (route.method !== 'GET' || read === undefined) return;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [
      ...existing,
      (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
        if (ahead !== false) return done();
        answer(read, request, reply, done);
      },
    ];
  });
  return {
    settle(placement) {
      ahead = placement.ahead;
    },
  };
}
