import 'reflect-metadata';
import http from 'node:http';
import { rm } from 'node:fs/promises';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '../../apps/registry/src/config/app-config.js';
import { createRegistryApp } from '../../apps/registry/src/create-registry-app.js';
import { SearchController } from '../../apps/registry/src/search/search.controller.js';
import { SkillsController } from '../../apps/registry/src/skills/skills.controller.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ADMIN_TOKEN, AGENT_TOKEN, PUBLISHER_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';
import { obliterateQueue } from '../support/executions.js';
import { recordHandlerCalls } from '../support/handler-calls.js';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET with full control of the headers (fetch cannot send another Host) and the body as the bytes sent. */
function get(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, path, method: 'GET', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode as number, headers: response.headers, body }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** What a client sees of a read, besides the connection's own headers. */
const seen = (response: RawResponse) => ({
  status: response.status,
  body: response.body,
  type: response.headers['content-type'],
  etag: response.headers.etag,
  cacheControl: response.headers['cache-control'],
  deprecation: response.headers.deprecation,
  sunset: response.headers.sunset,
  link: response.headers.link,
  authenticate: response.headers['www-authenticate'],
});

/** The hot reads: the fast path answers them before the Nest pipeline; the Nest controllers stay the fallback. */
describe('the read path: fast path, ETag and Cache-Control', () => {
  const queuePrefix = `test-read-path-${process.pid}-${Date.now()}`;
  let db: TestDatabase;
  let root: string;
  let fast: RunningRegistry;
  let nest: NestFastifyApplication;
  let nestUrl: string;
  let guarded: RunningRegistry;
  let handlers: ReturnType<typeof recordHandlerCalls>;
  const sunset = new Date(Date.now() + 30 * 86_400_000);

  beforeAll(async () => {
    handlers = recordHandlerCalls([
      [SkillsController, ['list', 'get', 'versions', 'version']],
      [SearchController, ['search']],
    ]);
    db = await createTestDatabase('read_path');
    root = await tempRoot();
    await writeEchoSkill(root);
    await writeEchoSkill(root, { name: 'echo_old', definition: { tags: ['test', 'old'] } });
    await writeEchoSkill(root, { name: 'echo_change' });
    await writeEchoSkill(root, {
      name: 'echo_tooled',
      domain: 'mechanical',
      definition: { tools_required: [{ tool_id: 'calculix.run_fea', capability: 'stress_analysis', required: true }] },
    });
    fast = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
    const admin = { token: ADMIN_TOKEN, body: { force: true, reason: 'read path e2e' } };
    expect((await call(fast.baseUrl, 'POST', '/v1/admin/skills/echo_old/versions/1.0.0/promote', admin)).status).toBe(200);
    const deprecation = { reason: 'replaced', successor: 'echo_text@1.0.0', sunset: sunset.toISOString() };
    const deprecated = await call(fast.baseUrl, 'POST', '/v1/admin/skills/echo_old/deprecate', { token: ADMIN_TOKEN, body: deprecation });
    expect(deprecated.status).toBe(200);

    // The same registry without the fast path: every read through the Nest pipeline, for comparison.
    nest = await createRegistryApp(
      loadConfig({
        DATABASE_URL: db.url,
        SKILL_PATHS: root,
        ADMIN_TOKENS: `root=${ADMIN_TOKEN}`,
        AGENT_TOKENS: '',
        PUBLISHER_TOKENS: `acme=${PUBLISHER_TOKEN}:acme_*`,
        LOG_LEVEL: 'error',
        HOST: '127.0.0.1',
        PORT: '0',
        QUEUE_PREFIX: queuePrefix,
      }),
      { readFastPath: false },
    );
    await nest.listen(0, '127.0.0.1');
    nestUrl = `http://127.0.0.1:${(nest.getHttpServer().address() as { port: number }).port}`;
    guarded = await startRegistry({ databaseUrl: db.url, skillPaths: [root], agentTokens: true, queuePrefix });
  });

  afterAll(async () => {
    handlers?.restore();
    await guarded?.stop();
    await nest?.close();
    await fast?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const reads = [
    '/v1/skills',
    '/v1/skills?domain=demo&tag=test&limit=1',
    '/v1/skills?status=DEPRECATED',
    '/v1/skills/echo_text',
    '/v1/skills/echo_old',
    '/v1/skills/echo_tooled',
    '/v1/skills/echo_old/versions',
    '/v1/skills/echo_old/versions/1.0.0',
    '/v1/search?q=echo',
    '/v1/search?q=echo&status=DEPRECATED&limit=1',
  ];
  const refusals = [
    '/v1/skills/missing_skill',
    '/v1/skills/echo_text/versions/9.9.9',
    '/v1/skills?limit=0',
    '/v1/skills?bogus=1',
    '/v1/skills?cursor=not%20a%20cursor',
    '/v1/search',
    '/v1/search?q=%20',
    '/v1/skills?q=%00',
    '/v1/skills?tag=a&tag=b%00',
    '/v1/search?q=a%00b',
    '/v1/skills/a%00b',
    '/v1/skills/echo_text/versions/1.0.0%00',
    '/v1/skills/%ED%A0%80',
  ];

  it.each([...reads, ...refusals])('GET %s: the fast path answers what the Nest path answers, byte for byte', async (path) => {
    const before = handlers.callsOn(nest.get(SkillsController)) + handlers.callsOn(nest.get(SearchController));
    const [viaFast, viaNest] = await Promise.all([get(fast.baseUrl, path), get(nestUrl, path)]);
    expect(seen(viaFast)).toEqual(seen(viaNest));
    expect(viaFast.status).toBe(reads.includes(path) ? 200 : viaFast.status);
    // The Nest handlers ran for the Nest registry only (a refusal before the handler runs neither).
    expect(handlers.callsOn(fast.app.get(SkillsController)) + handlers.callsOn(fast.app.get(SearchController))).toBe(0);
    if (reads.includes(path)) {
      expect(handlers.callsOn(nest.get(SkillsController)) + handlers.callsOn(nest.get(SearchController))).toBe(before + 1);
    }
  });

  it('answers refusals as the same problem details as before: 404, 400 naming the field, NUL and lone surrogates refused', async () => {
    const missing = await get(fast.baseUrl, '/v1/skills/missing_skill');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'SKILL_NOT_FOUND', instance: '/v1/skills/missing_skill' });
    const nul = await get(fast.baseUrl, '/v1/skills?q=%00');
    expect(nul.status).toBe(400);
    expect(JSON.parse(nul.body)).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'q' }] });
    const nulPath = await get(fast.baseUrl, '/v1/skills/a%00b');
    expect(JSON.parse(nulPath.body)).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', errors: [{ field: 'name' }] });
    const unknown = await get(fast.baseUrl, '/v1/search?q=x&bogus=1');
    expect(JSON.parse(unknown.body)).toMatchObject({
      status: 400,
      errors: [{ field: 'bogus', message: "unknown query parameter 'bogus'" }],
    });
    for (const response of [missing, nul, nulPath, unknown]) expect(response.headers.etag).toBeUndefined();
  });

  it('refuses a repeated refused query every time, and answers a repeated valid one the same each time', async () => {
    for (let round = 0; round < 3; round++) {
      expect((await get(fast.baseUrl, '/v1/skills?limit=0')).status).toBe(400);
      expect((await get(fast.baseUrl, '/v1/search?q=a%00b')).status).toBe(400);
      const listed = await get(fast.baseUrl, '/v1/skills?domain=demo&limit=2');
      expect(listed.status).toBe(200);
      expect(JSON.parse(listed.body).items).toHaveLength(2);
    }
  });

  it('refuses a foreign Host on the fast path as everywhere (403 HOST_NOT_ALLOWED)', async () => {
    for (const path of ['/v1/skills/echo_text', '/v1/skills', '/v1/search?q=echo']) {
      const [viaFast, viaNest] = await Promise.all([
        get(fast.baseUrl, path, { host: 'evil.example' }),
        get(nestUrl, path, { host: 'evil.example' }),
      ]);
      expect(viaFast.status).toBe(403);
      expect(JSON.parse(viaFast.body)).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
      expect(seen(viaFast)).toEqual(seen(viaNest));
    }
  });

  it.each(reads)('GET %s: a strong ETag, Cache-Control no-cache, and 304 without a body on If-None-Match', async (path) => {
    for (const baseUrl of [fast.baseUrl, nestUrl]) {
      const first = await get(baseUrl, path);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(first.headers['cache-control']).toBe('no-cache');
      expect((await get(baseUrl, path)).headers.etag).toBe(etag);
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const revalidated = await get(baseUrl, path, { 'if-none-match': ifNoneMatch });
        expect(revalidated.status).toBe(304);
        expect(revalidated.body).toBe('');
        expect(revalidated.headers.etag).toBe(etag);
        expect(revalidated.headers['cache-control']).toBe('no-cache');
        expect(revalidated.headers.deprecation).toBe(first.headers.deprecation);
      }
      const stale = await get(baseUrl, path, { 'if-none-match': '"not-this-one"' });
      expect(stale.status).toBe(200);
      expect(stale.body).toBe(first.body);
    }
  });

  it('gives different bodies different ETags', async () => {
    const etags = await Promise.all(reads.map(async (path) => (await get(fast.baseUrl, path)).headers.etag));
    expect(new Set(etags).size).toBe(reads.length);
  });

  it('sends the deprecation headers of a deprecated version on the fast path, 200 and 304 alike, and not on the version list', async () => {
    const since = JSON.parse((await get(fast.baseUrl, '/v1/skills/echo_old/versions/1.0.0')).body).deprecation.since as string;
    for (const path of ['/v1/skills/echo_old', '/v1/skills/echo_old/versions/1.0.0']) {
      const response = await get(fast.baseUrl, path);
      expect(response.headers.deprecation).toBe(`@${Math.floor(new Date(since).getTime() / 1000)}`);
      expect(response.headers.sunset).toBe(new Date(sunset.toISOString()).toUTCString());
      expect(response.headers.link).toBe('</v1/skills/echo_text/versions/1.0.0>; rel="successor-version"');
      const revalidated = await get(fast.baseUrl, path, { 'if-none-match': response.headers.etag as string });
      expect(revalidated.status).toBe(304);
      expect([revalidated.headers.deprecation, revalidated.headers.sunset, revalidated.headers.link]).toEqual([
        response.headers.deprecation,
        response.headers.sunset,
        response.headers.link,
      ]);
    }
    expect((await get(fast.baseUrl, '/v1/skills/echo_old/versions')).headers.deprecation).toBeUndefined();
    expect((await get(fast.baseUrl, '/v1/skills/echo_text')).headers.deprecation).toBeUndefined();
  });

  it('appends tools_status to a skill that requires tools, inside the ETag', async () => {
    const response = await get(fast.baseUrl, '/v1/skills/echo_tooled');
    const body = JSON.parse(response.body);
    expect(body.tools_status).toEqual([
      expect.objectContaining({ tool_id: 'calculix.run_fea', available: false, reason: expect.stringContaining('TOOL_ADAPTERS') }),
    ]);
    const listed = await get(fast.baseUrl, '/v1/skills?domain=mechanical');
    expect(listed.headers.etag).not.toBe(response.headers.etag);
    expect((await get(fast.baseUrl, '/v1/skills/echo_tooled', { 'if-none-match': response.headers.etag as string })).status).toBe(304);
  });

  it('with AGENT_TOKENS set, refuses every fast-path read without a known token as the Nest path does (401 problem), and serves it with one', async () => {
    const nestOnly = await get(guarded.baseUrl, '/v1/skills/echo_text/history');
    expect(nestOnly.status).toBe(401);
    const expected = JSON.parse(nestOnly.body);
    for (const path of reads) {
      const refusedHeaders: Record<string, string>[] = [{}, { authorization: 'Bearer not-a-known-token' }, { authorization: 'Basic abc' }];
      for (const headers of refusedHeaders) {
        const refused = await get(guarded.baseUrl, path, headers);
        expect(refused.status).toBe(401);
        expect(refused.headers['www-authenticate']).toBe('Bearer realm="skill-registry"');
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(refused.headers.etag).toBeUndefined();
        expect(JSON.parse(refused.body)).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
      }
      const none = JSON.parse((await get(guarded.baseUrl, path)).body);
      expect({ ...none, instance: undefined }).toEqual({ ...expected, instance: undefined });
      expect(none.instance).toBe(path);
      // A cached copy does not get around the token either.
      const etag = (await get(guarded.baseUrl, path, { authorization: `Bearer ${AGENT_TOKEN}` })).headers.etag as string;
      expect((await get(guarded.baseUrl, path, { 'if-none-match': etag })).status).toBe(401);
      for (const token of [AGENT_TOKEN, ADMIN_TOKEN]) {
        const allowed = await get(guarded.baseUrl, path, { authorization: `Bearer ${token}` });
        expect(allowed.status).toBe(200);
        expect(allowed.body).toBe((await get(fast.baseUrl, path)).body);
        expect((await get(guarded.baseUrl, path, { authorization: `Bearer ${token}`, 'if-none-match': etag })).status).toBe(304);
      }
    }
  });

  it('leaves HEAD to the Nest routes, with the same headers', async () => {
    const head = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const { hostname, port } = new URL(fast.baseUrl);
      http.request({ host: hostname, port, path: '/v1/skills/echo_text', method: 'HEAD' }, resolve).on('error', reject).end();
    });
    head.resume();
    const body = await get(fast.baseUrl, '/v1/skills/echo_text');
    expect(head.statusCode).toBe(200);
    expect(head.headers.etag).toBe(body.headers.etag);
    expect(head.headers['cache-control']).toBe('no-cache');
  });

  it('changes the ETag of every read whose body a lifecycle move changes, and a stale If-None-Match then gets the new body', async () => {
    const paths = ['/v1/skills/echo_change', '/v1/skills/echo_change/versions', '/v1/skills/echo_change/versions/1.0.0', '/v1/skills'];
    const search = '/v1/search?q=echo_change';
    const before = await Promise.all([...paths, search].map((path) => get(fast.baseUrl, path)));
    const promote = { token: ADMIN_TOKEN, body: { force: true, reason: 'read path e2e: etag' } };
    expect((await call(fast.baseUrl, 'POST', '/v1/admin/skills/echo_change/versions/1.0.0/promote', promote)).status).toBe(200);
    for (const [index, path] of [...paths, search].entries()) {
      const old = before[index] as RawResponse;
      const after = await get(fast.baseUrl, path, { 'if-none-match': old.headers.etag as string });
      expect(after.status).toBe(200);
      expect(after.body).not.toBe(old.body);
      expect(after.headers.etag).not.toBe(old.headers.etag);
      expect(after.body).toContain('"status":"ACTIVE"');
    }
  });
});
