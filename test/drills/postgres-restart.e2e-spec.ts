import { rm } from 'node:fs/promises';
import path from 'node:path';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import {
  activate,
  attemptsRecorded,
  eventually,
  EXECUTION_SKILLS_ROOT,
  markerDir,
  obliterateQueue,
  waitForTerminal,
} from '../support/executions.js';
import { startPrivatePostgres, startRegistryProcess, timed, type PrivatePostgres, type RegistryProcess } from './support.js';

/**
 * Smoke version of drills/postgres-restart.mjs: a private cluster (the shared one is never stopped)
 * goes down once under the built registry and executor, both child processes.
 */
describe('drill smoke: Postgres stopped and started again', () => {
  let cluster: PrivatePostgres;
  let registry: RegistryProcess;
  let executor: RunningExecutor;
  let markers: string;
  const queuePrefix = `test-drill-pg-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    cluster = await startPrivatePostgres();
    markers = await markerDir();
    const databaseUrl = cluster.url('skill_registry');
    registry = await startRegistryProcess({ databaseUrl, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix });
    executor = await startExecutor({ databaseUrl, queuePrefix });
    await activate(registry.baseUrl, ['sleepy', 'quick_noop']);
  }, 60_000);

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await cluster?.destroy();
    await obliterateQueue(queuePrefix);
    await rm(markers, { recursive: true, force: true });
  });

  it('stays up, answers 503 quickly during the outage, and finishes what was running once it is back', async () => {
    const marker = path.join(markers, 'before');
    const before = await timed(registry.baseUrl, 'POST', '/v1/skills/sleepy/executions', {
      input: { marker, ms: 3000, ignore_signal: false },
    });
    expect(before.status).toBe(202);
    await eventually(async () => (await attemptsRecorded(marker)) === 1, 10_000);

    await cluster.stop('fast');
    // Executions live in the database only: a quick 503 problem, not a 500 or a hanging request.
    const read = await timed(registry.baseUrl, 'GET', `/v1/executions/${before.body.id}`);
    expect({ status: read.status, type: read.contentType, code: read.body?.code }).toEqual({
      status: 503,
      type: expect.stringContaining('application/problem+json'),
      code: 'DATABASE_UNAVAILABLE',
    });
    expect(read.ms).toBeLessThan(2000);
    // Skill reads come from the registry's in-memory catalog: still answered (or a quick 503).
    const skill = await timed(registry.baseUrl, 'GET', '/v1/skills/sleepy');
    expect([200, 503]).toContain(skill.status);
    expect(skill.ms).toBeLessThan(2000);
    const execute = await timed(registry.baseUrl, 'POST', '/v1/skills/quick_noop/executions', { input: { marker: 'outage' } });
    expect(execute.status).toBe(503);
    expect(['DATABASE_UNAVAILABLE', 'QUEUE_UNAVAILABLE']).toContain(execute.body?.code);
    expect(execute.ms).toBeLessThan(2000);
    expect((await timed(registry.baseUrl, 'GET', '/readyz', undefined, 5000)).status).toBe(503);
    expect((await timed(registry.baseUrl, 'GET', '/healthz')).status).toBe(200);
    await cluster.start();

    expect({ registry: registry.child.exitCode, executor: executor.child.exitCode }).toEqual({ registry: null, executor: null });
    await eventually(async () => (await timed(registry.baseUrl, 'GET', `/v1/executions/${before.body.id}`)).status === 200, 15_000);
    expect(await waitForTerminal(registry.baseUrl, before.body.id, 30_000)).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
    expect(await attemptsRecorded(marker)).toBe(1);
    const after = await timed(registry.baseUrl, 'POST', '/v1/skills/quick_noop/executions?wait=10', { input: { marker: 'after' } }, 15_000);
    expect(after.body).toMatchObject({ status: 'SUCCEEDED' });
    expect((await timed(registry.baseUrl, 'GET', '/readyz')).status).toBe(200);
    expect({ registry: registry.child.exitCode, executor: executor.child.exitCode }).toEqual({ registry: null, executor: null });
  }, 60_000);
});
