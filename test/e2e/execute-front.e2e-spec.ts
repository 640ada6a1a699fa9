import 'reflect-metadata';
import { rm } from 'node:fs/promises';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '../../apps/registry/src/config/app-config.js';
import { createRegistryApp } from '../../apps/registry/src/create-registry-app.js';
import { ExecutionsController } from '../../apps/registry/src/executions/executions.controller.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ADMIN_TOKEN, AGENT_TOKEN, PUBLISHER_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';
import { obliterateQueue } from '../support/executions.js';
import { recordHandlerCalls } from '../support/handler-calls.js';

type Answer = Awaited<ReturnType<typeof call>>;

/** What a client sees of an execute call, less what differs between any two executions (ids, times). */
function seen(answer: Answer) {
  const body = answer.body as Record<string, unknown>;
  const problem = typeof body?.code === 'string';
  return {
    status: answer.status,
    type: answer.headers.get('content-type'),
    location: answer.headers.get('location')?.replace(String(body?.id), '<id>') ?? null,
    warning: answer.headers.get('warning'),
    deprecation: answer.headers.get('deprecation'),
    sunset: answer.headers.get('sunset'),
    link: answer.headers.get('link'),
    authenticate: answer.headers.get('www-authenticate'),
    body: problem
      ? { code: body.code, status: body.status, title: body.title, detail: body.detail, errors: body.errors, instance: body.instance }
      : { status: body?.status, skill: body?.skill, version: body?.version, input: body?.input, keys: Object.keys(body ?? {}).sort() },
  };
}

/** POST /v1/skills/:name/executions: the front (execute-front.ts) answers it, as the Nest route would have. */
describe('the execute front', () => {
  const queuePrefix = `test-execute-front-${process.pid}-${Date.now()}`;
  let db: TestDatabase;
  let root: string;
  let front: RunningRegistry;
  let nest: NestFastifyApplication;
  let nestUrl: string;
  let handler: ReturnType<typeof recordHandlerCalls>;
  const sunset = new Date(Date.now() + 30 * 86_400_000);

  beforeAll(async () => {
    handler = recordHandlerCalls([[ExecutionsController, ['execute']]]);
    db = await createTestDatabase('execute_front');
    root = await tempRoot();
    await writeEchoSkill(root);
    await writeEchoSkill(root, { name: 'echo_old' });
    // Agent tokens configured: a call needs a known token (the route's read rule), so refusals of the caller show too.
    front = await startRegistry({ databaseUrl: db.url, skillPaths: [root], agentTokens: true, queuePrefix });
    for (const name of ['echo_text', 'echo_old']) {
      const promoted = await call(front.baseUrl, 'POST', `/v1/admin/skills/${name}/versions/1.0.0/promote`, {
        token: ADMIN_TOKEN,
        body: { force: true, reason: 'execute front e2e' },
      });
      expect(promoted.status).toBe(200);
    }
    const deprecation = { reason: 'replaced', successor: 'echo_text@1.0.0', sunset: sunset.toISOString() };
    expect(
      (await call(front.baseUrl, 'POST', '/v1/admin/skills/echo_old/deprecate', { token: ADMIN_TOKEN, body: deprecation })).status,
    ).toBe(200);
    // The same registry without the front: the execute route through the Nest pipeline, for comparison.
    nest = await createRegistryApp(
      loadConfig({
        DATABASE_URL: db.url,
        SKILL_PATHS: root,
        ADMIN_TOKENS: `root=${ADMIN_TOKEN}`,
        AGENT_TOKENS: `bot=${AGENT_TOKEN}`,
        PUBLISHER_TOKENS: `acme=${PUBLISHER_TOKEN}:acme_*`,
        LOG_LEVEL: 'error',
        HOST: '127.0.0.1',
        PORT: '0',
        QUEUE_PREFIX: queuePrefix,
      }),
      { executeFront: false },
    );
    await nest.listen(0, '127.0.0.1');
    nestUrl = `http://127.0.0.1:${(nest.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(async () => {
    handler?.restore();
    await nest?.close();
    await front?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const agent = { authorization: `Bearer ${AGENT_TOKEN}` };
  const json = { ...agent, 'content-type': 'application/json' };
  const cases: [string, string, { rawBody?: string; headers: Record<string, string> }][] = [
    ['a call', '/v1/skills/echo_text/executions', { rawBody: '{"input":{"text":"hi"}}', headers: json }],
    ['a call of a deprecated skill', '/v1/skills/echo_old/executions', { rawBody: '{"input":{"text":"hi"}}', headers: json }],
    [
      'a call with every field',
      '/v1/skills/echo_text/executions',
      {
        rawBody: '{"input":{"text":"hi"},"version":"1.0.0","session_id":"s-1","branch":"main"}',
        headers: json,
      },
    ],
    ['input the schema refuses', '/v1/skills/echo_text/executions', { rawBody: '{"input":{"text":7}}', headers: json }],
    ['a body without input', '/v1/skills/echo_text/executions', { rawBody: '{"inptu":{}}', headers: json }],
    ['a body that is an array', '/v1/skills/echo_text/executions', { rawBody: '[1]', headers: json }],
    ['malformed JSON', '/v1/skills/echo_text/executions', { rawBody: '{"input":', headers: json }],
    ['a duplicate key', '/v1/skills/echo_text/executions', { rawBody: '{"input":{},"input":{}}', headers: json }],
    ['another media type', '/v1/skills/echo_text/executions', { rawBody: 'input', headers: { ...agent, 'content-type': 'text/plain' } }],
    ['an unknown query parameter', '/v1/skills/echo_text/executions?bogus=1', { rawBody: '{"input":{"text":"hi"}}', headers: json }],
    ['a wait out of range', '/v1/skills/echo_text/executions?wait=61', { rawBody: '{"input":{"text":"hi"}}', headers: json }],
    ['a malformed query', '/v1/skills/echo_text/executions?wait=%ZZ', { rawBody: '{"input":{"text":"hi"}}', headers: json }],
    ['an unknown skill', '/v1/skills/no_such_skill/executions', { rawBody: '{"input":{}}', headers: json }],
    ['an unknown version', '/v1/skills/echo_text/executions', { rawBody: '{"input":{"text":"hi"},"version":"9.9.9"}', headers: json }],
    ['a NUL in the name', '/v1/skills/echo%00text/executions', { rawBody: '{"input":{}}', headers: json }],
    [
      'an Idempotency-Key with a space',
      '/v1/skills/echo_text/executions',
      {
        rawBody: '{"input":{"text":"hi"}}',
        headers: { ...json, 'idempotency-key': 'a b' },
      },
    ],
    [
      'no token',
      '/v1/skills/echo_text/executions',
      { rawBody: '{"input":{"text":"hi"}}', headers: { 'content-type': 'application/json' } },
    ],
    [
      'an unknown token',
      '/v1/skills/echo_text/executions',
      {
        rawBody: '{"input":{"text":"hi"}}',
        headers: { 'content-type': 'application/json', authorization: 'Bearer nobody' },
      },
    ],
  ];

  it.each(cases)('%s: the front answers what the Nest route answers', async (_label, path, request) => {
    const before = handler.callsOn(nest.get(ExecutionsController));
    const [viaFront, viaNest] = await Promise.all([call(front.baseUrl, 'POST', path, request), call(nestUrl, 'POST', path, request)]);
    expect(seen(viaFront)).toEqual(seen(viaNest));
    // Only the Nest registry's handler ran (for a refusal before the handler, neither).
    expect(handler.callsOn(front.app.get(ExecutionsController))).toBe(0);
    if (viaNest.status === 202) expect(handler.callsOn(nest.get(ExecutionsController))).toBe(before + 1);
  });

  it('creates the execution it answers for, and an Idempotency-Key returns it again (another body: 409)', async () => {
    const headers = { ...json, 'idempotency-key': `front-${Date.now()}` };
    const first = await call(front.baseUrl, 'POST', '/v1/skills/echo_text/executions', { rawBody: '{"input":{"text":"once"}}', headers });
    expect(first.status).toBe(202);
    expect(first.headers.get('location')).toBe(`/v1/executions/${first.body.id}`);
    const stored = await call(front.baseUrl, 'GET', `/v1/executions/${first.body.id}`, { headers: agent });
    expect(stored.body).toMatchObject({ id: first.body.id, status: 'QUEUED', input: { text: 'once' }, skill: 'echo_text' });
    const again = await call(front.baseUrl, 'POST', '/v1/skills/echo_text/executions', { rawBody: '{"input":{"text":"once"}}', headers });
    expect(again.body.id).toBe(first.body.id);
    const reused = await call(front.baseUrl, 'POST', '/v1/skills/echo_text/executions', { rawBody: '{"input":{"text":"twice"}}', headers });
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });
});
