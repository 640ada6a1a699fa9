import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { eventually } from '../support/executions.js';
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
