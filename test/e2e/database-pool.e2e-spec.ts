import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, eventually, obliterateQueue } from '../support/executions.js';
import { bearer, grpcPort, registryClient, unary, type RegistryClient } from '../support/grpc.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';

/**
 * A registry whose pool connections are all busy (held by requests blocked on a lock): a further request that
 * waited its whole bound for a connection is told so, 503 DATABASE_UNAVAILABLE with reason 'connections_busy' (it used
 * to read "the database is unavailable", as in an outage), counted in the metrics; the others answer once freed.
 */
describe('a registry whose database connections are all busy', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let client: RegistryClient;
  let admin: pg.Client;
  let skills: string;

  beforeAll(async () => {
    db = await createTestDatabase('pool_busy');
    skills = await mkdtemp(path.join(os.tmpdir(), 'pool-busy-'));
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [skills], env: { DATABASE_POOL_SIZE: '2' } });
    client = registryClient(grpcPort(registry));
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });

  afterAll(async () => {
    client?.close();
    await admin?.end();
    await registry?.stop();
    await db?.drop();
    await rm(skills, { recursive: true, force: true });
  });

  const metric = async (name: string) => {
    const text = await (await fetch(`${registry.baseUrl}/metrics`)).text();
    return text.split('\n').find((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
  };

  it('answers 503 connections_busy on REST and UNAVAILABLE on gRPC after the wait, and serves again once they are free', async () => {
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE executions IN ACCESS EXCLUSIVE MODE');
    let locked = true;
    try {
      // Two reads take the pool's two connections and wait on the lock.
      const blocked = [randomUUID(), randomUUID()].map((id) =>
        call(registry.baseUrl, 'GET', `/v1/executions/${id}`, { token: ADMIN_TOKEN }),
      );
      await eventually(
        async () =>
          (
            await admin.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).rows[0].n === 2,
        10_000,
      );
      expect(await metric('skill_database_connections')).toBeDefined();
      const startedAt = performance.now();
      const [rest, grpc] = await Promise.all([
        call(registry.baseUrl, 'GET', `/v1/executions/${randomUUID()}`, { token: ADMIN_TOKEN }),
        unary(client, 'GetExecution', { id: randomUUID() }, bearer()).catch((error: unknown) => error),
      ]);
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(1400);
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).not.toBeNull();
      expect(rest.body).toMatchObject({ code: 'DATABASE_UNAVAILABLE', reason: 'connections_busy' });
      expect(rest.body.detail).toMatch(/every database connection of this registry stayed in use/i);
      expect(grpc).toMatchObject({ code: 14 });
      expect((grpc as Error).message).toMatch(/every database connection of this registry stayed in use/i);
      expect(await metric('skill_database_pool_exhausted_total')).toMatch(/ 2$/);

      await admin.query('ROLLBACK');
      locked = false;
      for (const answer of await Promise.all(blocked)) expect([answer.status, answer.body.code]).toEqual([404, 'EXECUTION_NOT_FOUND']);
      expect((await call(registry.baseUrl, 'GET', `/v1/executions/${randomUUID()}`, { token: ADMIN_TOKEN })).status).toBe(404);
      expect(await metric('skill_database_pool_waiting')).toMatch(/ 0$/);
    } finally {
      if (locked) await admin.query('ROLLBACK');
    }
  }, 30_000);
});

/**
 * DATABASE_STATEMENT_TIMEOUT_MS: a statement stuck behind a lock is cancelled by Postgres after the bound, so it holds
 * its connection no longer; a request is told so (503, reason 'statement_timeout') and stores nothing, and an
 * executor's write of an outcome is tried again until it goes through, the outcome kept.
 */
describe('statements bounded by DATABASE_STATEMENT_TIMEOUT_MS', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let client: RegistryClient;
  let admin: pg.Client;
  const queuePrefix = `test-statement-timeout-${process.pid}-${Date.now()}`;
  const env = { DATABASE_STATEMENT_TIMEOUT_MS: '1000' };

  beforeAll(async () => {
    db = await createTestDatabase('statement_timeout');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix, env });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env });
    client = registryClient(grpcPort(registry));
    await activate(registry.baseUrl, ['napper']);
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });

  afterAll(async () => {
    client?.close();
    await admin?.end();
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  /** Runs `during` while `executions` is locked, the lock released after at least `holdMs`, whatever happens. */
  const whileLocked = async <T>(holdMs: number, during: () => Promise<T>): Promise<T> => {
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE executions IN ACCESS EXCLUSIVE MODE');
    const released = new Promise((resolve) => setTimeout(resolve, holdMs));
    try {
      const value = await during();
      await released;
      return value;
    } finally {
      await admin.query('ROLLBACK');
    }
  };

  it('answers a request stuck behind a lock 503 statement_timeout after the bound, on REST and gRPC, storing nothing', async () => {
    const [rest, grpc, created] = await whileLocked(0, async () => {
      const startedAt = performance.now();
      const answers = await Promise.all([
        call(registry.baseUrl, 'GET', `/v1/executions/${randomUUID()}`, { token: ADMIN_TOKEN }),
        unary(client, 'GetExecution', { id: randomUUID() }, bearer()).catch((error: unknown) => error),
        call(registry.baseUrl, 'POST', '/v1/skills/napper/executions?wait=10', { body: { input: { ms: 1, log_first: false } } }),
      ]);
      const elapsed = performance.now() - startedAt;
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(5000);
      return answers;
    });
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).not.toBeNull();
    expect(rest.body).toMatchObject({ code: 'DATABASE_UNAVAILABLE', reason: 'statement_timeout' });
    expect(grpc).toMatchObject({ code: 14 });
    expect((grpc as Error).message).toMatch(/statement timeout/);
    expect([created.status, created.body.code, created.body.reason]).toEqual([503, 'DATABASE_UNAVAILABLE', 'statement_timeout']);
    expect((await admin.query('SELECT count(*)::int AS n FROM executions')).rows[0].n).toBe(0);
    // Each cancelled statement gave its connection back.
    const ok = await call(registry.baseUrl, 'POST', '/v1/skills/napper/executions?wait=10', {
      body: { input: { ms: 1, log_first: false } },
    });
    expect([ok.status, ok.body.status]).toEqual([200, 'SUCCEEDED']);
  }, 30_000);

  it('keeps an outcome whose write was cancelled behind a lock: the executor writes it again once it can', async () => {
    const accepted = await call(registry.baseUrl, 'POST', '/v1/skills/napper/executions', {
      body: { input: { ms: 600, log_first: false } },
    });
    expect(accepted.status).toBe(202);
    const id = accepted.body.id as string;
    await eventually(async () => (await call(registry.baseUrl, 'GET', `/v1/executions/${id}`)).body.status === 'RUNNING', 10_000);
    // The run ends inside the lock's 2.5 s: its finish is cancelled at least once (1 s bound) before the lock goes.
    await whileLocked(2500, async () => undefined);
    await eventually(async () => (await call(registry.baseUrl, 'GET', `/v1/executions/${id}`)).body.status === 'SUCCEEDED', 15_000);
    const done = await call(registry.baseUrl, 'GET', `/v1/executions/${id}`);
    expect(done.body).toMatchObject({ status: 'SUCCEEDED', attempts: 1, output: { slept_ms: 600 } });
    expect(executor.output()).toMatch(/retrying a result write: canceling statement due to statement timeout/);
  }, 40_000);
});
