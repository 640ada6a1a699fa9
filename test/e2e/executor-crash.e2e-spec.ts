import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import {
  activate,
  attemptsRecorded,
  eventually,
  EXECUTION_SKILLS_ROOT,
  markerDir,
  obliterateQueue,
  readSse,
  waitForTerminal,
} from '../support/executions.js';
import { call, startRegistry, type RunningRegistry } from '../support/registry.js';

describe('executor crashes, restarts and shutdowns', () => {
  let db: TestDatabase;
  let markers: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor | undefined;
  const queuePrefix = `test-crash-${process.pid}-${Date.now()}`;
  const marker = (name: string) => path.join(markers, name);
  const post = (p: string, body: unknown) => call(registry.baseUrl, 'POST', p, { body });

  beforeAll(async () => {
    db = await createTestDatabase('crash');
    markers = await markerDir();
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix });
    await activate(registry.baseUrl, ['crash_idempotent', 'crash_not_idempotent', 'sleepy', 'quick_noop']);
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(markers, { recursive: true, force: true });
  });

  it('after kill -9 mid-run, retries the idempotent execution and fails the other with WORKER_LOST, never running it twice', async () => {
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    const idem = await post('/v1/skills/crash_idempotent/executions', { input: { marker: marker('idem') } });
    const once = await post('/v1/skills/crash_not_idempotent/executions', { input: { marker: marker('once') } });
    await eventually(async () => (await attemptsRecorded(marker('idem'))) === 1 && (await attemptsRecorded(marker('once'))) === 1);
    await executor.kill();

    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    const idemFinal = await waitForTerminal(registry.baseUrl, idem.body.id, 40_000);
    const onceFinal = await waitForTerminal(registry.baseUrl, once.body.id, 40_000);
    expect(idemFinal).toMatchObject({ status: 'SUCCEEDED', attempts: 2, output: { attempt: 2 } });
    expect(onceFinal).toMatchObject({ status: 'FAILED', attempts: 1, error: { code: 'WORKER_LOST' } });
    expect(await attemptsRecorded(marker('idem'))).toBe(2);
    expect(await attemptsRecorded(marker('once'))).toBe(1);
    const events = await readSse(registry.baseUrl, idem.body.id);
    expect(events.map((e) => e.type)).toEqual(['queued', 'started', 'attempt_failed', 'started', 'succeeded']);
    expect(events[2]!.data.error.code).toBe('WORKER_LOST');
  });

  it('on SIGTERM stops taking jobs, lets the running execution finish, then exits cleanly', async () => {
    const running = await post('/v1/skills/sleepy/executions', { input: { marker: marker('graceful'), ms: 1500, ignore_signal: false } });
    await eventually(async () => (await attemptsRecorded(marker('graceful'))) === 1);
    const code = await executor!.stop();
    expect(code).toBe(0);
    expect((await call(registry.baseUrl, 'GET', `/v1/executions/${running.body.id}`)).body).toMatchObject({
      status: 'SUCCEEDED',
      attempts: 1,
    });
    executor = undefined;
  });

  it('cancels a queued execution before any executor picks it up; it is never run', async () => {
    const queued = await post('/v1/skills/sleepy/executions', { input: { marker: marker('queued'), ms: 10, ignore_signal: false } });
    expect(queued.body.status).toBe('QUEUED');
    const cancelled = await post(`/v1/executions/${queued.body.id}/cancel`, {});
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', error: { code: 'CANCELLED' } });
    const pending = await post('/v1/skills/quick_noop/executions', { input: { marker: 'later' } });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    expect((await waitForTerminal(registry.baseUrl, pending.body.id)).status).toBe('SUCCEEDED');
    expect(await attemptsRecorded(marker('queued'))).toBe(0);
    expect((await readSse(registry.baseUrl, queued.body.id)).map((e) => e.type)).toEqual(['queued', 'cancelled']);
  });
});
