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
  const restartExecutor = async (deferMs: number) => {
    await executor?.stop();
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, markers: false, env: { ATTEMPT_START_DEFER_MS: String(deferMs) } });
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
});
