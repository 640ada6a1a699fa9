import { rm, writeFile, readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import path from 'node:path';
import { connect, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { copyCatalogSkill, tempRoot, writeEchoSkill } from '../support/skill-packages.js';
import { obliterateQueue } from '../support/executions.js';

describe('registry lifecycle over REST', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const admin = { token: ADMIN_TOKEN };
  const queuePrefix = `test-lifecycle-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('lifecycle');
    root = await tempRoot();
    await copyCatalogSkill(root, 'simulation/compare_results');
    await copyCatalogSkill(root, 'firmware/check_memory_budget');
    await writeEchoSkill(root);
    await writeEchoSkill(root, { name: 'no_examples', examples: [] });
    await writeEchoSkill(root, { name: 'bad_semver', version: '1.0' });
    await writeEchoSkill(root, { name: 'wrong_dir_name', definition: { name: 'other_name' } });
    await writeEchoSkill(root, { name: 'bad_example', examples: [{ input: { txt: 'x' } }] });
    const missing = await writeEchoSkill(root, { name: 'missing_handler' });
    await rm(path.join(missing, 'handler.ts'));
    const malformed = await writeEchoSkill(root, { name: 'malformed_json' });
    await writeFile(path.join(malformed, 'definition.json'), '{ "name": "malformed_json", ');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const get = (p: string) => call(registry.baseUrl, 'GET', p);

  it('stores good packages as REGISTERED and broken ones as DRAFT with their reports', async () => {
    for (const name of ['compare_results', 'check_memory_budget', 'echo_text', 'no_examples']) {
      const { status, body } = await get(`/v1/skills/${name}`);
      expect(status).toBe(200);
      expect(body.status).toBe('REGISTERED');
      expect(body.validation.filter((issue: { severity: string }) => issue.severity === 'error')).toEqual([]);
      expect(body.input_schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(body.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
    const drafts: Record<string, RegExp> = {
      bad_semver: /semver|semantic/i,
      other_name: /director/i,
      bad_example: /example/i,
      missing_handler: /handler\.ts/,
      malformed_json: /JSON/i,
    };
    const health = await get('/v1/health');
    expect(health.status).toBe(200);
    for (const [name, pattern] of Object.entries(drafts)) {
      const draft = health.body.drafts.find((d: { name: string }) => d.name === name);
      expect(draft).toBeDefined();
      expect(JSON.stringify(draft.first_error)).toMatch(pattern);
      const version = (await get(`/v1/skills/${name}`)).body;
      expect(version.status).toBe('DRAFT');
      expect(version.validation.length).toBeGreaterThan(0);
      for (const issue of version.validation) {
        expect(Object.keys(issue).sort()).toEqual(['category', 'file', 'hint', 'message', 'path', 'severity']);
      }
    }
    expect(health.body.by_status.REGISTERED).toBe(4);
    expect(health.body.by_status.DRAFT).toBe(5);
  });

  it('promotes on evidence, records actor and evidence, and refuses a second promotion with the allowed moves', async () => {
    const promoted = await call(registry.baseUrl, 'POST', '/v1/admin/skills/echo_text/versions/1.0.0/promote', {
      ...admin,
      body: { reason: 'examples pass' },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body.status).toBe('ACTIVE');

    const again = await call(registry.baseUrl, 'POST', '/v1/admin/skills/echo_text/versions/1.0.0/promote', { ...admin, body: {} });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(again.body.code).toBe('INVALID_TRANSITION');
    expect(again.body.current_status).toBe('ACTIVE');
    expect(again.body.allowed_transitions).toEqual([
      { to: 'DEPRECATED', via: 'deprecation' },
      { to: 'ARCHIVED', via: 'removal' },
    ]);

    const history = await get('/v1/skills/echo_text/history');
    expect(history.body.items.map((e: { from: string | null; to: string }) => [e.from, e.to])).toEqual([
      [null, 'REGISTERED'],
      ['REGISTERED', 'ACTIVE'],
    ]);
    const promotion = history.body.items[1];
    expect(promotion.actor).toBe('root');
    expect(promotion.reason).toBe('examples pass');
    expect(promotion.forced).toBe(false);
    expect(promotion.evidence.examples).toEqual([
      expect.objectContaining({ index: 0, input_valid: true, output_valid: true, execution_status: 'SUCCEEDED', output_matches: true }),
    ]);
    const redis = new Redis('redis://127.0.0.1:6379');
    const published = (await redis.xrange(`${queuePrefix}:lifecycle:events`, '-', '+')).map(([, fields]) => JSON.parse(fields[1]!));
    redis.disconnect();
    expect(published.filter((e) => e.skill === 'echo_text').map((e) => [e.from, e.to, e.actor])).toEqual([
      [null, 'REGISTERED', 'system:discovery'],
      ['REGISTERED', 'ACTIVE', 'root'],
    ]);
    const run = await get(`/v1/executions/${promotion.evidence.examples[0].execution_id}`);
    expect(run.body).toMatchObject({ skill: 'echo_text', purpose: 'promotion', status: 'SUCCEEDED', output: { text: 'hi', length: 2 } });
  });

  it('refuses promotion of a DRAFT and of a version without evidence unless forced with a reason', async () => {
    const draft = await call(registry.baseUrl, 'POST', '/v1/admin/skills/bad_example/versions/1.0.0/promote', { ...admin, body: {} });
    expect(draft.status).toBe(409);
    expect(draft.body.current_status).toBe('DRAFT');
    expect(draft.body.allowed_transitions).toEqual([
      { to: 'REGISTERED', via: 'validation' },
      { to: 'ARCHIVED', via: 'removal' },
    ]);

    const noEvidence = await call(registry.baseUrl, 'POST', '/v1/admin/skills/no_examples/versions/1.0.0/promote', { ...admin, body: {} });
    expect(noEvidence.status).toBe(409);
    expect(noEvidence.body.code).toBe('PROMOTION_EVIDENCE_FAILED');
    expect(noEvidence.body.failures).toContain('the package declares no examples to serve as evidence');

    const forcedWithoutReason = await call(registry.baseUrl, 'POST', '/v1/admin/skills/no_examples/versions/1.0.0/promote', {
      ...admin,
      body: { force: true },
    });
    expect(forcedWithoutReason.status).toBe(400);
    expect((await get('/v1/skills/no_examples')).body.status).toBe('REGISTERED');

    const forced = await call(registry.baseUrl, 'POST', '/v1/admin/skills/no_examples/versions/1.0.0/promote', {
      ...admin,
      body: { force: true, reason: 'smoke-tested by hand' },
    });
    expect(forced.status).toBe(200);
    const event = (await get('/v1/skills/no_examples/history')).body.items.at(-1);
    expect(event).toMatchObject({ to: 'ACTIVE', forced: true, reason: 'smoke-tested by hand' });
    expect(event.evidence.overridden_failures).toEqual(['the package declares no examples to serve as evidence']);
  });

  it('deprecates with reason, successor and sunset, signalled in body and standard headers', async () => {
    await call(registry.baseUrl, 'POST', '/v1/admin/skills/compare_results/versions/0.1.0/promote', { ...admin, body: {} });
    const sunset = new Date(Date.now() + 30 * 86400_000).toISOString();
    const deprecated = await call(registry.baseUrl, 'POST', '/v1/admin/skills/no_examples/deprecate', {
      ...admin,
      body: { reason: 'superseded by echo_text', successor: 'echo_text', sunset },
    });
    expect(deprecated.status).toBe(200);
    expect(deprecated.body.items[0].status).toBe('DEPRECATED');

    for (const p of ['/v1/skills/no_examples', '/v1/skills/no_examples/versions/1.0.0']) {
      const { status, headers, body } = await get(p);
      expect(status).toBe(200);
      expect(headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(headers.get('sunset')).toBe(new Date(sunset).toUTCString());
      expect(headers.get('link')).toBe('</v1/skills/echo_text>; rel="successor-version"');
      expect(body.deprecation).toMatchObject({ reason: 'superseded by echo_text', successor: 'echo_text', sunset });
    }
    const active = await get('/v1/skills/echo_text');
    expect(active.headers.get('deprecation')).toBeNull();
    expect(active.body.deprecation).toBeNull();
  });

  it('refuses deprecating what is not ACTIVE and unknown successors', async () => {
    const registered = await call(registry.baseUrl, 'POST', '/v1/admin/skills/check_memory_budget/deprecate', {
      ...admin,
      body: { reason: 'old' },
    });
    expect(registered.status).toBe(409);
    expect(registered.body.current_status).toBe('REGISTERED');
    const again = await call(registry.baseUrl, 'POST', '/v1/admin/skills/no_examples/deprecate', {
      ...admin,
      body: { reason: 'again', version: '1.0.0' },
    });
    expect(again.status).toBe(409);
    expect(again.body.allowed_transitions).toEqual([{ to: 'ARCHIVED', via: 'removal' }]);
    const unknownSuccessor = await call(registry.baseUrl, 'POST', '/v1/admin/skills/compare_results/deprecate', {
      ...admin,
      body: { reason: 'x', successor: 'does_not_exist' },
    });
    expect(unknownSuccessor.status).toBe(400);
    expect((await get('/v1/skills/compare_results')).body.status).toBe('ACTIVE');
    const unknownSkill = await call(registry.baseUrl, 'POST', '/v1/admin/skills/nope/deprecate', { ...admin, body: { reason: 'x' } });
    expect(unknownSkill.status).toBe(404);
    expect(unknownSkill.body.code).toBe('SKILL_NOT_FOUND');
  });

  it('serialises concurrent deprecations of one version: exactly one wins, history has one event', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(registry.baseUrl, 'POST', '/v1/admin/skills/compare_results/deprecate', {
          ...admin,
          body: { reason: `race ${i}`, version: '0.1.0' },
        }),
      ),
    );
    expect(attempts.filter((a) => a.status === 200)).toHaveLength(1);
    expect(attempts.filter((a) => a.status === 409)).toHaveLength(7);
    const events = (await get('/v1/skills/compare_results/history')).body.items;
    expect(events.filter((e: { to: string }) => e.to === 'DEPRECATED')).toHaveLength(1);
    const client = await connect(db.url);
    try {
      const rows = await client.query(
        `SELECT e.to_status FROM lifecycle_events e JOIN skill_versions v ON v.id = e.skill_version_id JOIN skills s ON s.id = v.skill_id
          WHERE s.name = 'compare_results' ORDER BY e.id`,
      );
      expect(rows.rows.map((r) => r.to_status)).toEqual(['REGISTERED', 'ACTIVE', 'DEPRECATED']);
      await expect(client.query(`DELETE FROM lifecycle_events`)).rejects.toThrow(/append-only/);
    } finally {
      await client.end();
    }
  });

  it('refuses a changed package under a published version, and registers a fixed DRAFT', async () => {
    const echoDefinition = path.join(root, 'demo', 'echo_text', 'definition.json');
    const definition = JSON.parse(await readFile(echoDefinition, 'utf8'));
    await writeFile(echoDefinition, JSON.stringify({ ...definition, description: 'Changed without a version bump.' }));
    const fixedDir = path.join(root, 'demo', 'bad_example', 'definition.json');
    const broken = JSON.parse(await readFile(fixedDir, 'utf8'));
    await writeFile(fixedDir, JSON.stringify({ ...broken, examples: [{ input: { text: 'ok' } }] }));

    const report = await call(registry.baseUrl, 'POST', '/v1/admin/discover', admin);
    expect(report.status).toBe(200);
    const echo = report.body.packages.find((p: { name: string }) => p.name === 'echo_text');
    expect(echo.outcome).toBe('refused');
    expect(echo.message).toMatch(/immutable|bump the version/i);
    expect((await get('/v1/skills/echo_text')).body.description).toBe(definition.description);

    const single = await call(registry.baseUrl, 'POST', '/v1/admin/skills', {
      ...admin,
      body: { path: path.join(root, 'demo', 'echo_text') },
    });
    expect(single.status).toBe(409);
    expect(single.body.code).toBe('VERSION_IMMUTABLE');

    const fixed = (await get('/v1/skills/bad_example/versions/1.0.0')).body;
    expect(fixed.status).toBe('REGISTERED');
    expect(fixed.validation.filter((issue: { severity: string }) => issue.severity === 'error')).toEqual([]);
    const history = (await get('/v1/skills/bad_example/history')).body.items;
    expect(history.at(-1)).toMatchObject({ from: 'DRAFT', to: 'REGISTERED' });

    const unchanged = await call(registry.baseUrl, 'POST', '/v1/admin/discover', admin);
    expect(unchanged.body.new).toBe(0);
    expect(unchanged.body.updated).toBe(0);
    await writeFile(echoDefinition, JSON.stringify(definition, null, 2));
  });

  it('archives a package removed from disk: still readable with its history, not listed by default', async () => {
    await rm(path.join(root, 'firmware', 'check_memory_budget'), { recursive: true });
    const report = await call(registry.baseUrl, 'POST', '/v1/admin/discover', admin);
    expect(report.body.archived).toBe(1);
    expect(report.body.archived_versions).toEqual([{ name: 'check_memory_budget', version: '0.1.0' }]);
    const archived = await get('/v1/skills/check_memory_budget');
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe('ARCHIVED');
    const history = (await get('/v1/skills/check_memory_budget/history')).body.items;
    expect(history.map((e: { to: string }) => e.to)).toEqual(['REGISTERED', 'ARCHIVED']);
    const listed = (await get('/v1/skills?limit=100')).body.items.map((s: { name: string }) => s.name);
    expect(listed).not.toContain('check_memory_budget');
    const archivedList = (await get('/v1/skills?status=ARCHIVED')).body.items.map((s: { name: string }) => s.name);
    expect(archivedList).toEqual(['check_memory_budget']);
  });

  it('keeps every state and event across a restart of the app', async () => {
    const before = {
      health: (await get('/v1/health')).body,
      history: (await get('/v1/skills/compare_results/history')).body,
      skill: (await get('/v1/skills/no_examples')).body,
    };
    await registry.stop();
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
    expect((await get('/v1/health')).body).toEqual(before.health);
    expect((await get('/v1/skills/compare_results/history')).body).toEqual(before.history);
    expect((await get('/v1/skills/no_examples')).body).toEqual(before.skill);
  });
});
