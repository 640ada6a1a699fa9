import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ExecutionQueue, ExecutionsRepository, queuedRecordOf, type NewExecution } from '#executions/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, eventually, EXECUTION_SKILLS_ROOT, obliterateQueue, readSse, waitForTerminal } from '../support/executions.js';
import { call, startRegistry, type RunningRegistry } from '../support/registry.js';

/**
 * The deferred attempt start (apps/executor/src/execution/attempt-start.ts): a first attempt of a sandboxed
 * handler runs before its start is written, and writes start and end in one statement when it ends in success
 * without having used the channel. `napper` is not idempotent and touches nothing outside its sandbox; the
 * executors here bind no marker directory into the sandboxes, so its runs have no way out but the channel.
 */
describe('deferred attempt start', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor | undefined;
  const queuePrefix = `test-deferred-${process.pid}-${Date.now()}`;
  const post = (path: string, body: unknown) => call(registry.baseUrl, 'POST', path, { body });
  const get = async (id: string) => (await call(registry.baseUrl, 'GET', `/v1/executions/${id}`)).body;
  const nap = (input: { ms: number; log_first?: boolean; fail?: boolean }, wait = '') =>
    post(`/v1/skills/napper/executions${wait}`, { input: { log_first: false, ...input } });
  const restartExecutor = async (deferMs: number, env: Record<string, string> = {}) => {
    await executor?.stop();
    executor = await startExecutor({
      databaseUrl: db.url,
      queuePrefix,
      markers: false,
      env: { ATTEMPT_START_DEFER_MS: String(deferMs), ...env },
    });
  };
  const attemptsStarted = async (): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${executor!.port}/metrics`)).text();
    const line = text.split('\n').find((entry) => entry.startsWith('skill_execution_attempts_total{') && entry.includes('skill="napper"'));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    db = await createTestDatabase('deferred');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix });
    await activate(registry.baseUrl, ['napper']);
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  describe('with a defer window longer than the runs', () => {
    beforeAll(() => restartExecutor(20_000));

    it('a run that uses no channel stays QUEUED while it runs, then ends SUCCEEDED as attempt 1 with its real duration', async () => {
      const { body } = await nap({ ms: 2500 });
      await eventually(async () => (await attemptsStarted()) >= 1);
      await sleep(800);
      expect((await get(body.id)).status).toBe('QUEUED');
      const final = await waitForTerminal(registry.baseUrl, body.id);
      expect(final).toMatchObject({ status: 'SUCCEEDED', attempts: 1, output: { slept_ms: 2500 } });
      expect(final.duration_ms).toBeGreaterThanOrEqual(2500);
      expect(Date.parse(final.finished_at) - Date.parse(final.started_at)).toBeGreaterThanOrEqual(2400);
      expect(Date.parse(final.started_at)).toBeGreaterThanOrEqual(Date.parse(final.created_at) - 50);
      expect((await readSse(registry.baseUrl, body.id)).map((event) => event.type)).toEqual(['queued', 'started', 'succeeded']);
    });

    it('a log line (a channel call) makes the start durable before it is served', async () => {
      const { body } = await nap({ ms: 4000, log_first: true });
      await eventually(async () => (await get(body.id)).status === 'RUNNING', 3500);
      expect(await get(body.id)).toMatchObject({ status: 'RUNNING', attempts: 1 });
      await waitForTerminal(registry.baseUrl, body.id);
      const types = (await readSse(registry.baseUrl, body.id)).map((event) => event.type);
      expect(types).toEqual(['queued', 'started', 'log', 'succeeded']);
    });

    it('a failing run writes its start, then fails the usual way', async () => {
      const { body } = await nap({ ms: 0, fail: true }, '?wait=20');
      expect(body).toMatchObject({ status: 'FAILED', attempts: 1, error: { code: 'HANDLER_ERROR' } });
      expect((await readSse(registry.baseUrl, body.id)).map((event) => event.type)).toEqual(['queued', 'started', 'failed']);
    });

    it('cancelled while its start is deferred: stays CANCELLED, the run is dropped', async () => {
      const started = await attemptsStarted();
      const { body } = await nap({ ms: 2000 });
      await eventually(async () => (await attemptsStarted()) > started);
      const cancelled = await post(`/v1/executions/${body.id}/cancel`, {});
      expect(cancelled.body).toMatchObject({ status: 'CANCELLED' });
      await sleep(3000); // the handler's nap is over: its result came back and was refused
      expect(await get(body.id)).toMatchObject({ status: 'CANCELLED', attempts: 0, output: null });
      expect((await readSse(registry.baseUrl, body.id)).map((event) => event.type)).toEqual(['queued', 'cancelled']);
      // The executor goes on serving.
      expect((await nap({ ms: 0 }, '?wait=20')).body).toMatchObject({ status: 'SUCCEEDED' });
    });

    it('after kill -9 mid-run, the first attempt is run again from scratch: SUCCEEDED as attempt 1, not WORKER_LOST', async () => {
      const started = await attemptsStarted();
      const { body } = await nap({ ms: 3000 });
      await eventually(async () => (await attemptsStarted()) > started);
      await sleep(500);
      expect((await get(body.id)).status).toBe('QUEUED');
      await executor!.kill();
      executor = undefined;
      await restartExecutor(20_000);
      const final = await waitForTerminal(registry.baseUrl, body.id, 40_000);
      expect(final).toMatchObject({ status: 'SUCCEEDED', attempts: 1, output: { slept_ms: 3000 } });
      expect((await readSse(registry.baseUrl, body.id)).map((event) => event.type)).toEqual(['queued', 'started', 'succeeded']);
    }, 60_000);
  });

  describe('with a short defer window', () => {
    beforeAll(() => restartExecutor(200));

    it('a long run has its start written once the window has passed (RUNNING, heartbeated)', async () => {
      const { body } = await nap({ ms: 4000 });
      await eventually(async () => (await get(body.id)).status === 'RUNNING', 3500);
      const running = await get(body.id);
      expect(running).toMatchObject({ status: 'RUNNING', attempts: 1 });
      const final = await waitForTerminal(registry.baseUrl, body.id);
      expect(final).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
      // Its start is recorded as when the run began, not when the write went out 200 ms later: the row's
      // started_at is its 'started' event's time, and the duration is the whole run's.
      expect(final.duration_ms).toBeGreaterThanOrEqual(4000);
      const started = (await readSse(registry.baseUrl, body.id)).find((event) => event.type === 'started');
      expect(Math.abs(Date.parse(final.started_at) - Date.parse(started?.data.at as string))).toBeLessThan(50);
    });
  });

  /**
   * Jobs the registry enqueues alongside the insert of their row (ExecutionJob.early), played here by hand so that the
   * row comes late on purpose: the executor must wait for it, whichever way its first attempt starts.
   */
  describe('a job enqueued before its row is committed', () => {
    let pool: pg.Pool;
    let repository: ExecutionsRepository;
    let queue: ExecutionQueue;
    let napperVersionId: string;

    beforeAll(async () => {
      pool = new pg.Pool({ connectionString: db.url, max: 2 });
      repository = new ExecutionsRepository(pool);
      queue = ExecutionQueue.connect({ mode: 'single', url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, queuePrefix);
      await restartExecutor(20_000);
      const { body } = await nap({ ms: 0 }, '?wait=20');
      const { rows } = await pool.query('SELECT skill_version_id FROM executions WHERE id = $1', [body.id]);
      napperVersionId = rows[0].skill_version_id as string;
    });

    afterAll(async () => {
      await queue?.close();
      await pool?.end();
    });

    const newExecution = (ms: number): NewExecution => ({
      skillVersionId: napperVersionId,
      skillName: 'napper',
      version: '1.0.0',
      purpose: 'call',
      input: { ms, log_first: false },
      maxAttempts: 1,
      warnings: [],
      sessionId: null,
      caller: 'early-test',
      idempotencyKey: null,
      requestHash: null,
    });

    /** Enqueues as the registry does, then inserts the row `lateMs` later; null `lateMs`: never. */
    const enqueueEarly = async (lateMs: number | null, ms = 0, snapshot = true): Promise<string> => {
      const id = randomUUID();
      const execution = { ...newExecution(ms), id };
      await queue.enqueue(id, snapshot ? queuedRecordOf(id, execution, new Date()) : undefined, true);
      if (lateMs !== null) {
        await sleep(lateMs);
        await repository.createMany([execution], 'unflushed');
      }
      return id;
    };

    it('a deferred first attempt that ends before its row is there waits for it: run once, SUCCEEDED, started after its creation', async () => {
      const before = await attemptsStarted();
      const id = await enqueueEarly(1500);
      const final = await waitForTerminal(registry.baseUrl, id);
      // Once: not dropped and run again when the queue reconciler found the row QUEUED without a live job.
      expect((await attemptsStarted()) - before).toBe(1);
      expect(final).toMatchObject({ status: 'SUCCEEDED', attempts: 1, output: { slept_ms: 0 } });
      // The run began before the row existed; its start is recorded no earlier than the row's creation.
      expect(Date.parse(final.started_at)).toBeGreaterThanOrEqual(Date.parse(final.created_at));
      expect((await readSse(registry.baseUrl, id)).map((event) => event.type)).toEqual(['started', 'succeeded']);
    });

    it('the row of a rejected insert never comes: the executor gives up after EARLY_JOB_ROW_WAIT_MS and goes on serving', async () => {
      await restartExecutor(20_000, { EARLY_JOB_ROW_WAIT_MS: '1000' });
      const id = await enqueueEarly(null);
      const dropped = `the run of execution ${id} is dropped: its row never appeared`;
      await eventually(async () => executor!.output().includes(dropped), 10_000);
      expect((await call(registry.baseUrl, 'GET', `/v1/executions/${id}`)).status).toBe(404);
      expect((await nap({ ms: 0 }, '?wait=20')).body).toMatchObject({ status: 'SUCCEEDED' });
    });

    it('without deferred starts (the start written first), the pickup waits for the row as well, and gives up the same way', async () => {
      await restartExecutor(0, { EARLY_JOB_ROW_WAIT_MS: '1000' });
      const before = await attemptsStarted();
      const withSnapshot = await enqueueEarly(600);
      const withoutSnapshot = await enqueueEarly(600, 0, false);
      for (const id of [withSnapshot, withoutSnapshot]) {
        expect(await waitForTerminal(registry.baseUrl, id)).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
      }
      expect((await attemptsStarted()) - before).toBe(2);
      const never = await enqueueEarly(null);
      await eventually(async () => executor!.output().includes(`job for execution ${never} ignored: its row never appeared`), 10_000);
    });

    it('through the registry, calls without an idempotency key go out early and all succeed; a keyed call still finds its first', async () => {
      await restartExecutor(20_000);
      const calls = await Promise.all(Array.from({ length: 40 }, () => nap({ ms: 0 }, '?wait=20')));
      expect(calls.map((answer) => answer.body.status)).toEqual(Array(40).fill('SUCCEEDED'));
      const keyed = () =>
        call(registry.baseUrl, 'POST', '/v1/skills/napper/executions?wait=20', {
          body: { input: { ms: 0, log_first: false } },
          headers: { 'idempotency-key': `early-${queuePrefix}` },
        });
      const first = await keyed();
      const again = await keyed();
      expect(first.body).toMatchObject({ status: 'SUCCEEDED' });
      expect(again.body.id).toBe(first.body.id);
    });
  });
});
