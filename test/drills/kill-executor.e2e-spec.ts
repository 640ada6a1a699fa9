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
  waitForTerminal,
} from '../support/executions.js';
import { call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { PRODUCTION_EXECUTOR_TIMINGS } from './support.js';

/** Smoke version of drills/kill-executor.mjs: one round, with the executor's timings as shipped. */
describe('drill smoke: kill -9 the executor mid-run', () => {
  let db: TestDatabase;
  let markers: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor | undefined;
  const queuePrefix = `test-drill-kill-${process.pid}-${Date.now()}`;
  const start = () => startExecutor({ databaseUrl: db.url, queuePrefix, env: PRODUCTION_EXECUTOR_TIMINGS });

  beforeAll(async () => {
    db = await createTestDatabase('drill_kill');
    markers = await markerDir();
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix });
    await activate(registry.baseUrl, ['crash_idempotent', 'crash_not_idempotent']);
    executor = await start();
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(markers, { recursive: true, force: true });
  });

  it('settles every execution within 10 s of the kill: idempotent ones retried, the others WORKER_LOST and never run twice', async () => {
    const submitted: { id: string; marker: string; idempotent: boolean }[] = [];
    for (const [i, skill] of ['crash_idempotent', 'crash_not_idempotent', 'crash_idempotent', 'crash_not_idempotent'].entries()) {
      const marker = path.join(markers, `m${i}`);
      const { status, body } = await call(registry.baseUrl, 'POST', `/v1/skills/${skill}/executions`, { body: { input: { marker } } });
      expect(status).toBe(202);
      submitted.push({ id: body.id, marker, idempotent: skill === 'crash_idempotent' });
    }
    // All four handlers are sleeping (concurrency 4): kill now.
    await eventually(async () => (await Promise.all(submitted.map((s) => attemptsRecorded(s.marker)))).every((n) => n === 1), 15_000);
    const killedAt = Date.now();
    await executor!.kill();
    executor = await start();

    const finals = await Promise.all(submitted.map((s) => waitForTerminal(registry.baseUrl, s.id, 40_000)));
    const recoveryMs = Math.max(...finals.map((f) => Date.parse(f.finished_at) - killedAt));
    for (const [i, s] of submitted.entries()) {
      if (s.idempotent) expect(finals[i]).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
      else {
        expect(finals[i]).toMatchObject({ status: 'FAILED', attempts: 1, error: { code: 'WORKER_LOST' } });
        expect(await attemptsRecorded(s.marker)).toBe(1);
      }
    }
    // The idempotent retry sleeps 4 s itself, so this leaves the takeover about 6 s.
    expect(recoveryMs).toBeLessThanOrEqual(10_000);
  }, 60_000);
});
