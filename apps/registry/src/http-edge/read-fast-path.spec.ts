import http from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { Unauthenticated, type TokenAuthenticator } from '../auth/token-authenticator.js';
import type { SearchReads } from '../search/search-reads.js';
import type { SkillReads } from '../skills/skill-reads.js';
import { type JsonRead, jsonRead } from '../skills/conditional-get.js';
import { HostGuard } from './host-guard.js';
import { type ReadFastPath, installReadFastPath } from './read-fast-path.js';

/** Where the fast path answers: ahead of the application's hooks, or behind them (request logging or tracing on). */
describe('read fast path placement', () => {
  let fastify: FastifyInstance;
  let fastPath: ReadFastPath;
  let seenByLaterHook: string[];
  let observed: unknown[][];
  let seenByFastify: string[];
  let shuttingDown: boolean;
  /** What the stub read answers for a skill name now (default: its name in a list). */
  let currentReads: Map<string, JsonRead>;

  beforeEach(async () => {
    seenByLaterHook = [];
    observed = [];
    seenByFastify = [];
    shuttingDown = false;
    currentReads = new Map();
    fastify = Fastify();
    const skills = {
      versions: (name: string) => currentReads.get(name) ?? jsonRead(JSON.stringify({ items: [{ name }] })),
    } as unknown as SkillReads;
    const authenticator = {
      authorize: (authorization: string | undefined) => {
        if (authorization !== undefined) throw new Unauthenticated('Unknown bearer token');
      },
    } as unknown as TokenAuthenticator;
    fastPath = installReadFastPath(fastify, {
      hostGuard: new HostGuard(undefined, '127.0.0.1'),
      shuttingDown: () => shuttingDown,
      targets: () => ({ skills, search: {} as SearchReads, authenticator, metrics: { observe: (...args) => void observed.push(args) } }),
    });
    // Stands for what the application adds later (nestjs-pino's middleware, request tracing).
    fastify.addHook('onRequest', (request, _reply, done) => {
      seenByLaterHook.push(request.url);
      done();
    });
    // Every answer Fastify gives (the front's are not among them).
    fastify.addHook('onResponse', (request, _reply, done) => {
      seenByFastify.push(request.url);
      done();
    });
    fastify.get('/v1/skills/:name/versions', async () => ({ answeredBy: 'nest' }));
    await fastify.listen({ host: '127.0.0.1', port: 0 });
  });

  afterEach(() => fastify.close());

  /** A request with any Host (which fetch cannot send); `json()` parses the body. */
  const get = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET', path = '/v1/skills/echo/versions') =>
    new Promise<{ statusCode: number; headers: http.IncomingHttpHeaders; json(): unknown }>((resolve, reject) => {
      const { port } = fastify.server.address() as { port: number };
      const request = http.request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ statusCode: response.statusCode as number, headers: response.headers, json: () => JSON.parse(body) }),
        );
      });
      request.on('error', reject);
      request.end();
    });

  it('leaves every request to the routes until it is settled', async () => {
    expect((await get()).json()).toEqual({ answeredBy: 'nest' });
  });

  it('ahead: answers before the later application hooks, after checking the Host itself', async () => {
    fastPath.placeOnceBuilt({ ahead: true });
    const response = await get();
    expect(response.json()).toEqual({ items: [{ name: 'echo' }] });
    expect(response.headers.etag).toMatch(/^"/);
    expect(seenByLaterHook).toEqual([]);
    const foreign = await get({ host: 'evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    const refused = await get({ authorization: 'Bearer nope' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('ahead: answers plain GETs at the front, before Fastify, and counts them in the metrics', async () => {
    fastPath.placeOnceBuilt({ ahead: true });
    const first = await get();
    expect(first.json()).toEqual({ items: [{ name: 'echo' }] });
    expect(seenByFastify).toEqual([]);
    expect(observed).toEqual([['rest', '/v1/skills/:name/versions', 'GET', 200, expect.any(Number)]]);
    // Conditional GET at the front too.
    const fresh = await get({ 'if-none-match': first.headers.etag as string });
    expect(fresh.statusCode).toBe(304);
    expect(fresh.headers.etag).toBe(first.headers.etag);
    expect(observed[1]).toEqual(['rest', '/v1/skills/:name/versions', 'GET', 304, expect.any(Number)]);
    expect(seenByFastify).toEqual([]);
  });

  it("ahead: answers a path it has seen from the read it gets now, with that read's own headers", async () => {
    fastPath.placeOnceBuilt({ ahead: true });
    const first = await get();
    expect(first.json()).toEqual({ items: [{ name: 'echo' }] });
    expect(first.headers.deprecation).toBeUndefined();
    // The skill changes (here: deprecated with a successor): the same path now reads differently.
    currentReads.set(
      'echo',
      jsonRead(JSON.stringify({ items: [{ name: 'echo', status: 'DEPRECATED' }] }), {
        deprecation: '@1700000000',
        link: '</v1/skills/echo2>; rel="successor-version"',
      }),
    );
    const changed = await get();
    expect(changed.json()).toEqual({ items: [{ name: 'echo', status: 'DEPRECATED' }] });
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    expect(changed.headers.deprecation).toBe('@1700000000');
    expect(changed.headers.link).toBe('</v1/skills/echo2>; rel="successor-version"');
    expect(Number(changed.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(changed.json())));
    // The old copy is no longer current; the new one is, and its 304 carries its deprecation signals.
    expect((await get({ 'if-none-match': first.headers.etag as string })).statusCode).toBe(200);
    const fresh = await get({ 'if-none-match': changed.headers.etag as string });
    expect(fresh.statusCode).toBe(304);
    expect(fresh.headers.deprecation).toBe('@1700000000');
    // Another path gets its own parameters.
    expect((await get({}, 'GET', '/v1/skills/other/versions')).json()).toEqual({ items: [{ name: 'other' }] });
    expect((await get()).json()).toEqual({ items: [{ name: 'echo', status: 'DEPRECATED' }] });
    expect(seenByFastify).toEqual([]);
  });

  it('leaves to Fastify what the front does not answer: encoded parameters, refused requests, a shutdown', async () => {
    fastPath.placeOnceBuilt({ ahead: true });
    // Fastify decodes the parameter; its hook answers with the same read.
    const encoded = await get({}, 'GET', '/v1/skills/ech%6F/versions');
    expect(encoded.json()).toEqual({ items: [{ name: 'echo' }] });
    expect(seenByFastify).toEqual(['/v1/skills/ech%6F/versions']);
    expect((await get({ authorization: 'Bearer nope' })).statusCode).toBe(401);
    expect((await get({ host: 'evil.example' })).statusCode).toBe(403);
    expect(seenByFastify).toHaveLength(3);
    shuttingDown = true;
    expect((await get()).json()).toEqual({ items: [{ name: 'echo' }] });
    expect(seenByFastify).toHaveLength(4);
  });

  it('behind: answers after every application hook, so they see each request', async () => {
    fastPath.placeOnceBuilt({ ahead: false });
    expect((await get()).json()).toEqual({ items: [{ name: 'echo' }] });
    expect(seenByLaterHook).toEqual(['/v1/skills/echo/versions']);
  });

  it('leaves HEAD to the route in either place', async () => {
    for (const ahead of [true, false]) {
      fastPath.placeOnceBuilt({ ahead });
      const head = await get({}, 'HEAD');
      expect(head.statusCode).toBe(200);
      expect(head.headers.etag).toBeUndefined();
    }
  });
});
