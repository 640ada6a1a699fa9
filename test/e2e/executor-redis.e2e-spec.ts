import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort, startExecutor, type RunningExecutor } from '../support/executor.js';
import { EXECUTION_SKILLS_ROOT, activate, attemptsRecorded, eventually, markerDir, waitForTerminal } from '../support/executions.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { openSse } from '../support/sse.js';

/** A private redis-server, so stopping it does not disturb other test files. */
async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  await eventually(async () => {
    const probe = spawn('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' });
    let out = '';
    probe.stdout?.on('data', (chunk) => (out += chunk));
    await new Promise((resolve) => probe.on('exit', resolve));
    return out.includes('PONG');
  }, 10_000);
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('Redis stopped and started again', () => {
  let db: TestDatabase;
  let dir: string;
  // Marker files are written by handlers in their sandboxes: under the directory the test executor makes writable there.
  let markers: string;
  let port: number;
  let redis: ChildProcess;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const queuePrefix = `test-redis-${process.pid}`;

  beforeAll(async () => {
    db = await createTestDatabase('redis');
    dir = await mkdtemp(path.join(os.tmpdir(), 'redis-'));
    markers = await markerDir();
    port = await freePort();
    redis = await startRedis(port, dir);
    const redisUrl = `redis://127.0.0.1:${port}`;
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix, env: { REDIS_URL: redisUrl } });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { REDIS_URL: redisUrl } });
    await activate(registry.baseUrl, ['quick_noop', 'sleepy', 'crash_idempotent', 'crash_not_idempotent']);
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    if (redis?.exitCode === null) await stopRedis(redis);
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
    await rm(markers, { recursive: true, force: true });
  });

  const execute = () =>
    call(registry.baseUrl, 'POST', '/v1/skills/quick_noop/executions?wait=10', { body: { input: { marker: 'redis' } } });

  it('answers 503 for executions while reads keep working, and recovers without restarts (event streams followed throughout)', async () => {
    const done = await execute();
    expect(done.body.status).toBe('SUCCEEDED');
    // Followers of the platform's events, open across the outage: their blocking reads share one connection, which
    // waits for Redis and reads on once it is back.
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const following = [await openSse(`${registry.baseUrl}/v1/events`, admin), await openSse(`${registry.baseUrl}/v1/events`, admin)];
    expect(following.map((stream) => stream.status)).toEqual([200, 200]);
    const before = (await call(registry.baseUrl, 'GET', '/v1/executions?limit=100')).body.items.length;
    await stopRedis(redis);

    const refused = await execute();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.code).toBe('QUEUE_UNAVAILABLE');
    expect((await call(registry.baseUrl, 'GET', '/v1/skills/quick_noop')).status).toBe(200);
    expect((await call(registry.baseUrl, 'GET', '/v1/skills')).status).toBe(200);
    expect((await call(registry.baseUrl, 'GET', '/v1/executions?limit=100')).body.items.length).toBe(before);
    expect((await call(registry.baseUrl, 'GET', `/v1/executions/${done.body.id}`)).body.status).toBe('SUCCEEDED');
    // Its event stream lives in Redis: a clear 503, not a request left hanging.
    const stream = await call(registry.baseUrl, 'GET', `/v1/executions/${done.body.id}/events`);
    expect(stream.status).toBe(503);
    expect(stream.body.code).toBe('QUEUE_UNAVAILABLE');

    redis = await startRedis(port, dir);
    let recovered: string | undefined;
    await eventually(async () => {
      const answer = await execute();
      recovered = answer.body.id as string;
      return answer.body.status === 'SUCCEEDED';
    }, 30_000);
    for (const stream of following) {
      const got = await stream.until((events) =>
        events.some((event) => event.type === 'run.completed' && event.data.execution_id === recovered),
      );
      expect(got.length).toBeGreaterThan(0);
      stream.close();
    }
  });

  it('answers a waiting request as soon as the result is committed, even though Redis went down meanwhile', async () => {
    const waiting = call(registry.baseUrl, 'POST', '/v1/skills/sleepy/executions?wait=30', {
      body: { input: { marker: path.join(markers, 'wait-marker'), ms: 1500, ignore_signal: false } },
    });
    await eventually(
      async () => (await call(registry.baseUrl, 'GET', '/v1/executions?skill=sleepy')).body.items[0]?.status === 'RUNNING',
      10_000,
    );
    await stopRedis(redis);
    const stopped = Date.now();
    const answered = await waiting;
    // Woken by Postgres when the executor commits the result, not by the 30 s wait running out.
    expect(Date.now() - stopped).toBeLessThan(10_000);
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'SUCCEEDED', output: { attempt: 1 } });
    redis = await startRedis(port, dir);
    // BullMQ never heard that job finish; SIGTERM still ends the executor after its grace period (10 s here).
    const stopping = Date.now();
    expect(await executor.stop()).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(16_000);
  }, 60_000);

  it('runs an execution whose queued job vanished with a Redis restart: the reconciler enqueues it again', async () => {
    // The previous test stopped the executor: this execution waits in the queue.
    expect(executor.child.exitCode).not.toBeNull();
    const queued = await call(registry.baseUrl, 'POST', '/v1/skills/quick_noop/executions', { body: { input: { marker: 'vanished' } } });
    expect(queued.status).toBe(202);
    // Redis restarts without persistence: the job is gone, the execution is still QUEUED in Postgres.
    await stopRedis(redis);
    redis = await startRedis(port, dir);
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    const finished = await waitForTerminal(registry.baseUrl, queued.body.id, 40_000);
    expect(finished).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
  }, 60_000);

  it('settles running executions whose worker died and whose jobs vanished with Redis: retried if idempotent, WORKER_LOST if not', async () => {
    const marker = (name: string) => path.join(markers, `lost-${name}`);
    const idem = await call(registry.baseUrl, 'POST', '/v1/skills/crash_idempotent/executions', {
      body: { input: { marker: marker('idem') } },
    });
    const once = await call(registry.baseUrl, 'POST', '/v1/skills/crash_not_idempotent/executions', {
      body: { input: { marker: marker('once') } },
    });
    await eventually(async () => (await attemptsRecorded(marker('idem'))) === 1 && (await attemptsRecorded(marker('once'))) === 1);
    await executor.kill();
    await stopRedis(redis);
    redis = await startRedis(port, dir);
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    // No job and no lock is left: the reconciler finds them by their stale heartbeats.
    expect(await waitForTerminal(registry.baseUrl, idem.body.id, 40_000)).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
    expect(await waitForTerminal(registry.baseUrl, once.body.id, 40_000)).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      error: { code: 'WORKER_LOST' },
    });
    expect(await attemptsRecorded(marker('once'))).toBe(1);
  }, 90_000);
});
