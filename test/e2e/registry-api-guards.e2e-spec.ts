import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT, tempRoot, writeEchoSkill } from '../support/skill-packages.js';
import { obliterateQueue } from '../support/executions.js';

/** Auth matrix, bad inputs and API surface of the registry, with AGENT_TOKENS set. */
describe('registry REST guards', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const queuePrefix = `test-guards-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('guards');
    root = await tempRoot();
    await writeEchoSkill(root);
    await writeEchoSkill(root, { name: 'echo_two', definition: { tags: ['test', 'second'], phase: 2 } });
    await writeEchoSkill(root, { name: 'echo_three', domain: 'other', definition: { phase: 3 } });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], agentTokens: true, queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const req = (method: string, p: string, options: Parameters<typeof call>[3] = {}) => call(registry.baseUrl, method, p, options);

  const adminRoutes: [string, string, unknown][] = [
    ['POST', '/v1/admin/discover', undefined],
    ['POST', '/v1/admin/skills', { path: 'demo/echo_text' }],
    ['POST', '/v1/admin/skills/echo_two/versions/1.0.0/promote', {}],
    ['POST', '/v1/admin/skills/echo_three/deprecate', { reason: 'x' }],
  ];

  it.each(adminRoutes)('%s %s: 401 without or with an unknown token, 403 for an agent, allowed for an admin', async (method, p, body) => {
    const none = await req(method, p, { body });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHENTICATED');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const unknown = await req(method, p, { body, token: 'not-a-known-token' });
    expect(unknown.status).toBe(401);
    const malformed = await req(method, p, { body, headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    const agent = await req(method, p, { body, token: AGENT_TOKEN });
    expect(agent.status).toBe(403);
    expect(agent.body.code).toBe('FORBIDDEN');
    const asAdmin = await req(method, p, { body, token: ADMIN_TOKEN });
    expect([200, 201, 409]).toContain(asAdmin.status);
  });

  it('needs a token for reads when AGENT_TOKENS is set, accepting agent and admin tokens', async () => {
    expect((await req('GET', '/v1/skills')).status).toBe(401);
    expect((await req('GET', '/v1/skills', { token: 'wrong-token-123' })).status).toBe(401);
    expect((await req('GET', '/v1/skills', { token: AGENT_TOKEN })).status).toBe(200);
    expect((await req('GET', '/v1/skills', { token: ADMIN_TOKEN })).status).toBe(200);
    expect((await req('GET', '/v1/health')).status).toBe(401);
    expect((await req('GET', '/healthz')).status).toBe(200);
    expect((await req('GET', '/readyz')).status).toBe(200);
  });

  it('lists with filters, tags that must all match, phase ≤ n, and stable cursor paging', async () => {
    const token = AGENT_TOKEN;
    const names = async (query: string) =>
      (await req('GET', `/v1/skills${query}`, { token })).body.items.map((s: { name: string }) => s.name);
    expect(await names('')).toEqual(['echo_text', 'echo_three', 'echo_two']);
    expect(await names('?domain=other')).toEqual(['echo_three']);
    expect(await names('?agent=demo')).toEqual(['echo_text', 'echo_two']);
    expect(await names('?phase=2')).toEqual(['echo_text', 'echo_two']);
    expect(await names('?tag=test&tag=second')).toEqual(['echo_two']);
    expect(await names('?tag=test&tag=missing')).toEqual([]);
    expect(await names('?q=TWO')).toEqual(['echo_two']);
    expect(await names('?status=ACTIVE')).toEqual(['echo_two']);

    const first = await req('GET', '/v1/skills?limit=2', { token });
    expect(first.body.items.map((s: { name: string }) => s.name)).toEqual(['echo_text', 'echo_three']);
    expect(typeof first.body.next_cursor).toBe('string');
    const second = await req('GET', `/v1/skills?limit=2&cursor=${first.body.next_cursor}`, { token });
    expect(second.body.items.map((s: { name: string }) => s.name)).toEqual(['echo_two']);
    expect(second.body.next_cursor).toBeNull();
  });

  it.each([
    ['/v1/skills?limit=0', 'limit'],
    ['/v1/skills?limit=100000', 'limit'],
    ['/v1/skills?limit=abc', 'limit'],
    ['/v1/skills?phase=9', 'phase'],
    ['/v1/skills?status=ALIVE', 'status'],
    ['/v1/skills?cursor=%%%', 'cursor'],
    ['/v1/skills?cursor=' + Buffer.from('{"v":9}').toString('base64url'), 'cursor'],
    ['/v1/skills?unknown=1', 'unknown'],
  ])('answers 400 problem details for %s', async (p, field) => {
    const response = await req('GET', p, { token: AGENT_TOKEN });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body).toMatchObject({ status: 400, title: 'Bad Request' });
    expect(JSON.stringify(response.body.errors ?? response.body.detail)).toContain(field);
  });

  it('answers 404 problem details for unknown skills, versions and routes', async () => {
    const skill = await req('GET', '/v1/skills/no_such_skill', { token: AGENT_TOKEN });
    expect(skill.status).toBe(404);
    expect(skill.body).toMatchObject({ code: 'SKILL_NOT_FOUND', instance: '/v1/skills/no_such_skill' });
    expect((await req('GET', '/v1/skills/echo_text/versions/9.9.9', { token: AGENT_TOKEN })).body.code).toBe('SKILL_NOT_FOUND');
    expect((await req('GET', '/v1/skills/no_such_skill/history', { token: AGENT_TOKEN })).status).toBe(404);
    const route = await req('GET', '/v1/nothing-here', { token: AGENT_TOKEN });
    expect(route.status).toBe(404);
    expect(route.headers.get('content-type')).toContain('application/problem+json');
  });

  it('refuses malformed JSON, wrong types, unknown fields and oversized bodies without changing anything', async () => {
    const token = ADMIN_TOKEN;
    const p = '/v1/admin/skills/echo_two/deprecate';
    const malformed = await req('POST', p, { token, rawBody: '{"reason": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('MALFORMED_JSON');
    const wrongType = await req('POST', p, { token, body: { reason: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'reason' })]));
    const unknownField = await req('POST', p, { token, body: { reason: 'x', colour: 'red' } });
    expect(unknownField.status).toBe(400);
    expect(JSON.stringify(unknownField.body.errors)).toContain('colour');
    const badSunset = await req('POST', p, { token, body: { reason: 'x', sunset: 'tomorrow' } });
    expect(badSunset.status).toBe(400);
    const pastSunset = await req('POST', p, { token, body: { reason: 'x', sunset: '2001-01-01T00:00:00Z' } });
    expect(pastSunset.status).toBe(400);
    const forceNotBoolean = await req('POST', '/v1/admin/skills/echo_two/versions/1.0.0/promote', { token, body: { force: 'yes' } });
    expect(forceNotBoolean.status).toBe(400);
    const huge = await req('POST', p, { token, body: { reason: 'x'.repeat(1024 * 1024 + 10) } });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('PAYLOAD_TOO_LARGE');
    const history = await req('GET', '/v1/skills/echo_two/history', { token });
    expect(history.body.items.every((e: { to: string }) => e.to !== 'DEPRECATED')).toBe(true);
  });

  it.each([['../../etc'], ['/etc'], [path.join(REPO_ROOT, 'skills', 'firmware', 'validate_pinmap')], ['demo/../../outside']])(
    'refuses to register a path outside SKILL_PATHS: %s',
    async (requested) => {
      const response = await req('POST', '/v1/admin/skills', { token: ADMIN_TOKEN, body: { path: requested } });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('PATH_OUTSIDE_SKILL_PATHS');
    },
  );

  it('registers one package by a path relative to a root, and 404s a package that does not exist', async () => {
    await writeEchoSkill(root, { name: 'echo_four' });
    const created = await req('POST', '/v1/admin/skills', { token: ADMIN_TOKEN, body: { path: 'demo/echo_four' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ outcome: 'new', version: { name: 'echo_four', status: 'REGISTERED' } });
    const again = await req('POST', '/v1/admin/skills', { token: ADMIN_TOKEN, body: { path: 'demo/echo_four' } });
    expect(again.status).toBe(200);
    expect(again.body.outcome).toBe('unchanged');
    const missing = await req('POST', '/v1/admin/skills', { token: ADMIN_TOKEN, body: { path: 'demo/nothing_here' } });
    expect(missing.status).toBe(404);
  });

  it('serves an OpenAPI document generated from the code', async () => {
    const doc = await req('GET', '/docs-json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    for (const p of ['/v1/skills', '/v1/skills/{name}', '/v1/skills/{name}/history', '/v1/admin/skills/{name}/deprecate', '/v1/health']) {
      expect(Object.keys(doc.body.paths)).toContain(p);
    }
    expect((await req('GET', '/docs')).status).toBe(200);
  });
});
