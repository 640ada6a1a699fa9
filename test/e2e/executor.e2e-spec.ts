import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import {
  activate,
  attemptsRecorded,
  EXECUTION_SKILLS_ROOT,
  markerDir,
  obliterateQueue,
  readSse,
  waitForTerminal,
} from '../support/executions.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';

const SKILLS = [
  'quick_noop',
  'flaky_twice',
  'always_fails_once_only',
  'stuck_forever',
  'sleepy',
  'bad_output',
  'picky_preconditions',
  'needs_missing_tool',
  'env_probe',
];

describe('executor end to end (registry in process, executor as a process)', () => {
  let db: TestDatabase;
  let markers: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const queuePrefix = `test-exec-${process.pid}-${Date.now()}`;
  const marker = (name: string) => path.join(markers, name);
  const post = (p: string, body: unknown, headers: Record<string, string> = {}) => call(registry.baseUrl, 'POST', p, { body, headers });
  const get = (p: string) => call(registry.baseUrl, 'GET', p);

  beforeAll(async () => {
    db = await createTestDatabase('executor');
    markers = await markerDir();
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix });
    executor = await startExecutor({
      databaseUrl: db.url,
      queuePrefix,
      env: process.env.SHOW_EXECUTOR_OUTPUT ? { LOG_LEVEL: 'debug' } : {},
    });
    await activate(registry.baseUrl, SKILLS);
  });

  afterAll(async () => {
    if (process.env.SHOW_EXECUTOR_OUTPUT) console.log(executor?.output());
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(markers, { recursive: true, force: true });
  });

  it('runs a skill and returns the validated result when asked to wait', async () => {
    const { status, body, headers } = await post('/v1/skills/quick_noop/executions?wait=10', {
      input: { marker: 'abcd' },
      session_id: 's-1',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      skill: 'quick_noop',
      version: '1.0.0',
      status: 'SUCCEEDED',
      output: { attempt: 4 },
      attempts: 1,
      session_id: 's-1',
      caller: 'anonymous',
      error: null,
    });
    expect(body.duration_ms).toBeGreaterThanOrEqual(0);
    expect(headers.get('location')).toBe(`/v1/executions/${body.id}`);
    expect((await get(`/v1/executions/${body.id}`)).body.output).toEqual({ attempt: 4 });
  });

  it('runs handlers without database, Redis or token variables in their environment', async () => {
    const { body } = await post('/v1/skills/env_probe/executions?wait=10', { input: { prefix: '' } });
    expect(body.status).toBe('SUCCEEDED');
    for (const secret of ['DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKENS', 'AGENT_TOKENS', 'QUEUE_PREFIX', 'TOOL_ADAPTERS']) {
      expect(body.output.names).not.toContain(secret);
    }
    expect(body.output.names).toContain('PATH');
  });

  it('answers 202 at once without wait, and streams typed events in order over SSE', async () => {
    const started = await post('/v1/skills/sleepy/executions', { input: { marker: marker('sse'), ms: 300, ignore_signal: false } });
    expect(started.status).toBe(202);
    expect(started.body.status).toBe('QUEUED');
    const events = await readSse(registry.baseUrl, started.body.id);
    expect(events.map((e) => e.type)).toEqual(['queued', 'started', 'succeeded']);
    expect(events[1]?.data.attempt).toBe(1);
    // 'started' goes out while the 300 ms handler runs (held back at most EVENT_HOLD_MS), not with the end:
    // stream ids begin with the millisecond Redis stored the event.
    const storedAt = (id: string) => Number(id.split('-')[0]);
    expect(storedAt(events[2]!.id) - storedAt(events[1]!.id)).toBeGreaterThanOrEqual(200);
    // Replaying after the end gives the same history; Last-Event-ID resumes after an event.
    expect((await readSse(registry.baseUrl, started.body.id)).map((e) => e.type)).toEqual(['queued', 'started', 'succeeded']);
    const resumed = await readSse(registry.baseUrl, started.body.id, { 'last-event-id': events[0]!.id });
    expect(resumed.map((e) => e.type)).toEqual(['started', 'succeeded']);
    // A Last-Event-ID no stream id can be (past 64 bits) is no position: the history from the start, not a 500.
    for (const id of ['18446744073709551616-0', '1-99999999999999999999999'])
      expect((await readSse(registry.baseUrl, started.body.id, { 'last-event-id': id })).map((e) => e.type)).toEqual([
        'queued',
        'started',
        'succeeded',
      ]);
  });

  it('retries an idempotent skill on handler errors with backoff, reporting each failed attempt', async () => {
    const { body } = await post('/v1/skills/flaky_twice/executions?wait=20', { input: { marker: marker('flaky') } });
    expect(body).toMatchObject({ status: 'SUCCEEDED', attempts: 3, output: { attempt: 3 } });
    expect(await attemptsRecorded(marker('flaky'))).toBe(3);
    const events = await readSse(registry.baseUrl, body.id);
    expect(events.map((e) => e.type)).toEqual(['queued', 'started', 'attempt_failed', 'started', 'attempt_failed', 'started', 'succeeded']);
    const failed = events.filter((e) => e.type === 'attempt_failed');
    expect(failed.map((e) => e.data.error.code)).toEqual(['HANDLER_ERROR', 'HANDLER_ERROR']);
    expect(failed[0]!.data.error.message).toContain('flaky failure on attempt 1');
    for (const e of failed) expect(e.data.next_delay_ms).toBeGreaterThan(0);
  });

  it('never retries a non-idempotent skill, whatever its retries say', async () => {
    const { body } = await post('/v1/skills/always_fails_once_only/executions?wait=20', { input: { marker: marker('once') } });
    expect(body).toMatchObject({ status: 'FAILED', attempts: 1, max_attempts: 1, error: { code: 'HANDLER_ERROR' } });
    expect(body.error.message).toContain('this skill always fails');
    expect(await attemptsRecorded(marker('once'))).toBe(1);
    const skill = (await get('/v1/skills/always_fails_once_only')).body;
    expect(skill.validation).toEqual(expect.arrayContaining([expect.objectContaining({ severity: 'warning', category: 'policy' })]));
  });

  it('stops a handler stuck in an infinite loop at its timeout and keeps serving', async () => {
    const stuck = await post('/v1/skills/stuck_forever/executions?wait=20', { input: { marker: marker('stuck') } });
    expect(stuck.body).toMatchObject({ status: 'FAILED', attempts: 1, error: { code: 'HANDLER_TIMEOUT' } });
    expect(stuck.body.error.message).toContain('1000 ms');
    const next = await post('/v1/skills/quick_noop/executions?wait=10', { input: { marker: 'after' } });
    expect(next.body.status).toBe('SUCCEEDED');
  });

  it.each([
    ['bad_output', 'OUTPUT_INVALID'],
    ['picky_preconditions', 'PRECONDITION_FAILED'],
    ['needs_missing_tool', 'PRECONDITION_FAILED'],
  ])('%s fails with %s and is not retried', async (skill, code) => {
    const input = { marker: marker(`${skill}.no`) };
    const { body } = await post(`/v1/skills/${skill}/executions?wait=20`, { input });
    expect(body).toMatchObject({ status: 'FAILED', attempts: 1, error: { code } });
    if (skill === 'needs_missing_tool') expect(body.error.message).toContain('nosuch.tool');
    if (skill === 'picky_preconditions') expect(await attemptsRecorded(input.marker)).toBe(0);
  });

  it('refuses bad input with 422 and every schema error, creating nothing', async () => {
    const before = (await get('/v1/executions?skill=sleepy&limit=100')).body.items.length;
    const { status, body, headers } = await post('/v1/skills/sleepy/executions', { input: { marker: 7, ms: -1, extra: true } });
    expect(status).toBe(422);
    expect(headers.get('content-type')).toContain('application/problem+json');
    expect(body.code).toBe('INPUT_INVALID');
    const pointers = body.errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/marker', '/ms', '/']));
    expect((await get('/v1/executions?skill=sleepy&limit=100')).body.items.length).toBe(before);
    expect((await post('/v1/skills/sleepy/executions', { input: 'nope' })).status).toBe(400);
    expect((await post('/v1/skills/sleepy/executions?wait=999', { input: {} })).status).toBe(400);
    expect((await post('/v1/skills/no_such_skill/executions', { input: {} })).status).toBe(404);
  });

  it('refuses to execute DRAFT, REGISTERED and unknown versions with the reason', async () => {
    const registered = await post('/v1/skills/wrong_example/executions', { input: { marker: 'x' } });
    expect(registered.status).toBe(409);
    expect(registered.body).toMatchObject({ code: 'SKILL_NOT_EXECUTABLE', current_status: 'REGISTERED' });
    expect(registered.body.detail).toContain('not been promoted');
    const pinned = await post('/v1/skills/quick_noop/executions', { input: { marker: 'x' }, version: '9.9.9' });
    expect(pinned.status).toBe(404);
  });

  it('refuses a promotion whose example output differs from what the skill returns', async () => {
    const response = await call(registry.baseUrl, 'POST', '/v1/admin/skills/wrong_example/versions/1.0.0/promote', {
      token: ADMIN_TOKEN,
      body: {},
    });
    expect(response.status).toBe(409);
    expect(response.body.failures).toEqual(['example 0 returned output that differs from the declared output']);
    expect(response.body.evidence.examples[0]).toMatchObject({ execution_status: 'SUCCEEDED', output_matches: false });
  });

  it('returns the same execution for the same Idempotency-Key and body, 409 for another body', async () => {
    const headers = { 'idempotency-key': `key-${Date.now()}` };
    const first = await post('/v1/skills/quick_noop/executions?wait=10', { input: { marker: 'idem' } }, headers);
    const second = await post('/v1/skills/quick_noop/executions?wait=10', { input: { marker: 'idem' } }, headers);
    expect(second.body.id).toBe(first.body.id);
    expect(second.body.status).toBe('SUCCEEDED');
    const other = await post('/v1/skills/quick_noop/executions', { input: { marker: 'different' } }, headers);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('cancels a running execution: the handler signal fires, or the handler is stopped after the grace period', async () => {
    for (const ignore of [false, true]) {
      const started = await post('/v1/skills/sleepy/executions', {
        input: { marker: marker(`cancel-${ignore}`), ms: 20_000, ignore_signal: ignore },
      });
      await waitForStatus(started.body.id, 'RUNNING');
      const cancelled = await post(`/v1/executions/${started.body.id}/cancel`, {});
      expect(cancelled.status).toBe(200);
      const final = await waitForTerminal(registry.baseUrl, started.body.id, 10_000);
      expect(final).toMatchObject({ status: 'CANCELLED', error: { code: 'CANCELLED' } });
      const events = await readSse(registry.baseUrl, started.body.id);
      expect(events.at(-1)?.type).toBe('cancelled');
      const again = await post(`/v1/executions/${started.body.id}/cancel`, {});
      expect(again.status).toBe(409);
    }
  });

  it('lists executions with filters and cursor paging, and 404s unknown ids', async () => {
    const page1 = await get('/v1/executions?skill=quick_noop&limit=2');
    expect(page1.body.items).toHaveLength(2);
    expect(page1.body.items.every((e: { skill: string }) => e.skill === 'quick_noop')).toBe(true);
    const page2 = await get(`/v1/executions?skill=quick_noop&limit=2&cursor=${page1.body.next_cursor}`);
    const ids = [...page1.body.items, ...page2.body.items].map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect((await get('/v1/executions?session_id=s-1')).body.items.map((e: { session_id: string }) => e.session_id)).toEqual(['s-1']);
    expect((await get('/v1/executions?status=BOGUS')).status).toBe(400);
    expect((await get('/v1/executions/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get('/v1/executions/not-a-uuid')).status).toBe(404);
  });

  it('reports usage per version and carries deprecation notices on executions', async () => {
    await call(registry.baseUrl, 'POST', '/v1/admin/skills/quick_noop/deprecate', {
      token: ADMIN_TOKEN,
      body: { reason: 'use sleepy', successor: 'sleepy' },
    });
    const run = await post('/v1/skills/quick_noop/executions?wait=10', { input: { marker: 'dep' }, session_id: 's-2' });
    expect(run.body.status).toBe('SUCCEEDED');
    expect(run.body.warnings[0]).toContain('deprecated: use sleepy');
    expect(run.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(run.headers.get('link')).toContain('rel="successor-version"');
    const usage = (await get('/v1/skills/quick_noop/usage')).body;
    const v1 = usage.versions.find((v: { version: string }) => v.version === '1.0.0');
    expect(v1.windows['7d'].executions).toBe(4);
    expect(v1.windows['7d'].sessions).toBe(2);
    expect(v1.windows['7d'].callers).toBe(1);
    expect(typeof v1.last_called_at).toBe('string');
  });

  async function waitForStatus(id: string, status: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await get(`/v1/executions/${id}`)).body.status !== status) {
      if (Date.now() > deadline) throw new Error(`execution ${id} never reached ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
});
