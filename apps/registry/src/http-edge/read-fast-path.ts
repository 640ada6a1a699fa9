import { Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { TokenAuthenticator } from '../auth/token-authenticator.js';
import { sendProblem } from '../problem/problem-details.filter.js';
import type { SearchReads } from '../search/search-reads.js';
import { parseSearchSkillsQuery } from '../search/search.dto.js';
import type { SkillReads } from '../skills/skill-reads.js';
import { parseListSkillsQuery } from '../skills/skills.dto.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import { type JsonRead, sendJsonRead, writeJsonRead } from '../skills/conditional-get.js';
import type { HostGuard } from './host-guard.js';
import { checkParameters } from './http-edge.js';

/** What the fast path answers with: Nest providers, resolved on the first request. */
export interface ReadFastPathTargets {
  skills: SkillReads;
  search: SearchReads;
  authenticator: TokenAuthenticator;
  metrics: Pick<RegistryMetrics, 'observe'>;
}

/** A parsed query and the key the response caches know it by. */
interface ParsedQuery<Q> {
  query: Q;
  key: string;
}

const MAX_REMEMBERED = 1024;

/**
 * The valid queries of one route by their raw query string: the same string always decodes to the
 * same parameters, so it passes the storable-text check and parses the same way every time. A
 * repeated query (agents repeat theirs) skips both; the first sight runs them. Bounded: the least
 * recently used go first. Refused queries are never remembered.
 */
class RememberedQueries<Q> {
  private readonly parsed = new LRUCache<string, ParsedQuery<Q>>({ max: MAX_REMEMBERED });

  constructor(private readonly parse: (query: unknown) => Q) {}

  get(raw: string): ParsedQuery<Q> | undefined {
    return this.parsed.get(raw);
  }

  /** Parses (throwing the parser's RequestInvalid) and remembers. */
  add(raw: string, query: unknown): ParsedQuery<Q> {
    const parsed = this.parse(query);
    const entry = { query: parsed, key: JSON.stringify(parsed) };
    this.parsed.set(raw, entry);
    return entry;
  }
}

interface FastRead {
  /** Set for the routes that parse their query (with the same zod parser as their controller). */
  queries?: RememberedQueries<unknown>;
  read(targets: ReadFastPathTargets, params: Record<string, string>, query: ParsedQuery<unknown> | undefined): JsonRead | Promise<JsonRead>;
}

function withQuery<Q>(parse: (query: unknown) => Q, read: (targets: ReadFastPathTargets, query: ParsedQuery<Q>) => JsonRead): FastRead {
  return {
    queries: new RememberedQueries<unknown>(parse),
    read: (targets, _params, query) => read(targets, query as ParsedQuery<Q>),
  };
}

/**
 * The reads answered here, by the route pattern their Nest controller (SkillsController,
 * SearchController) registers; each makes that controller method's one call.
 */
function fastReads(): Map<string, FastRead> {
  return new Map<string, FastRead>([
    ['/v1/skills', withQuery(parseListSkillsQuery, ({ skills }, { query, key }) => skills.list(query, key))],
    ['/v1/skills/:name', { read: ({ skills }, { name }) => skills.current(name as string) }],
    ['/v1/skills/:name/versions', { read: ({ skills }, { name }) => skills.versions(name as string) }],
    ['/v1/skills/:name/versions/:version', { read: ({ skills }, { name, version }) => skills.version(name as string, version as string) }],
    ['/v1/search', withQuery(parseSearchSkillsQuery, ({ search }, { query, key }) => search.search(query, key))],
  ]);
}

/**
 * A path parameter the front answers for: one Fastify's router passes on unchanged (no percent-encoding
 * to decode) and accepts (its maxParamLength is 100). Any other parameter is left to the router.
 */
const PLAIN_PARAM = /^[A-Za-z0-9._~+-]{1,100}$/;

/** A request path's fast read: its route pattern and parameters (never changed by a read). */
interface RouteMatch {
  pattern: string;
  params: Record<string, string>;
}

/** The fast read a request path names, by its route pattern, with its parameters; null leaves the path to the router. */
function matchRoute(path: string): RouteMatch | null {
  const parts = path.split('/');
  if (parts[0] !== '' || parts[1] !== 'v1') return null;
  if (parts.length === 3) return parts[2] === 'skills' || parts[2] === 'search' ? { pattern: path, params: {} } : null;
  const name = parts[3] as string;
  if (parts[2] !== 'skills' || parts.length > 6 || !PLAIN_PARAM.test(name)) return null;
  if (parts.length === 4) return { pattern: '/v1/skills/:name', params: { name } };
  if (parts[4] !== 'versions') return null;
  if (parts.length === 5) return { pattern: '/v1/skills/:name/versions', params: { name } };
  const version = parts[5] as string;
  return PLAIN_PARAM.test(version) ? { pattern: '/v1/skills/:name/versions/:version', params: { name, version } } : null;
}

/** Where the fast path answers; see installReadFastPath. */
export interface ReadFastPath {
  /**
   * Call once the application is built: `ahead` when nothing between the framework's own hooks and
   * the routes observes each request (request logging and request tracing both off). Ahead, the
   * reads it has answered before are also answered before Fastify, before Fastify (see answerBeforeFastify()).
   */
  placeOnceBuilt(placement: { ahead: boolean }): void;
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
 * and routes are registered), then call `placeOnceBuilt` once the application's own hooks are known.
 */
export function installReadFastPath(
  fastify: FastifyInstance,
  options: {
    hostGuard: HostGuard;
    targets: () => ReadFastPathTargets;
    /** True once the application has begun to shut down (its adapter then decides how requests are answered). */
    shuttingDown?: () => boolean;
    /**
     * Whether some proxies' X-Forwarded-Host is believed (TRUST_PROXY): such a request is left to Fastify, whose
     * `request.host` alone says which host it was sent to (the host the Host check must hold).
     */
    forwardedHosts?: boolean;
  },
): ReadFastPath {
  const logger = new Logger('ProblemDetails');
  const reads = fastReads();
  /** The paths the front matched before (a path always matches the same way), so a repeated one is not parsed again. */
  const matchedPaths = new LRUCache<string, RouteMatch>({ max: MAX_REMEMBERED });
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
      const result = route.read(targets, request.params as Record<string, string>, known ?? route.queries?.add(raw, request.query));
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

  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  /**
   * The front: answers a hot read from the HTTP server's request event, before Fastify's routing,
   * hooks and reply (about half of what a read costs there), when it is a GET of a fast read with
   * plain parameters (and for the routes with a query, a query string answered before: see
   * RememberedQueries), the Host rule and the read rule let it through, and the read succeeds. Every
   * other request, and any of these that fails a check, returns false and goes to Fastify, whose
   * pipeline answers it (an error as problem details) as if the front were not there. It writes what
   * sendJsonRead writes (writeJsonRead) and counts the answer in the request metrics, as the onResponse hook does.
   */
  function answerBeforeFastify(request: IncomingMessage, response: ServerResponse, toFastify: () => void): boolean {
    if (request.method !== 'GET' || closing || options.shuttingDown?.()) return false;
    if (options.forwardedHosts && request.headers['x-forwarded-host'] !== undefined) return false;
    const url = request.url ?? '';
    const at = url.indexOf('?');
    const path = at < 0 ? url : url.slice(0, at);
    const remembered = matchedPaths.get(path);
    const matched = remembered ?? matchRoute(path);
    if (matched === null) return false;
    if (remembered === undefined) matchedPaths.set(path, matched);
    const route = reads.get(matched.pattern) as FastRead;
    let query: ParsedQuery<unknown> | undefined;
    if (route.queries) {
      query = route.queries.get(at < 0 ? '' : url.slice(at + 1));
      if (query === undefined) return false;
    } else if (at >= 0) return false;
    const started = performance.now();
    const current = (targets ??= options.targets());
    try {
      options.hostGuard.check({ url, headers: request.headers });
      current.authenticator.authorize(request.headers.authorization, 'read');
      const result = route.read(current, matched.params, query);
      const write = (read: JsonRead) => {
        const status = writeJsonRead(request, response, read);
        current.metrics.observe('rest', matched.pattern, 'GET', status, performance.now() - started);
      };
      // A read that fails later is answered by Fastify from the start, error and all.
      // (Writing cannot fail on what the registry serves; if it ever did, the connection is dropped rather than
      // the rejection left unhandled.)
      if (result instanceof Promise) result.then(write, toFastify).catch(() => response.destroy());
      else write(result);
      return true;
    } catch {
      return false;
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
  let beforeFastifyInstalled = false;
  return {
    placeOnceBuilt(placement) {
      ahead = placement.ahead;
      if (!ahead || beforeFastifyInstalled) return;
      beforeFastifyInstalled = true;
      // Fastify's own handler stays the server's only other listener; the front decides first.
      const server = fastify.server;
      const fastifyHandlers = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
      server.removeAllListeners('request');
      server.on('request', (request: IncomingMessage, response: ServerResponse) => {
        const toFastify = () => {
          for (const handler of fastifyHandlers) handler.call(server, request, response);
        };
        if (!answerBeforeFastify(request, response, toFastify)) toFastify();
      });
    },
  };
}
